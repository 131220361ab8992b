package machine

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/innosim/innosim/prio"
)

// holdOf is the bucket hold of a futex call op on mutex mi of m.
func holdOf(m *Machine, op futexOp, mi int32) int64 {
	t := &thread{sy: syncThread{sys: futexCall{op: op, arg: mi}}}
	return m.sy.holdTime(t, &m.sy.buckets[m.sy.mutexes[mi].bucket])
}

// queue puts n waiters on mutex mi (thread ids 0..n-1; holdTime reads only
// how many there are).
func queue(m *Machine, mi int32, n int) {
	m.sy.mutexes[mi].waiters = m.sy.mutexes[mi].waiters[:0]
	for i := range n {
		m.sy.mutexes[mi].waiters = append(m.sy.mutexes[mi].waiters, int32(i))
	}
}

func TestFutexCallsAreChargedByKind(t *testing.T) {
	m, err := New(Config{CPUs: 1})
	require.NoError(t, err)
	all := m.AddMutex(Mutex{Name: "all", Spin: true, WakeAll: true})
	one := m.AddMutex(Mutex{Name: "one", Spin: true})
	base := int64(m.cfg.Costs.FutexHold)
	g := m.cfg.Costs.FutexGrowth
	for _, n := range []int{1, 8, 500} {
		queue(m, all, n)
		queue(m, one, n)
		assert.Equal(t, base, holdOf(m, fxWaitMutex, all), "%d waiters: a wait links one entry", n)
		assert.Equal(t, base, holdOf(m, fxWakeMutex, one), "%d waiters: a wake of one stops at the first", n)
		assert.Equal(t, int64(float64(base)*(1+g*float64(n-1))), holdOf(m, fxWakeMutex, all),
			"%d waiters: a wake-all marks each waiter beyond the first", n)
	}
	queue(m, all, 8)
	small := holdOf(m, fxWakeMutex, all)
	queue(m, all, 64)
	assert.Greater(t, holdOf(m, fxWakeMutex, all), small, "a wake-all grows with whom it wakes")

	b := &m.sy.buckets[m.sy.mutexes[one].bucket]
	b.queue = []int32{1, 2, 3}
	assert.Equal(t, int64(float64(base)*(1+3*g)), holdOf(m, fxWakeMutex, one), "each spinner on the bucket lock adds a transfer")
}

// FutexWalk, the fitted stand-in study A's machine keeps, charges every call
// of a mutex's futex for every waiter, a wait and a wake of one alike; a
// profile file may set it.
func TestFutexWalkChargesEveryCallForEveryWaiter(t *testing.T) {
	p, err := ParseProfile(strings.NewReader("futex_walk = 1\n"), "f")
	require.NoError(t, err)
	m, err := New(Config{CPUs: 1, Costs: p})
	require.NoError(t, err)
	all := m.AddMutex(Mutex{Name: "all", Spin: true, WakeAll: true})
	one := m.AddMutex(Mutex{Name: "one", Spin: true})
	queue(m, all, 8)
	queue(m, one, 8)
	walked := int64(float64(p.FutexHold) * (1 + 8*p.FutexGrowth))
	assert.Equal(t, walked, holdOf(m, fxWaitMutex, all))
	assert.Equal(t, walked, holdOf(m, fxWakeMutex, one))
	assert.Equal(t, walked, holdOf(m, fxWakeMutex, all), "the whole queue once, not once more for the wake-all")
}

// spinMachine is a machine of 8 cores whose threads 1..k spin on mutex mi,
// each on its own core (thread 0 is the one that writes the word, on core 0).
func spinMachine(t *testing.T, p CostProfile, k int) (*Machine, *Mutex) {
	t.Helper()
	m, err := New(Config{CPUs: 8, Costs: p, SpinLoops: DefaultSpinLoops})
	require.NoError(t, err)
	mi := m.AddMutex(Mutex{Name: "hot", Spin: true})
	for range k + 1 {
		require.NoError(t, m.AddThread([]Op{lock(mi), cpu(us), unlock(mi)}, prio.Normal))
	}
	mu := &m.sy.mutexes[mi]
	mu.wordCPU = 1
	for i := 1; i <= k; i++ {
		m.threads[i].state, m.threads[i].core = stRunning, int32(i)
		mu.spinners = append(mu.spinners, int32(i))
	}
	return m, mu
}

func TestContendedWordWaitsForTheSpinnersReadsInFlight(t *testing.T) {
	p := OldKernel()
	tr := int64(p.LineTransfer)
	m, mu := spinMachine(t, p, 0)
	assert.Equal(t, tr, m.sy.contended(mu, 0), "no spinner: one transfer")
	m, mu = spinMachine(t, p, 5)
	// mutex_spin_wait reads the word once per round: 5 spinners × 100 ns / 500 ns
	assert.Equal(t, tr+int64(5*float64(tr)*float64(tr)/float64(p.SpinRound)), m.sy.contended(mu, 0))
	p.SpinRound = 50 // rounds shorter than a transfer: every spinner has a read in flight
	m, mu = spinMachine(t, p, 5)
	assert.Equal(t, 6*tr, m.sy.contended(mu, 0))
}

func TestBroadcastChainWakesWaitersOneAfterAnother(t *testing.T) {
	for _, chain := range []bool{false, true} {
		m, err := New(Config{CPUs: 8, BroadcastChain: chain, SpinLoops: DefaultSpinLoops})
		require.NoError(t, err)
		mi := m.AddMutex(Mutex{Name: "kernel_mutex", Spin: true, WakeAll: true})
		for range 4 {
			require.NoError(t, m.AddThread([]Op{lock(mi), cpu(us), unlock(mi)}, prio.Normal))
		}
		mu := &m.sy.mutexes[mi]
		for i := range 4 {
			m.threads[i].state, m.threads[i].sy.mx = stBlocked, mxWaiting
			mu.waiters = append(mu.waiters, int32(i))
		}
		woken := func() (n int) {
			for i := range 4 {
				if m.threads[i].state != stBlocked {
					n++
				}
			}
			return n
		}
		m.sy.wakeWaiters(mu)
		if !chain {
			assert.Equal(t, 4, woken(), "Linux: one futex wake makes every waiter runnable")
			continue
		}
		assert.Equal(t, 1, woken(), "Solaris: cond_broadcast moved them to os_mutex's queue; one is unparked")
		assert.Equal(t, []int32{1, 2, 3}, mu.chain)
		for want := 2; want <= 4; want++ {
			m.sy.passChain(mu)
			assert.Equal(t, want, woken(), "each woken waiter unparks the next")
		}
		assert.Empty(t, mu.chain)
	}
}

func TestWokenChainMemberPassesTheWakeOnBeforeItRetries(t *testing.T) {
	m, err := New(Config{CPUs: 2, BroadcastChain: true, SpinLoops: DefaultSpinLoops})
	require.NoError(t, err)
	mi := m.AddMutex(Mutex{Name: "kernel_mutex", Spin: true, WakeAll: true})
	require.NoError(t, m.AddThread([]Op{lock(mi), cpu(us), unlock(mi)}, prio.Normal))
	mu := &m.sy.mutexes[mi]
	mu.chain = []int32{7}
	th := &m.threads[0]
	th.state, th.core, th.sy.mx, th.sy.chain = stRunning, 0, mxWaiting, true
	assert.False(t, m.sy.lock(th, 0, mi), "it stops in the wake call")
	assert.Equal(t, mxPassing, th.sy.mx)
	assert.Equal(t, fxWakeChain, th.sy.sys.op)
	assert.False(t, th.sy.chain, "it passes the wake once")
}

func TestLinesAndSocketsOutOfRangeAreErrors(t *testing.T) {
	_, err := New(Config{CPUs: 4, Sockets: 5})
	require.ErrorIs(t, err, ErrInvalidConfig)
	assert.Contains(t, err.Error(), "Sockets = 5, want 0..CPUs (4)")
	// 3 cpus on 2 sockets were split 2 + 1, not in the equal runs the doc
	// promises
	_, err = New(Config{CPUs: 3, Sockets: 2})
	require.ErrorIs(t, err, ErrInvalidConfig)
	assert.Contains(t, err.Error(), "Sockets = 2, want a divisor of CPUs (3)")

	m, err := New(Config{CPUs: 4})
	require.NoError(t, err)
	mu := m.AddMutex(Mutex{Name: "wide", Lines: 65})
	err = m.AddThread([]Op{lock(mu), cpu(us), unlock(mu)}, prio.Normal)
	require.ErrorIs(t, err, ErrInvalidConfig)
	assert.Contains(t, err.Error(), `mutex "wide" Lines = 65, want 0..64`)
}
