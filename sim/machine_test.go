package sim

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/innosim/innosim/aio"
	"github.com/innosim/innosim/prio"
)

// share runs half the threads at hint hi and half at lo, each looping 100 µs of
// CPU and a 20 µs sleep, and returns units(hi)/units(lo).
func share(t *testing.T, s Scheduler, cpus, threads int, hi, lo prio.Hint) float64 {
	t.Helper()
	m, err := NewMachine(MachineConfig{CPUs: cpus, Scheduler: s, Seed: 3})
	require.NoError(t, err)
	prog := []Op{cpu(100 * us), done(1), sleep(20 * us)}
	for i := range threads {
		h := lo
		if i%2 == 0 {
			h = hi
		}
		require.NoError(t, m.AddThread(prog, h))
	}
	m.Run(0, 2*time.Second)
	var uh, ul uint64
	for i := range threads {
		if i%2 == 0 {
			uh += m.ThreadUnits(i)
		} else {
			ul += m.ThreadUnits(i)
		}
	}
	require.NotZero(t, uh)
	if ul == 0 {
		return 1e9 // the low threads never ran
	}
	return float64(uh) / float64(ul)
}

func TestPrioritiesMatterOnlyWhenThreadsOutnumberCores(t *testing.T) {
	tests := []struct {
		name    string
		sched   Scheduler
		threads int
		hi, lo  prio.Hint
		min     float64
		max     float64
	}{
		{"cfs, threads = cores: nice is moot", CFS, 4, prio.High, prio.Low, 0.97, 1.03},
		{"cfs, 4 threads a core: the higher weight gets more CPU", CFS, 16, prio.High, prio.Low, 1.5, 1e9},
		{"ts, threads = cores: the level is moot", TS, 4, prio.Query, prio.Wait, 0.97, 1.03},
		{"ts, 4 threads a core: the higher level runs first", TS, 16, prio.Query, prio.Wait, 1.5, 1e9},
		{"cfs, equal hints share equally", CFS, 16, prio.Normal, prio.Normal, 0.9, 1.1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := share(t, tt.sched, 4, tt.threads, tt.hi, tt.lo)
			assert.GreaterOrEqual(t, r, tt.min)
			assert.LessOrEqual(t, r, tt.max)
		})
	}
}

func TestTSQuantumExpiryLowersTheLevel(t *testing.T) {
	m, err := NewMachine(MachineConfig{CPUs: 1, Scheduler: TS, Seed: 1})
	require.NoError(t, err)
	require.NoError(t, m.AddThread([]Op{cpu(time.Second)}, prio.Normal))
	m.e.Run(int64(10 * time.Millisecond))
	assert.Equal(t, 50, m.threads[0].cpupri, "its start is a return from sleep: raised to ts_slpret")
	m.e.Run(int64(25 * time.Millisecond))
	assert.Equal(t, 40, m.threads[0].cpupri, "one 20 ms quantum used: down 10 (ts_tqexp)")
	m.e.Run(int64(2 * time.Second))
	assert.Equal(t, 0, m.threads[0].cpupri, "a CPU-bound thread sinks to the bottom")
}

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
	m, err := c.build()
	require.NoError(t, err)
	m.Run(0, 2800*time.Millisecond)
	require.Len(t, m.threads, 4, "one server thread a connection, nothing else")
	var units []uint64
	var total uint64
	for i := range m.threads {
		units = append(units, m.threads[i].units)
		total += m.threads[i].units
	}
	for i, u := range units {
		assert.Greater(t, u, total/4/2, "connection %d's share of %d queries: %v", i, total, units)
	}
}

// herd runs n threads that each loop: sleep, take one pthread mutex for 1 µs,
// release it; it returns the futex CPU (spin + hold) per acquisition, in ns.
func herd(t *testing.T, n int) float64 {
	t.Helper()
	m, err := NewMachine(MachineConfig{CPUs: 64, Scheduler: CFS, Seed: 1})
	require.NoError(t, err)
	mu := m.AddMutex(Mutex{Name: "m"})
	for range n {
		require.NoError(t, m.AddThread([]Op{sleep(5 * us), lock(mu), cpu(1 * us), unlock(mu), done(1)}, prio.Normal))
	}
	r := m.Run(5*time.Millisecond, 50*time.Millisecond)
	require.NotZero(t, r.Units)
	return float64(r.CPU[CatFutexSpin]+r.CPU[CatFutexHold]) / float64(r.Units)
}

func TestFutexHerdCostsMoreThanItsParts(t *testing.T) {
	few, many := herd(t, 2), herd(t, 32)
	assert.Greater(t, many, 3*few, "futex CPU per acquisition: 2 threads %.0f ns, 32 threads %.0f ns", few, many)
}

func TestMutexCountersBalance(t *testing.T) {
	m, err := NewMachine(MachineConfig{CPUs: 4, Scheduler: CFS, SpinLoops: DefaultSpinLoops, Seed: 2})
	require.NoError(t, err)
	mu := m.AddMutex(Mutex{Name: "kernel_mutex", Spin: true, WakeAll: true})
	for range 16 {
		require.NoError(t, m.AddThread([]Op{cpu(3 * us), lock(mu), cpu(2 * us), unlock(mu), done(1)}, prio.Normal))
	}
	m.Run(0, 20*time.Millisecond)
	got := m.Mutexes()[0]
	held := uint64(0)
	if got.holder >= 0 {
		held = 1
	}
	for i := range m.threads {
		if th := &m.threads[i]; th.pc == 3 && th.mx == mxWaking && th.sys.op == fxNone {
			held++ // released, its wake done, preempted at the call's return before done
		}
	}
	assert.Equal(t, m.units+held, got.Acquisitions, "every acquisition is released and counted once")
	assert.NotZero(t, got.SpinAcquired, "16 threads on 4 cores contend")
	assert.LessOrEqual(t, got.SpinAcquired, got.Acquisitions)
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

func TestAddThreadRejectsAProgramThatTakesNoTime(t *testing.T) {
	m, err := NewMachine(MachineConfig{CPUs: 1})
	require.NoError(t, err)
	assert.ErrorIs(t, m.AddThread([]Op{done(1)}, prio.Normal), ErrInvalidConfig)
	assert.ErrorIs(t, m.AddThread([]Op{lock(3), cpu(us)}, prio.Normal), ErrInvalidConfig, "no mutex 3")
}

func TestParseProfile(t *testing.T) {
	tests := []struct {
		name, text string
		check      func(t *testing.T, p CostProfile, err error)
	}{
		{"overrides keep the rest", "# mine\nname = lab\nsyscall = 1us\ncontext_switch=4us\n", func(t *testing.T, p CostProfile, err error) {
			require.NoError(t, err)
			assert.Equal(t, "lab", p.Name)
			assert.Equal(t, time.Microsecond, p.Syscall)
			assert.Equal(t, 4*time.Microsecond, p.ContextSwitch)
			assert.Equal(t, OldKernel().FutexHold, p.FutexHold)
		}},
		{"unknown key names the line", "syscal = 1us\n", func(t *testing.T, _ CostProfile, err error) {
			require.ErrorIs(t, err, ErrInvalidConfig)
			assert.Contains(t, err.Error(), "f:1: unknown key")
		}},
		{"bad duration", "\nsyscall = fast\n", func(t *testing.T, _ CostProfile, err error) {
			require.ErrorIs(t, err, ErrInvalidConfig)
			assert.Contains(t, err.Error(), "f:2")
		}},
		{"out of range", "futex_growth = 11\n", func(t *testing.T, _ CostProfile, err error) {
			require.ErrorIs(t, err, ErrInvalidConfig)
			assert.Contains(t, err.Error(), "want 0..10")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := ParseProfile(strings.NewReader(tt.text), "f")
			tt.check(t, p, err)
		})
	}
}

func TestOldAndNewKernelDifferOnlyInSyscallsAndContextSwitch(t *testing.T) {
	o, n := OldKernel(), NewKernel()
	assert.Greater(t, n.Syscall, o.Syscall)
	assert.Greater(t, n.SyscallSetup, o.SyscallSetup)
	assert.Greater(t, n.ContextSwitch, o.ContextSwitch)
	n.Syscall, n.SyscallSetup, n.ContextSwitch, n.Name = o.Syscall, o.SyscallSetup, o.ContextSwitch, o.Name
	assert.Equal(t, o, n)
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

// An OpAIOHandler names a segment of the installed array; without one, or
// beyond it, AddThread refuses it rather than the run indexing past the end.
func TestAddThreadRejectsAnAIOHandlerWithoutItsSegment(t *testing.T) {
	m, err := NewMachine(MachineConfig{CPUs: 1})
	require.NoError(t, err)
	assert.ErrorIs(t, m.AddThread([]Op{{Kind: OpAIOHandler}}, prio.Normal), ErrInvalidConfig, "no array")
	require.NoError(t, m.SetAIO(aio.DefaultConfig(), 1000))
	err = m.AddThread([]Op{{Kind: OpAIOHandler, Arg: 1000}}, prio.Normal)
	assert.ErrorIs(t, err, ErrInvalidConfig)
	assert.Contains(t, err.Error(), "segment 1000")
}

// TestMachineRunAgainGoesOn pins that a second Run simulates its own warm-up
// and measurement after the first (it ran to the same absolute times, found
// the clock already there, and measured 0 units over a measure it reported).
func TestMachineRunAgainGoesOn(t *testing.T) {
	m, err := NewMachine(MachineConfig{CPUs: 2, Seed: 1})
	require.NoError(t, err)
	require.NoError(t, m.AddThread([]Op{cpu(100 * us), done(1)}, prio.Normal))
	first := m.Run(time.Millisecond, 10*time.Millisecond)
	second := m.Run(time.Millisecond, 10*time.Millisecond)
	require.Positive(t, first.Units)
	assert.InDelta(t, float64(first.Units), float64(second.Units), float64(first.Units)/5, "the second Run measures 10 ms of the same thread")
	assert.Equal(t, int64(22*time.Millisecond), m.Engine().Now())
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
		r := whole.Run(2*time.Millisecond, 6*time.Millisecond)
		assert.LessOrEqual(t, r.Busy(), r.Capacity, c.Workload)
		assert.LessOrEqual(t, r.Utilisation(), 1.0, c.Workload)

		split, err := c.build()
		require.NoError(t, err)
		a := split.Run(2*time.Millisecond, 3*time.Millisecond)
		b := split.Run(0, 3*time.Millisecond)
		for i := range r.CPU {
			assert.Equal(t, r.CPU[i], a.CPU[i]+b.CPU[i], "%s: category %d over 6 ms, and over two windows of 3 ms", c.Workload, i)
		}
	}
}
