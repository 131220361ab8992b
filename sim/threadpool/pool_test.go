package threadpool

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestPoolQueuesServeTransactionsFirst(t *testing.T) {
	p := &Pool{conns: []poolConn{
		{trx: []bool{false, true}, pc: 1}, // inside a transaction
		{trx: []bool{false, true}, pc: 0},
		{trx: []bool{false, true}, pc: 1},
	}}
	g := &poolGroup{ready: []int32{1, 0, 2}}
	p.queuePut(g)
	assert.Empty(t, g.ready)
	got := []int32{g.queueGet(), g.queueGet(), g.queueGet(), g.queueGet()}
	assert.Equal(t, []int32{0, 2, 1, -1}, got, "high priority in arrival order, then low, then none")
}

func TestPoolOversubscribeLimitsActiveWorkers(t *testing.T) {
	g := &poolGroup{active: PoolOversubscribe}
	assert.False(t, g.tooManyThreads(), "1 + thread_pool_oversubscribe active is the limit")
	g.active++
	assert.True(t, g.tooManyThreads())
}
