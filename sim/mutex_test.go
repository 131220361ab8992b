package sim

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/innosim/innosim/prio"
)

// rowScanRun runs workload w with threads threads on a 4-core machine of
// sockets sockets and profile p, and returns the result and the machine.
func rowScanRun(t *testing.T, w string, threads, sockets int, p CostProfile) (Result, *Machine) {
	t.Helper()
	c := Cell{Workload: w, Threads: threads, Machine: MachineConfig{CPUs: 4, Sockets: sockets, Scheduler: CFS,
		Costs: p, SpinLoops: DefaultSpinLoops, Seed: 5}}
	m, err := c.build()
	require.NoError(t, err)
	return m.Run(5*time.Millisecond, 20*time.Millisecond), m
}

// lineProfile is OldKernel with cache-line transfers of 100 ns on a socket
// and 200 ns across.
func lineProfile() CostProfile {
	p := OldKernel()
	p.LineTransfer, p.LineTransferRemote = 100*time.Nanosecond, 200*time.Nanosecond
	return p
}

func TestLockLinesCostOnlyWhenTheyMoveBetweenCores(t *testing.T) {
	free := OldKernel()
	one, _ := rowScanRun(t, "row_scan_global", 1, 4, lineProfile())
	oneFree, _ := rowScanRun(t, "row_scan_global", 1, 4, free)
	assert.InDelta(t, oneFree.Throughput, one.Throughput, 0.01*oneFree.Throughput,
		"one thread keeps the lines on its core: no transfer")

	four, _ := rowScanRun(t, "row_scan_global", 4, 1, lineProfile())
	fourFree, _ := rowScanRun(t, "row_scan_global", 4, 1, free)
	fourRemote, _ := rowScanRun(t, "row_scan_global", 4, 4, lineProfile())
	assert.Less(t, four.Throughput, 0.8*fourFree.Throughput, "4 cores take the mutex in turn: every hold moves lines")
	assert.Less(t, fourRemote.Throughput, 0.8*four.Throughput, "across sockets each move costs more")
}

func TestRowScanShardedTakesOneShardTwicePerRow(t *testing.T) {
	r, m := rowScanRun(t, "row_scan_sharded", 4, 4, lineProfile())
	require.NotZero(t, r.Units)
	var acq uint64
	for _, mu := range m.Mutexes() {
		acq += mu.Acquisitions
		assert.NotZero(t, mu.Acquisitions, "every shard is used")
	}
	rows := m.units // since the start, as the counters
	assert.InDelta(t, float64(2*rows), float64(acq), 8, "a block fix and a block release per row, each under its shard")
}

func TestFutexWalkByKind(t *testing.T) {
	m, err := NewMachine(MachineConfig{CPUs: 1})
	require.NoError(t, err)
	hot := m.AddMutex(Mutex{Name: "hot", Spin: true, WakeAll: true})
	one := m.AddMutex(Mutex{Name: "one", Spin: true})
	for i := range 8 {
		m.mutexes[hot].waiters = append(m.mutexes[hot].waiters, int32(i))
		m.mutexes[one].waiters = append(m.mutexes[one].waiters, int32(i))
	}
	hold := func(walk float64, op futexOp, mi int32) int64 {
		m.cfg.Costs.FutexWalk = walk
		t := &thread{sys: futexCall{op: op}}
		return m.holdTime(t, &m.buckets[m.mutexes[mi].bucket])
	}
	base := int64(m.cfg.Costs.FutexHold)
	g := m.cfg.Costs.FutexGrowth
	grown := int64(float64(base) * (1 + 7*g)) // 7 waiters woken beyond the first
	tests := []struct {
		name string
		walk float64
		op   futexOp
		mu   int32
		want int64
	}{
		{"by kind, a wait does not walk the queue", 0, fxWaitMutex, hot, base},
		{"by kind, a wake of one stops at the first waiter", 0, fxWakeMutex, one, base},
		{"by kind, a wake of all marks each waiter it wakes", 0, fxWakeMutex, hot, grown},
		{"whole queue, a wait walks every waiter", 1, fxWaitMutex, hot, int64(float64(base) * (1 + 8*g))},
		{"whole queue, a wake of one walks every waiter", 1, fxWakeMutex, one, int64(float64(base) * (1 + 8*g))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, hold(tt.walk, tt.op, tt.mu))
		})
	}
}

func TestLinesAndSocketsOutOfRangeAreErrors(t *testing.T) {
	_, err := NewMachine(MachineConfig{CPUs: 4, Sockets: 5})
	require.ErrorIs(t, err, ErrInvalidConfig)
	assert.Contains(t, err.Error(), "Sockets = 5, want 0..CPUs (4)")

	m, err := NewMachine(MachineConfig{CPUs: 4})
	require.NoError(t, err)
	mu := m.AddMutex(Mutex{Name: "wide", Lines: 65})
	err = m.AddThread([]Op{lock(mu), cpu(us), unlock(mu)}, prio.Normal)
	require.ErrorIs(t, err, ErrInvalidConfig)
	assert.Contains(t, err.Error(), `mutex "wide" Lines = 65, want 0..64`)
}
