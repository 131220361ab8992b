package machine

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/innosim/innosim/prio"
)

// TestAWokenThreadNeverTakesItsWakersCore runs a pthread mutex (no spin, a
// release wakes one) under TS, where a thread back from a sleep gets a better
// priority (ts_slpret) than its waker, and checks after every event that each
// running thread is the one its core runs and that the cores never run more
// than their capacity. A woken thread used to preempt its waker in the
// middle of the waker's FUTEX_WAKE, and the waker then went on running on the
// core it had lost: two threads on one core, busy time up to 3× capacity.
func TestAWokenThreadNeverTakesItsWakersCore(t *testing.T) {
	m, err := New(Config{CPUs: 4, Scheduler: TS, Costs: OldKernel(), SpinLoops: DefaultSpinLoops, Seed: 3})
	require.NoError(t, err)
	mu := m.AddMutex(Mutex{Name: "LOCK_open"})
	prog := []Op{sleep(5 * us), cpu(40 * us), lock(mu), cpu(1 * us), unlock(mu), cpu(20 * us), lock(mu), cpu(1 * us), unlock(mu), done(1)}
	for range 32 {
		require.NoError(t, m.AddThread(prog, prio.Normal))
	}
	for m.e.Now() < int64(100*time.Millisecond) && m.e.Step() {
		for i := range m.threads {
			th := &m.threads[i]
			if th.state == stRunning {
				require.GreaterOrEqual(t, th.core, int32(0), "running thread %d has no core at %d ns", i, m.e.Now())
				require.Equal(t, int32(i), m.cores[th.core].cur, "running thread %d is not its core's at %d ns", i, m.e.Now())
			}
		}
	}
	r := m.Run(100*time.Millisecond, 20*time.Millisecond)
	require.NotZero(t, r.Units)
	require.LessOrEqual(t, r.Busy(), r.Capacity, "the cores ran more than their capacity")
}
