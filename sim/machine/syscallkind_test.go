package machine

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/innosim/innosim/prio"
)

// callsPerMs runs one thread on one core that makes system calls of kind k
// with no work of their own, back to back, and returns how many it made in a
// millisecond.
func callsPerMs(t *testing.T, costs CostProfile, k SyscallKind) uint64 {
	t.Helper()
	m, err := New(Config{CPUs: 1, Costs: costs, Seed: 1})
	require.NoError(t, err)
	require.NoError(t, m.AddThread([]Op{{Kind: OpSyscall, Arg: int32(k)}, done(1)}, prio.Normal))
	return m.Run(0, time.Millisecond).Units
}

func TestEachSyscallKindCostsItsOwnFields(t *testing.T) {
	p := OldKernel()
	p.Syscall = 100 * time.Nanosecond
	p.SyscallSocket = 150 * time.Nanosecond
	p.SyscallSetup = 400 * time.Nanosecond
	tests := []struct {
		name string
		kind SyscallKind
		cost time.Duration
	}{
		{"a futex or any call without a kind costs Syscall", SysOther, 100 * time.Nanosecond},
		{"a read or write on an open socket adds SyscallSocket", SysSocket, 250 * time.Nanosecond},
		{"a connection's setup or teardown adds SyscallSetup", SysSetup, 500 * time.Nanosecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.cost, p.SyscallCost(tt.kind))
			// within 1%: the thread's first switch onto the core comes first
			assert.InEpsilon(t, float64(time.Millisecond/tt.cost), float64(callsPerMs(t, p, tt.kind)), 0.01)
		})
	}
}

// A profile without the per-kind fields (a file from before them, or
// OldKernel) charges every kind as it charged every call before: Syscall.
func TestAProfileWithoutPerKindCostsChargesEveryKindAlike(t *testing.T) {
	p, err := ParseProfile(strings.NewReader("syscall = 250ns\n"), "old file")
	require.NoError(t, err)
	want := callsPerMs(t, p, SysOther)
	assert.InEpsilon(t, float64(time.Millisecond/(250*time.Nanosecond)), float64(want), 0.01)
	for _, k := range []SyscallKind{SysSocket, SysSetup} {
		assert.Equal(t, want, callsPerMs(t, p, k), "kind %d", k)
	}
}

func TestParseProfileReadsThePerKindKeys(t *testing.T) {
	p, err := ParseProfile(strings.NewReader("syscall_socket = 150ns\nsyscall_setup = 4us\n"), "f")
	require.NoError(t, err)
	assert.Equal(t, 150*time.Nanosecond, p.SyscallSocket)
	assert.Equal(t, 4*time.Microsecond, p.SyscallSetup)
	assert.Equal(t, OldKernel().SetPriority, p.SetPriority)
	assert.Equal(t, OldKernel().Syscall, p.Syscall, "the keys not given keep OldKernel's")
}

func TestAddThreadRejectsASyscallOfNoKind(t *testing.T) {
	m, err := New(Config{CPUs: 1})
	require.NoError(t, err)
	for _, arg := range []int32{-1, int32(numSyscallKinds)} {
		err := m.AddThread([]Op{{Kind: OpSyscall, Arg: arg, Dur: us}}, prio.Normal)
		require.ErrorIs(t, err, ErrInvalidConfig, "kind %d", arg)
		assert.Contains(t, err.Error(), "syscall kind")
	}
}

// A priority change costs Syscall + SetPriority with priorities on, and
// nothing with them off (--skip-thread-priority: the call is not made).
func TestAPriorityChangeCostsSyscallPlusSetPriority(t *testing.T) {
	p := OldKernel()
	p.Syscall = 100 * time.Nanosecond
	p.SetPriority = 900 * time.Nanosecond
	changesPerMs := func(on bool) uint64 {
		t.Helper()
		m, err := New(Config{CPUs: 1, Costs: p, Priorities: on, Seed: 1})
		require.NoError(t, err)
		// two changes a unit, as a statement's Query and Wait, and 1 µs of work
		require.NoError(t, m.AddThread([]Op{setPrio(int32(prio.Query)), setPrio(int32(prio.Wait)), cpu(us), done(1)}, prio.Normal))
		return m.Run(0, time.Millisecond).Units
	}
	assert.InEpsilon(t, float64(time.Millisecond/(3*time.Microsecond)), float64(changesPerMs(true)), 0.01)
	assert.InEpsilon(t, float64(time.Millisecond/time.Microsecond), float64(changesPerMs(false)), 0.01)
}

func TestParseProfileReadsSetPriority(t *testing.T) {
	p, err := ParseProfile(strings.NewReader("set_priority = 1us\n"), "f")
	require.NoError(t, err)
	assert.Equal(t, time.Microsecond, p.SetPriority)
	_, err = ParseProfile(strings.NewReader("set_priority = 2s\n"), "f")
	require.ErrorIs(t, err, ErrInvalidConfig)
	assert.Contains(t, err.Error(), "set_priority = 2s, want 0s..1s")
}
