package machine

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/innosim/innosim/prio"
)

// share runs half the threads at hint hi and half at lo, each looping 100 µs of
// CPU and a 20 µs sleep, and returns units(hi)/units(lo).
func share(t *testing.T, s Scheduler, cpus, threads int, hi, lo prio.Hint) float64 {
	t.Helper()
	m, err := New(Config{CPUs: cpus, Scheduler: s, Seed: 3})
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
	m, err := New(Config{CPUs: 1, Scheduler: TS, Seed: 1})
	require.NoError(t, err)
	require.NoError(t, m.AddThread([]Op{cpu(time.Second)}, prio.Normal))
	m.e.Run(int64(10 * time.Millisecond))
	assert.Equal(t, 50, m.threads[0].cpupri, "its start is a return from sleep: raised to ts_slpret")
	m.e.Run(int64(25 * time.Millisecond))
	assert.Equal(t, 40, m.threads[0].cpupri, "one 20 ms quantum used: down 10 (ts_tqexp)")
	m.e.Run(int64(2 * time.Second))
	assert.Equal(t, 0, m.threads[0].cpupri, "a CPU-bound thread sinks to the bottom")
}

func TestMutexCountersBalance(t *testing.T) {
	m, err := New(Config{CPUs: 4, Scheduler: CFS, SpinLoops: DefaultSpinLoops, Seed: 2})
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
		if th := &m.threads[i]; th.pc == 3 && th.sy.mx == mxWaking && th.sy.sys.op == fxNone {
			held++ // released, its wake done, preempted at the call's return before done
		}
	}
	assert.Equal(t, m.units+held, got.Acquisitions, "every acquisition is released and counted once")
	assert.NotZero(t, got.SpinAcquired, "16 threads on 4 cores contend")
	assert.LessOrEqual(t, got.SpinAcquired, got.Acquisitions)
}

func TestAddThreadRejectsAProgramThatTakesNoTime(t *testing.T) {
	m, err := New(Config{CPUs: 1})
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

// An op that a mechanism runs (an AIO handler's loop, a device's read, a
// row lock, a socket's send) is refused on a machine without that mechanism,
// naming what it wants, rather than doing nothing or panicking when it runs.
func TestAddThreadRejectsAnOpWithoutItsMechanism(t *testing.T) {
	m, err := New(Config{CPUs: 1})
	require.NoError(t, err)
	for _, tt := range []struct {
		op   Op
		want string
	}{
		{Op{Kind: OpAIOHandler}, "want the array SetAIO installed"},
		{Op{Kind: OpRead}, "want a device installed by SetDevice"},
		{Op{Kind: OpPickRow}, "want a table installed by SetRowTable"},
		{Op{Kind: OpLogCommit}, "want the log installed by SetLog"},
		{Op{Kind: OpSockSend}, "want the thread added by AddConnection"},
		{Op{Kind: OpPageCleaner}, "want the cleaner of an AIO array"},
	} {
		err := m.AddThread([]Op{tt.op, cpu(us)}, prio.Normal)
		require.ErrorIs(t, err, ErrInvalidConfig, "op %d", tt.op.Kind)
		assert.Contains(t, err.Error(), tt.want)
	}
	assert.NoError(t, m.AddThread([]Op{{Kind: OpGateEnter}, cpu(us)}, prio.Normal), "without a gate, its ops do nothing")
}

// TestMachineRunAgainGoesOn pins that a second Run simulates its own warm-up
// and measurement after the first (it ran to the same absolute times, found
// the clock already there, and measured 0 units over a measure it reported).
func TestMachineRunAgainGoesOn(t *testing.T) {
	m, err := New(Config{CPUs: 2, Seed: 1})
	require.NoError(t, err)
	require.NoError(t, m.AddThread([]Op{cpu(100 * us), done(1)}, prio.Normal))
	first := m.Run(time.Millisecond, 10*time.Millisecond)
	second := m.Run(time.Millisecond, 10*time.Millisecond)
	require.Positive(t, first.Units)
	assert.InDelta(t, float64(first.Units), float64(second.Units), float64(first.Units)/5, "the second Run measures 10 ms of the same thread")
	assert.Equal(t, int64(22*time.Millisecond), m.Engine().Now())
}
