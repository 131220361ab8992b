package machine

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/innosim/innosim/prio"
)

// yieldRun runs threads threads of "lock, hold µs under one InnoDB mutex,
// unlock, 100 µs of work" on a machine of cpus cores under scheduler s (20
// spin rounds of 500 ns: a spinner spins out long before a 100 µs hold
// ends), and returns the mutex.
func yieldRun(t *testing.T, cpus, threads int, s Scheduler) Mutex {
	t.Helper()
	m, err := New(Config{CPUs: cpus, Scheduler: s, Costs: OldKernel(), SpinLoops: 20, Seed: 3})
	require.NoError(t, err)
	mu := m.AddMutex(Mutex{Name: "hot", Spin: true, WakeAll: true})
	prog := []Op{lock(mu), cpu(100 * us), unlock(mu), cpu(100 * us), done(1)}
	for range threads {
		require.NoError(t, m.AddThread(prog, prio.Normal))
	}
	m.Run(0, 200*time.Millisecond)
	return m.Mutexes()[0]
}

func TestSpinnerThatSpunOutGivesItsCoreToTheHolderOfItsLevelUnderTS(t *testing.T) {
	// One core: the holder can only be off it, preempted at its quantum's
	// end, while another thread spins. ts_yield puts the spinner behind it
	// (the same level), so the holder runs on to its release.
	mu := yieldRun(t, 1, 2, TS)
	require.NotZero(t, mu.Yields, "the spinner ran out of rounds")
	assert.Equal(t, mu.Yields, mu.YieldSwitches, "every yield found the holder runnable at its level")
}

func TestYieldGivesWayAsTheSchedulerPicks(t *testing.T) {
	const ms = 1_000_000
	cases := []struct {
		name  string
		s     Scheduler
		other func(y, o *thread) // sets the runnable thread o against the yielder y
		gives bool
	}{
		{"CFS: to a thread behind the yielder", CFS, func(y, o *thread) { o.vr = y.vr - ms }, true},
		{"CFS: to a thread ahead within the wakeup granularity", CFS, func(y, o *thread) { o.vr = y.vr + 3*ms }, true},
		{"CFS: not to a thread ahead by more than the granularity", CFS, func(y, o *thread) { o.vr = y.vr + 5*ms }, false},
		{"TS: to a thread of its level", TS, func(y, o *thread) { o.cpupri = y.cpupri }, true},
		{"TS: to a thread of a higher level", TS, func(y, o *thread) { o.cpupri = y.cpupri + 1 }, true},
		{"TS: not to a thread of a lower level", TS, func(y, o *thread) { o.cpupri = y.cpupri - 1 }, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := New(Config{CPUs: 1, Scheduler: c.s, Costs: OldKernel()})
			require.NoError(t, err)
			for range 2 {
				require.NoError(t, m.AddThread([]Op{cpu(time.Second), done(1)}, prio.Normal))
			}
			m.e.Run(0) // thread 0 on the core, thread 1 runnable
			y, o := &m.threads[0], &m.threads[1]
			require.Equal(t, stRunning, y.state)
			require.Equal(t, stRunnable, o.state)
			c.other(y, o)
			assert.Equal(t, !c.gives, m.yield(y, 0))
			if c.gives {
				assert.Equal(t, int32(1), m.cores[0].cur, "the other thread has the core")
				assert.Equal(t, stRunnable, y.state, "the yielder waits on the run queue")
			} else {
				assert.Equal(t, int32(0), m.cores[0].cur)
			}
		})
	}
	t.Run("nothing else runnable: the call returns", func(t *testing.T) {
		m, err := New(Config{CPUs: 1, Scheduler: CFS, Costs: OldKernel()})
		require.NoError(t, err)
		require.NoError(t, m.AddThread([]Op{cpu(time.Second), done(1)}, prio.Normal))
		m.e.Run(0)
		assert.True(t, m.yield(&m.threads[0], 0))
	})
}

func TestYieldWithNothingElseRunnableReturnsAtOnce(t *testing.T) {
	// As many threads as cores: nr_running is 1 on every core, so
	// sched_yield returns, and every spin-out goes on to its test-and-set.
	mu := yieldRun(t, 4, 4, CFS)
	require.NotZero(t, mu.Yields)
	assert.Zero(t, mu.YieldSwitches)
	assert.LessOrEqual(t, mu.Waits, mu.Yields, "every sleep comes after a yield")
}

func TestNoSpinRoundsStillYieldsBeforeTheWait(t *testing.T) {
	// innodb_sync_spin_loops = 0: mutex_spin_wait's loop does not run, i
	// equals SYNC_SPIN_ROUNDS at once, and os_thread_yield is called.
	m, err := New(Config{CPUs: 2, Scheduler: CFS, Costs: OldKernel(), Seed: 3})
	require.NoError(t, err)
	mu := m.AddMutex(Mutex{Name: "hot", Spin: true, WakeAll: true})
	pt := m.AddMutex(Mutex{Name: "pthread"})
	for _, id := range []int32{mu, pt} {
		prog := []Op{lock(id), cpu(100 * us), unlock(id), cpu(10 * us), done(1)}
		for range 2 {
			require.NoError(t, m.AddThread(prog, prio.Normal))
		}
	}
	m.Run(0, 50*time.Millisecond)
	got := m.Mutexes()
	assert.NotZero(t, got[0].Yields, "an InnoDB mutex yields even with no rounds")
	assert.Zero(t, got[1].Yields, "a pthread mutex goes straight to its futex")
}

// An srw_mutex (NoYield) goes from its spin rounds to the futex wait without
// sched_yield: contended as hard as an InnoDB 5.x mutex that yields, it
// yields never and still serves every thread.
func TestSrwMutexWaitsWithoutYield(t *testing.T) {
	for _, noYield := range []bool{false, true} {
		m, err := New(Config{CPUs: 2, Scheduler: CFS, Costs: OldKernel(), SpinLoops: 20, Seed: 3})
		require.NoError(t, err)
		mi := m.AddMutex(Mutex{Name: "hot", Spin: true, NoYield: noYield})
		prog := []Op{lock(mi), cpu(100 * us), unlock(mi), cpu(100 * us), done(1)}
		for range 4 {
			require.NoError(t, m.AddThread(prog, prio.Normal))
		}
		r := m.Run(0, 200*time.Millisecond)
		mu := m.Mutexes()[0]
		require.NotZero(t, mu.Waits, "NoYield %v: contended", noYield)
		assert.NotZero(t, r.Units, "NoYield %v", noYield)
		if noYield {
			assert.Zero(t, mu.Yields, "srw_mutex: no sched_yield")
		} else {
			assert.NotZero(t, mu.Yields, "mutex_spin_wait yields after its rounds")
		}
	}
}
