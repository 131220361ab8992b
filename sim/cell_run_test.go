package sim

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Under TS with priorities on, no connection starves: four oltp_read_only
// connections on one core each complete a fair share of the queries over
// 2.8 s. A priority change that renewed the caller's quantum
// (ts_change_priority) without ts_update's per-level ts_maxwait and ts_lwait
// of the default ts_dptbl let two connections that never use up a quantum
// hold level 59 while two others, enqueued at 51 and 52 in the first
// milliseconds, were never run again: units per connection 1, 36,594,
// 36,575 and 0 (seed 3).
func TestTSWithPrioritiesStarvesNoConnection(t *testing.T) {
	c := Cell{Workload: "oltp_read_only", Threads: 4,
		Machine: MachineConfig{CPUs: 1, Scheduler: TS, Priorities: true, Costs: OldKernel(), Seed: 3}}
	b, err := c.build()
	require.NoError(t, err)
	m := b.m
	m.Run(0, 2800*time.Millisecond)
	require.Equal(t, 4, m.Threads(), "one server thread a connection, nothing else")
	var units []uint64
	var total uint64
	for i := range m.Threads() {
		units = append(units, m.ThreadUnits(i))
		total += m.ThreadUnits(i)
	}
	for i, u := range units {
		assert.Greater(t, u, total/4/2, "connection %d's share of %d queries: %v", i, total, units)
	}
}

func TestSameSeedSameResult(t *testing.T) {
	run := func(seed uint64) Result {
		r, err := Cell{Workload: "oltp_read_write", Threads: 24, Machine: MachineConfig{CPUs: 8, Scheduler: TS,
			Priorities: true, SpinLoops: DefaultSpinLoops, Seed: seed}, Measure: 20 * time.Millisecond,
			Device: &DeviceConfig{Units: 1, Read: time.Millisecond, Write: 200 * time.Microsecond, Fsync: 200 * time.Microsecond}}.Run(t.Context())
		require.NoError(t, err)
		return r
	}
	assert.Equal(t, run(7), run(7))
	assert.NotEqual(t, run(7).Units, run(8).Units)
}

func TestBadConfigIsAnError(t *testing.T) {
	tests := []struct {
		name string
		cell Cell
		want string
	}{
		{"no cores", Cell{Workload: "connect", Threads: 1, Machine: MachineConfig{CPUs: 0}}, "CPUs = 0, want 1..1024"},
		{"too many cores", Cell{Workload: "connect", Threads: 1, Machine: MachineConfig{CPUs: 2000}}, "CPUs = 2000"},
		{"negative spin loops", Cell{Workload: "connect", Threads: 1, Machine: MachineConfig{CPUs: 1, SpinLoops: -1}}, "SpinLoops = -1"},
		{"no threads", Cell{Workload: "connect", Threads: 0, Machine: MachineConfig{CPUs: 1}}, "Threads = 0"},
		{"unknown workload", Cell{Workload: "tpcc", Threads: 1, Machine: MachineConfig{CPUs: 1}}, `workload "tpcc"`},
		{"bad profile", Cell{Workload: "connect", Threads: 1, Machine: MachineConfig{CPUs: 1,
			Costs: CostProfile{Name: "x", IOService: 0, Syscall: time.Microsecond}}}, "io_service = 0s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.cell.Run(t.Context())
			require.ErrorIs(t, err, ErrInvalidConfig)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

// BenchmarkMachine measures a whole simulated server: events/s of the engine
// with the scheduler, mutexes and futex model in the loop.
// BenchmarkMachine measures the simulator's speed in events per second of
// wall time, at 64 threads and at 1,024, where the run queue is long (the
// validate field case of the 1,024-thread collapse).
func BenchmarkMachine(b *testing.B) {
	for _, wl := range []string{"oltp_read_only", "connect"} {
		for _, threads := range []int{64, 1024} {
			b.Run(fmt.Sprintf("workload=%s/threads=%d", wl, threads), func(b *testing.B) {
				var events uint64
				for i := 0; i < b.N; i++ {
					r, err := Cell{Workload: wl, Threads: threads, Machine: MachineConfig{CPUs: 16, Scheduler: CFS,
						SpinLoops: DefaultSpinLoops, Seed: uint64(i)}, Warmup: time.Millisecond, Measure: 10 * time.Millisecond}.Run(b.Context())
					if err != nil {
						b.Fatal(err)
					}
					events += r.Events
				}
				b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
			})
		}
	}
}

// TestTheWindowsCPUIsWhatRanInIt: a burst was charged when it ended, so one
// that began in the warm-up counted whole in the window and one still running
// at the window's end counted not at all: a saturated machine's busy time
// came out above its capacity (Utilisation above 1, against its 0..1), and
// two windows back to back did not add up to the one they make.
func TestTheWindowsCPUIsWhatRanInIt(t *testing.T) {
	for _, c := range []Cell{
		{Workload: "row_scan_sharded", Threads: 64, Machine: MachineConfig{CPUs: 16, Seed: 5}},
		{Workload: "mutex_wake_all", Threads: 64, Machine: MachineConfig{CPUs: 3, Scheduler: TS, Seed: 5}},
		{Workload: "oltp_insert_auto_inc", Threads: 7, Machine: MachineConfig{CPUs: 1, Seed: 5}, Client: &ClientConfig{Event: 5 * time.Microsecond}},
	} {
		whole, err := c.build()
		require.NoError(t, err)
		r := whole.m.Run(2*time.Millisecond, 6*time.Millisecond)
		assert.LessOrEqual(t, r.Busy(), r.Capacity, c.Workload)
		assert.LessOrEqual(t, r.Utilisation(), 1.0, c.Workload)

		split, err := c.build()
		require.NoError(t, err)
		a := split.m.Run(2*time.Millisecond, 3*time.Millisecond)
		b := split.m.Run(0, 3*time.Millisecond)
		for i := range r.CPU {
			assert.Equal(t, r.CPU[i], a.CPU[i]+b.CPU[i], "%s: category %d over 6 ms, and over two windows of 3 ms", c.Workload, i)
		}
	}
}
