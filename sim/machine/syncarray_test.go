package machine

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/innosim/innosim/prio"
)

// arrayRun runs 16 threads on 4 cores over two InnoDB mutexes (3 µs of work,
// then 20 µs under one of them, longer than the 15 µs of spin rounds, and 1 µs
// under the other) on a machine with wait
// array s, and returns the machine and its workload mutexes.
func arrayRun(t *testing.T, s SyncArray) (*Machine, []Mutex) {
	t.Helper()
	m, err := New(Config{CPUs: 4, Scheduler: CFS, SpinLoops: DefaultSpinLoops, SyncArray: s, Seed: 3})
	require.NoError(t, err)
	a := m.AddMutex(Mutex{Name: "kernel_mutex", Spin: true, WakeAll: true})
	b := m.AddMutex(Mutex{Name: "buf_pool", Spin: true, WakeAll: true, Lines: 2})
	for range 16 {
		require.NoError(t, m.AddThread([]Op{cpu(3 * us), lock(a), cpu(20 * us), unlock(a), lock(b), cpu(us), unlock(b), done(1)}, prio.Normal))
	}
	m.Run(0, 20*time.Millisecond)
	return m, []Mutex{m.sy.mutexes[a], m.sy.mutexes[b]}
}

func TestSyncArrayMutexIsTakenAsOftenAsTheSourceTakesIt(t *testing.T) {
	tests := []struct {
		name      string
		array     SyncArray
		perSignal uint64 // acquisitions of the array's mutex per mutex_signal_object
	}{
		{"5.0/5.1: sync_array_object_signalled takes the array's mutex", SyncArray50, 1},
		{"5.5..8.0: the signal count is atomic", SyncArray55, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, mus := arrayRun(t, tt.array)
			arr := m.sy.mutexes[m.sy.arrMu]
			require.Equal(t, "sync_array", arr.Name)
			var want, cells, waits uint64
			for _, mu := range mus {
				assert.LessOrEqual(t, mu.Waits, mu.CellWaits, "%s: a cell wait sleeps at most once", mu.Name)
				// reserve and free per cell, wait_event per wait, and the signal's
				want += 2*mu.Cells + mu.CellWaits + tt.perSignal*mu.Signals
				cells, waits = cells+mu.Cells, waits+mu.CellWaits
			}
			require.NotZero(t, waits, "16 threads on 4 cores sleep on kernel_mutex")
			assert.Less(t, waits, cells, "some retries after the reservation win")
			want -= uint64(len(m.sy.cells)) // reserved cells not freed yet
			// a section in progress at the end may have taken the mutex before
			// its counter moved, or a cell's release may be under way
			inside := uint64(0)
			for i := range m.threads {
				if th := &m.threads[i]; th.sy.aph != apLock || th.sy.amx != mxIdle {
					inside++
				}
			}
			assert.InDelta(t, float64(want), float64(arr.Acquisitions), float64(inside)+1,
				"acquisitions of the array's mutex: 2 per cell, 1 per wait, %d per signal", tt.perSignal)
			assert.NotZero(t, arr.Waits, "a contended run sleeps on the array's own mutex")
			assert.Len(t, m.sy.cells, int(countCellHolders(m)), "every reserved cell belongs to a thread still in its wait")
		})
	}
}

// countCellHolders counts the threads between their cell's reservation and
// its release.
func countCellHolders(m *Machine) uint64 {
	var n uint64
	for i := range m.threads {
		switch th := &m.threads[i]; th.sy.mx {
		case mxCellWaiting, mxWaiting, mxPassing, mxFreeing, mxFreeingWon:
			n++
		case mxReserving:
			if th.sy.aph != apLock {
				n++ // holding the array's mutex: the cell is filled
			}
		}
	}
	return n
}

func TestSyncArrayKeepsCountersBalanced(t *testing.T) {
	for _, s := range []SyncArray{SyncArrayNone, SyncArray50, SyncArray55} {
		m, mus := arrayRun(t, s)
		// a thread past a mutex's release but not yet at done has one acquisition more
		for _, mu := range mus {
			assert.GreaterOrEqual(t, mu.Acquisitions, m.units, "SyncArray %d, %s: every unit took it", s, mu.Name)
			assert.LessOrEqual(t, mu.Acquisitions, m.units+uint64(len(m.threads)), "SyncArray %d, %s: at most once per unit and thread", s, mu.Name)
		}
	}
}

func TestNoSyncArrayAddsNoMutex(t *testing.T) {
	m, mus := arrayRun(t, SyncArrayNone)
	assert.Len(t, m.sy.mutexes, 2)
	assert.Equal(t, int32(-1), m.sy.arrMu)
	for _, mu := range mus {
		assert.Zero(t, mu.Cells+mu.CellWaits, "no array, no cell")
	}
}

func TestSyncArrayOutOfRangeIsAnError(t *testing.T) {
	_, err := New(Config{CPUs: 1, SyncArray: 3})
	require.ErrorIs(t, err, ErrInvalidConfig)
	assert.Contains(t, err.Error(), "SyncArray = 3")
}

// LEMMA 1 of sync0sync.c: a thread asleep on a mutex's event is always
// signalled later, because the waiters flag stays set until a release
// signals. Checked every 10 µs of a contended run, for a release that wakes
// every waiter and for one that wakes one (bug 52806's proposal), which must
// leave the flag set for the waiters it did not wake.
func TestSyncArraySleepersAlwaysHaveTheWaitersFlag(t *testing.T) {
	for _, wakeAll := range []bool{true, false} {
		m, err := New(Config{CPUs: 4, Scheduler: CFS, SpinLoops: DefaultSpinLoops, SyncArray: SyncArray50, Seed: 4})
		require.NoError(t, err)
		a := m.AddMutex(Mutex{Name: "hot", Spin: true, WakeAll: wakeAll})
		for range 16 {
			require.NoError(t, m.AddThread([]Op{cpu(3 * us), lock(a), cpu(20 * us), unlock(a), done(1)}, prio.Normal))
		}
		bad := 0
		for now := int64(0); now < int64(5*time.Millisecond); now += int64(10 * time.Microsecond) {
			m.e.Run(now)
			mu := &m.sy.mutexes[a]
			signalling := false
			for i := range m.threads {
				if th := &m.threads[i]; th.sy.mx == mxWaking && th.sy.sys.op == fxWakeMutex {
					signalling = true
				}
			}
			if len(mu.waiters) > 0 && !mu.flag && !signalling {
				bad++
			}
		}
		assert.Zero(t, bad, "wakeAll %v: instants with a sleeper, no waiters flag and no signal under way", wakeAll)
		assert.NotZero(t, m.sy.mutexes[a].Waits, "wakeAll %v: threads slept", wakeAll)
	}
}
