package machine

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/innosim/innosim/prio"
)

// A thread of the client's cores runs there and nowhere else: two CPU-bound
// server threads share the one server core while the client's thread has a
// core to itself, and the client's CPU is counted apart from the server's.
func TestClientCoresRunOnlyTheirThreads(t *testing.T) {
	m, err := New(Config{CPUs: 1, ClientCPUs: 1, Seed: 1})
	require.NoError(t, err)
	prog := []Op{cpu(100 * us), done(1)}
	require.NoError(t, m.AddThread(prog, prio.Normal))
	require.NoError(t, m.AddThread(prog, prio.Normal))
	require.NoError(t, m.AddThreadOn(ClientCores, prog, prio.Normal))
	r := m.Run(10*time.Millisecond, 100*time.Millisecond)
	server := m.ThreadUnits(0) + m.ThreadUnits(1)
	client := m.ThreadUnits(2)
	assert.InDelta(t, float64(client), float64(server), float64(server)/20, "one core each side: the client's one thread as fast as the server's two together")
	assert.InDelta(t, 1.0, r.Utilisation(), 0.01, "the server's core is busy")
	assert.Equal(t, int64(100*time.Millisecond), r.Capacity, "the capacity is the server's cores'")
	assert.InDelta(t, float64(100*time.Millisecond), float64(r.ClientCPU), float64(time.Millisecond), "the client's core is busy too, counted apart")
	require.NoError(t, m.Check())
	for id := range m.threads {
		assert.Equal(t, m.threads[id].set == ClientCores, m.threads[id].last >= 1, "thread %d ran on core %d", id, m.threads[id].last)
	}

	_, err = New(Config{CPUs: 1000, ClientCPUs: 25})
	assert.ErrorContains(t, err, "ClientCPUs = 25, want 0..24")
	m, err = New(Config{CPUs: 2})
	require.NoError(t, err)
	assert.ErrorIs(t, m.AddThreadOn(ClientCores, prog, prio.Normal), ErrInvalidConfig, "no client cores")
}

// A socket's sync wake keeps the woken thread on its waker's CPU only
// within the waker's set: woken from the client's cores, a server thread
// takes an idle server core at once rather than waiting on the run queue.
func TestSyncWakeAcrossSetsTakesAnIdleCore(t *testing.T) {
	m, err := New(Config{CPUs: 1, ClientCPUs: 1, Seed: 1})
	require.NoError(t, err)
	require.NoError(t, m.AddThread([]Op{cpu(us)}, prio.Normal))
	require.NoError(t, m.AddThreadOn(ClientCores, []Op{cpu(us)}, prio.Normal))
	m.e.Run(1)
	server := &m.threads[0]
	m.block(server)
	require.Equal(t, stBlocked, server.state)
	m.waker = 1 // the client's thread, running on its core
	m.wakeSync(0)
	m.waker = -1
	assert.Equal(t, stRunning, server.state, "the idle server core takes it")
}

// A switch refills what the threads of the switched-in thread's set evicted:
// threads pinned to the client's cores evict nothing of the server's.
func TestSwitchCostCountsItsSetsThreads(t *testing.T) {
	costs := OldKernel()
	costs.SwitchFootprint, costs.CacheL2, costs.CacheLLC = 64<<10, 1<<20, 8<<20
	costs.RefillLLC, costs.RefillMemory = 5*time.Nanosecond, 50*time.Nanosecond
	m, err := New(Config{CPUs: 4, ClientCPUs: 4, Costs: costs})
	require.NoError(t, err)
	prog := []Op{cpu(us)}
	for range 4 {
		require.NoError(t, m.AddThread(prog, prio.Normal))
	}
	alone := m.SwitchCost(0)
	for range 400 {
		require.NoError(t, m.AddThreadOn(ClientCores, prog, prio.Normal))
	}
	assert.Equal(t, alone, m.SwitchCost(0), "400 client threads on their own cores evict nothing of the server's")
	assert.Greater(t, m.SwitchCost(4), 2*alone, "the client's 400 threads evict each other's")
}

// EEVDF does not preempt a running thread for a wake before its slice is
// used (RUN_TO_PARITY), where CFS preempts for a sleeper a wakeup
// granularity behind.
func TestEEVDFWakeDoesNotPreemptInsideTheSlice(t *testing.T) {
	for _, s := range []Scheduler{CFS, EEVDF} {
		m, err := New(Config{CPUs: 1, Scheduler: s, Seed: 1})
		require.NoError(t, err)
		require.NoError(t, m.AddThread([]Op{cpu(time.Second)}, prio.Normal))
		require.NoError(t, m.AddThread([]Op{sleep(50 * time.Millisecond), cpu(us)}, prio.Normal))
		m.e.Run(int64(40 * time.Millisecond))
		require.Equal(t, stRunning, m.threads[0].state, "%v: the hog runs while the other sleeps", s)
		m.e.Run(int64(80 * time.Millisecond)) // the sleeper wakes at 25..75 ms
		switch s {
		case CFS:
			assert.Greater(t, m.switches, uint64(2), "CFS: the sleeper's wake preempted the hog")
		case EEVDF:
			assert.Less(t, m.threads[0].vr-m.threads[1].vr, int64(80*time.Millisecond), "EEVDF: both ran")
		}
	}
	f := DefaultFair()
	f.BaseSlice = 0
	_, err := New(Config{CPUs: 1, Scheduler: EEVDF, Fair: f})
	assert.ErrorContains(t, err, "Fair.BaseSlice = 0s, want 1µs..1s under eevdf")
	_, err = New(Config{CPUs: 1, Scheduler: CFS, Fair: f})
	assert.NoError(t, err, "CFS reads no base slice")
	sch, err := ParseScheduler("eevdf")
	require.NoError(t, err)
	assert.Equal(t, EEVDF, sch)
	assert.Equal(t, "eevdf", sch.String())
}

// Under EEVDF a wake arriving while the one core runs a long burst waits
// for the end of the running thread's base slice, not the end of its burst.
func TestEEVDFSliceEndsTheBurst(t *testing.T) {
	f := DefaultFair()
	f.BaseSlice = 2 * time.Millisecond
	m, err := New(Config{CPUs: 1, Scheduler: EEVDF, Fair: f, Seed: 1})
	require.NoError(t, err)
	require.NoError(t, m.AddThread([]Op{cpu(time.Second)}, prio.Normal))
	require.NoError(t, m.AddThread([]Op{sleep(time.Millisecond), cpu(10 * us), done(1)}, prio.Normal))
	m.e.Run(int64(100 * time.Millisecond))
	assert.Greater(t, m.ThreadUnits(1), uint64(20), "the short thread runs every few slices")
}

// LAST_BUDDY: a thread a wake preempted while its core's run queue was long
// gets the core back as soon as the thread that preempted it blocks, ahead
// of the leftmost runnable thread, when it is within a wakeup granularity
// of it.
func TestLastBuddyGetsTheCoreBack(t *testing.T) {
	m, err := New(Config{CPUs: 1, Scheduler: CFS, Seed: 1})
	require.NoError(t, err)
	for range 10 {
		require.NoError(t, m.AddThread([]Op{cpu(time.Second)}, prio.Normal))
	}
	require.NoError(t, m.AddThread([]Op{cpu(time.Second)}, prio.Normal))
	m.e.Run(int64(500 * time.Millisecond))
	q := &m.sets[ServerCores]
	cur := m.cores[0].cur
	require.GreaterOrEqual(t, cur, int32(0))
	woken := int32(10)
	if cur == woken {
		woken = 9
	}
	// the woken thread: a long sleeper, behind every other by the credit
	wt := &m.threads[woken]
	m.block(wt)
	require.Equal(t, 9, q.rq.n)
	wt.vr = 0 // it slept since the start
	m.wake(woken)
	require.Equal(t, woken, m.cores[0].cur, "the sleeper preempts")
	require.Equal(t, cur, m.cores[0].last, "eleven runnable threads on one core: the preempted one is its last buddy")
	left := m.bestRunnable(q)
	require.NotEqual(t, cur, left, "the preempted thread is not the leftmost")
	m.block(wt)
	assert.Equal(t, cur, m.cores[0].cur, "the buddy, not the leftmost %d, gets the core", left)
	assert.Equal(t, int32(-1), m.cores[0].last, "and is no buddy any more")
}
