package machine

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/innosim/innosim/prio"
)

// rqMachine is a 4-CPU, 2-socket machine with the run-queue lock on
// (RunqueueHold 200 ns, transfers 100/200 ns) and two threads that sleep.
func rqMachine(t *testing.T) *Machine {
	t.Helper()
	p := OldKernel()
	p.RunqueueHold = 200 * time.Nanosecond
	m, err := New(Config{CPUs: 4, Sockets: 2, Costs: p})
	require.NoError(t, err)
	for range 2 {
		require.NoError(t, m.AddThread([]Op{cpu(us), sleep(us)}, prio.Normal))
	}
	return m
}

// Two CPUs taking one run-queue lock at the same instant: the second spins
// for the first's hold, and each pays the lock line's transfer from the core
// that wrote it last (none for the first ever).
func TestRunqueueLockSerialisesItsHolders(t *testing.T) {
	m := rqMachine(t)
	spin, hold := m.rqAcquire(0, 1, 1000)
	assert.Equal(t, [2]int64{0, 200}, [2]int64{spin, hold}, "first taker: no spin, no line to move")
	spin, hold = m.rqAcquire(1, 1, 1000)
	assert.Equal(t, [2]int64{200, 300}, [2]int64{spin, hold}, "second taker on the same socket: spins 200, the line moves 100")
	spin, hold = m.rqAcquire(2, 1, 2000)
	assert.Equal(t, [2]int64{0, 400}, [2]int64{spin, hold}, "a taker on the other socket once it is free: the line moves 200")
}

// try_to_wake_up takes the target CPU's lock only when the waker shares its
// cache (here: its socket); across sockets the wake goes on the wake list.
func TestRunqueueWakeTakesTheLockOnlyWithinASocket(t *testing.T) {
	m := rqMachine(t)
	w := &m.threads[0]
	w.state, w.core = stRunning, 0
	m.cores[0].cur = 0
	m.waker = 0
	assert.Equal(t, int64(-1), m.rqWake(2), "core 2 is on the other socket: wake list, no lock")
	assert.Zero(t, w.rqSpin+w.rqHold)
	assert.Equal(t, m.e.Now()+200, m.rqWake(1), "core 1 shares the socket: the waker enqueues under its lock")
	assert.Equal(t, int64(200), w.rqHold)
	assert.Equal(t, m.e.Now()+400, m.rqWake(1), "a second wake of the same call comes after the first")
	m.waker = -1
	assert.Equal(t, int64(-1), m.rqWake(1), "a wake with no running waker (timer, device) takes no lock here")
}

// With the lock on a woken thread returns to the idle CPU it last ran on
// (select_idle_sibling), not to the lowest-numbered idle one.
func TestRunqueueWakeReturnsToTheLastCPU(t *testing.T) {
	m := rqMachine(t)
	th := &m.threads[1]
	th.last = 3
	m.wake(1)
	assert.Equal(t, int32(3), th.core)
	assert.Equal(t, int32(1), m.cores[3].cur)
}

// Off by default: OldKernel charges no run-queue lock, so a machine's run
// is the same with the field at 0 as before it existed, and no spin is
// counted; on, a herd of wakes spends time on it.
func TestRunqueueLockOffByDefaultOnCostsTime(t *testing.T) {
	run := func(hold time.Duration) Result {
		p := OldKernel()
		p.RunqueueHold = hold
		m, err := New(Config{CPUs: 16, Costs: p, SpinLoops: DefaultSpinLoops, Seed: 5})
		require.NoError(t, err)
		mu := m.AddMutex(Mutex{Name: "m", Spin: true, WakeAll: true})
		for range 24 {
			require.NoError(t, m.AddThread([]Op{cpu(2 * us), lock(mu), cpu(us), unlock(mu), done(1), sleep(5 * us)}, prio.Normal))
		}
		return m.Run(time.Millisecond, 20*time.Millisecond)
	}
	off := run(0)
	assert.Zero(t, off.CPU[CatRunqueueSpin])
	assert.Equal(t, off.FutexSpinShare(), off.RawSpinShare())
	on := run(2 * time.Microsecond)
	assert.NotZero(t, on.CPU[CatRunqueueSpin], "24 threads waking each other on 16 CPUs meet on run-queue locks")
	assert.Greater(t, on.RawSpinShare(), on.FutexSpinShare())
}
