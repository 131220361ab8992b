package workload

import (
	"slices"
	"testing"

	"github.com/innosim/innosim/mycnf"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/innosim/innosim/sim/machine"
	"github.com/innosim/innosim/sim/rowlock"
)

// usesOf reads off a program what Workload.Uses declares.
func usesOf(prog []machine.Op) Uses {
	has := func(kinds ...machine.OpKind) bool {
		return slices.ContainsFunc(prog, func(o machine.Op) bool { return slices.Contains(kinds, o.Kind) })
	}
	u := Uses{
		Gate: has(machine.OpGateEnter),
		AIO:  has(machine.OpPrefetch, machine.OpPrefetchSiblings, machine.OpDirty),
		ReadAhead: has(machine.OpPrefetch) || slices.ContainsFunc(prog, func(o machine.Op) bool {
			return o.Kind == machine.OpPrefetchSiblings && o.Arg != machine.SiblingResident
		}),
		Dirties:    has(machine.OpDirty),
		BufferPool: has(machine.OpPrefetchSiblings, machine.OpDirty),
		LogCommit:  has(machine.OpLogCommit),
		RowLocks:   has(machine.OpRowLock),
		Reads:      has(machine.OpRead),
		Writes:     has(machine.OpWrite),
		Fsyncs:     has(machine.OpFsync),
		RoundTrip: slices.ContainsFunc(prog, func(o machine.Op) bool {
			return o.Kind == machine.OpSleep && (o.Arg == machine.SleepClient || o.Arg == machine.SleepLast)
		}),
	}
	for _, o := range prog {
		if o.Kind == machine.OpSleep && o.Arg == machine.SleepThink {
			u.Think = o.Dur
		}
	}
	return u
}

// Every built-in workload declares what its program does: a cell, a my.cnf
// and the command read the declaration, never the program.
func TestWorkloadsDeclareWhatTheirProgramsUse(t *testing.T) {
	for _, name := range Names() {
		w, err := Lookup(name)
		require.NoError(t, err)
		for _, srv := range []mycnf.Server{{}, {Product: mycnf.MariaDB, Version: "5.5"}} {
			m, err := machine.New(machine.Config{CPUs: 1})
			require.NoError(t, err)
			assert.Equal(t, usesOf(w.Setup(testEnv{m: m, srv: srv})), w.Uses, "%s on %v", name, srv)
		}
		assert.Equal(t, w.Uses.RowLocks, w.Rows != rowlock.Table{}, "%s: a table for its row locks, and only then", name)
	}
}

func TestStudyARowsAreAValidTable(t *testing.T) {
	require.NoError(t, studyARows.Validate())
}
