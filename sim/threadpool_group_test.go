package sim

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// poolCell is a live-style cell: the client on the machine, the pool's
// workers serving it.
func poolCell(workload string, threads int) Cell {
	c := liveCell(threads, true)
	c.Workload, c.ThreadHandling = workload, PoolOfThreads
	return c
}

func TestPoolWorkersServeConnectionsWithoutAThreadEach(t *testing.T) {
	c := poolCell("oltp_point_select", 64)
	m, err := c.build()
	require.NoError(t, err)
	assert.Len(t, m.threads, 2*2+64, "two workers a group, two groups, and the clients")
	assert.Equal(t, 64, m.poolConnections())
	m.Run(10*time.Millisecond, 50*time.Millisecond)
	var served uint64
	for i := range 64 {
		assert.Positive(t, m.connUnits(i), "connection %d is served", i)
		served += m.connUnits(i)
	}
	var byWorkers uint64
	for i := range 4 {
		byWorkers += m.ThreadUnits(i)
	}
	assert.Equal(t, served, byWorkers, "every unit a connection completes runs on a worker")
	for g, grp := range m.tpool.groups {
		assert.Equal(t, 2, grp.threads, "group %d", g)
		assert.LessOrEqual(t, grp.active, 2, "group %d", g)
	}
}

// At one connection the listener picks the event itself every time
// (listener_picks_event): the group's second worker sleeps throughout.
func TestPoolListenerServesALoneConnectionItself(t *testing.T) {
	m, err := poolCell("oltp_point_select", 1).build()
	require.NoError(t, err)
	m.Run(10*time.Millisecond, 50*time.Millisecond)
	assert.Positive(t, m.connUnits(0))
	assert.Positive(t, m.ThreadUnits(0), "group 0's first worker is its listener and serves")
	assert.Zero(t, m.ThreadUnits(1), "its second worker is never woken")
	assert.Equal(t, []int32{1}, m.tpool.groups[0].waiting)
}

func TestPoolQueuesServeTransactionsFirst(t *testing.T) {
	p := &threadPool{conns: []poolConn{
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

func TestPoolServerCPUCountsTheListenersCalls(t *testing.T) {
	per, pool := liveCell(1, true), poolCell("oltp_point_select", 1)
	per.Client.ServerCPU, pool.Client.ServerCPU = 60*us, 60*us
	mp, err := per.build()
	require.NoError(t, err)
	mq, err := pool.build()
	require.NoError(t, err)
	sum := func(prog []Op) (d time.Duration) {
		for _, op := range prog {
			if op.Kind == OpCPU {
				d += op.Dur
			}
		}
		return d
	}
	p := per.Machine.Costs
	extra := p.Syscall + p.SyscallCost(SysSocket) // epoll_wait, and the second entry of the receive
	assert.InDelta(t, float64(sum(mp.threads[0].prog)-extra), float64(sum(mq.tpool.conns[0].prog)), 3,
		"the pool's THD gets the bursts less its listener's calls")
}

// TestPoolRefusesAServerProgramAThreadWouldBeRefused: a pooled connection's
// server program is checked as AddThread checks a thread's. oltp_read_write's
// commit fsyncs the log, so without a device the cell is refused, as it is
// with one thread per connection; the pooled program went unchecked, and its
// first commit dereferenced the missing device.
func TestPoolRefusesAServerProgramAThreadWouldBeRefused(t *testing.T) {
	for _, th := range []ThreadHandling{OneThreadPerConnection, PoolOfThreads} {
		c := Cell{Workload: "oltp_read_write", Threads: 4, Machine: MachineConfig{CPUs: 2},
			ThreadHandling: th, Client: &ClientConfig{}}
		err := c.Validate()
		require.ErrorIs(t, err, ErrInvalidConfig, "%v", th)
		assert.ErrorContains(t, err, "want a device installed by SetDevice", "%v", th)
	}
}
