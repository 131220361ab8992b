package sim

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/innosim/innosim/sim/machine"
)

// rowScanRun runs workload w with threads threads on a 4-core machine of
// sockets sockets and profile p, and returns the result and the machine.
func rowScanRun(t *testing.T, w string, threads, sockets int, p CostProfile) (Result, *machine.Machine) {
	t.Helper()
	c := Cell{Workload: w, Threads: threads, Machine: MachineConfig{CPUs: 4, Sockets: sockets, Scheduler: CFS,
		Costs: p, SpinLoops: DefaultSpinLoops, Seed: 5}}
	b, err := c.build()
	require.NoError(t, err)
	return b.m.Run(5*time.Millisecond, 20*time.Millisecond), b.m
}

// lineProfile is OldKernel, whose cache-line transfers are 100 ns on a
// socket and 200 ns across.
func lineProfile() CostProfile {
	p := OldKernel()
	p.LineTransfer, p.LineTransferRemote = 100*time.Nanosecond, 200*time.Nanosecond
	return p
}

func TestLockLinesCostOnlyWhenTheyMoveBetweenCores(t *testing.T) {
	free := OldKernel()
	free.LineTransfer, free.LineTransferRemote = 0, 0
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
	rows := m.Units() // since the start, as the counters
	assert.InDelta(t, float64(2*rows), float64(acq), 8, "a block fix and a block release per row, each under its shard")
}

// Bug 15815's scan (4 threads on the report's four single-core sockets)
// never sleeps: each hold of buf_pool->mutex is a few hundred ns, so a
// spinner wins the mutex within its 30 rounds every time and the wait array
// is never reached. So the array does not move the case's 4/1 ratio; what
// would is in docs/decisions/global-wait-array.md.
func TestRowScanSpinnersNeverReachTheWaitArray(t *testing.T) {
	run := func(s SyncArray) (Result, *machine.Machine) {
		c := Cell{Workload: "row_scan_global", Threads: 4, Machine: MachineConfig{CPUs: 4, Sockets: 4, Scheduler: CFS,
			Costs: lineProfile(), SpinLoops: DefaultSpinLoops, SyncArray: s, Seed: 5}}
		b, err := c.build()
		require.NoError(t, err)
		return b.m.Run(5*time.Millisecond, 20*time.Millisecond), b.m
	}
	with, m := run(SyncArray50)
	without, _ := run(SyncArrayNone)
	mutexes := m.Mutexes()
	array, buf := mutexes[0], mutexes[1]
	require.Equal(t, "sync_array", array.Name)
	require.Equal(t, "buf_pool", buf.Name)
	assert.NotZero(t, buf.SpinAcquired, "4 threads contend")
	assert.Zero(t, buf.Cells, "no spinner runs out of rounds")
	assert.Zero(t, array.Acquisitions)
	assert.Equal(t, without.Units, with.Units, "the array is never reached, so the run is the same")
}
