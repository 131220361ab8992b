package sim

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// usesOf reads off a program what Workload.Uses declares.
func usesOf(prog []Op) Uses {
	has := func(kinds ...OpKind) bool {
		return slices.ContainsFunc(prog, func(o Op) bool { return slices.Contains(kinds, o.Kind) })
	}
	u := Uses{
		Gate:       has(OpGateEnter),
		AIO:        has(OpPrefetch, OpPrefetchSiblings, OpDirty),
		ReadAhead:  has(OpPrefetch) || slices.ContainsFunc(prog, func(o Op) bool { return o.Kind == OpPrefetchSiblings && o.Arg != siblingResident }),
		Dirties:    has(OpDirty),
		BufferPool: has(OpPrefetchSiblings, OpDirty),
		LogCommit:  has(OpLogCommit),
		RowLocks:   has(OpRowLock),
		Reads:      has(OpRead),
		Writes:     has(OpWrite),
		Fsyncs:     has(OpFsync),
		RoundTrip:  slices.ContainsFunc(prog, waitsForClient),
	}
	for _, o := range prog {
		if o.Kind == OpSleep && o.Arg == SleepThink {
			u.Think = o.Dur
		}
	}
	return u
}

// Every built-in workload declares what its program does: a cell, a my.cnf
// and the command read the declaration, never the program.
func TestWorkloadsDeclareWhatTheirProgramsUse(t *testing.T) {
	for _, name := range WorkloadNames() {
		w, err := LookupWorkload(name)
		require.NoError(t, err)
		m, err := NewMachine(MachineConfig{CPUs: 1})
		require.NoError(t, err)
		assert.Equal(t, usesOf(w.Setup(m)), w.Uses, name)
	}
}
