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
	for _, over := range []int{PoolOversubscribe, 1, 8} {
		p := &Pool{oversubscribe: over}
		g := &poolGroup{active: over}
		assert.False(t, p.tooManyThreads(g), "1 + thread_pool_oversubscribe (%d) active is the limit", over)
		g.active++
		assert.True(t, p.tooManyThreads(g))
		g.stalled = true
		assert.False(t, p.tooManyThreads(g), "a stalled group is not limited")
	}
}

// Under threadpool_unix.cc (MariaDB 5.5 to 10.1) a group has one queue, in
// arrival order, whatever the connection's transaction.
func TestPoolUnix55HasOneQueue(t *testing.T) {
	p := &Pool{release: Unix55, conns: []poolConn{
		{trx: []bool{false, true}, pc: 1},
		{trx: []bool{false, true}, pc: 0},
		{trx: []bool{false, true}, pc: 1},
	}}
	g := &poolGroup{ready: []int32{1, 0, 2}}
	p.queuePut(g)
	got := []int32{g.queueGet(), g.queueGet(), g.queueGet(), g.queueGet()}
	assert.Equal(t, []int32{1, 0, 2, -1}, got, "arrival order")
}
