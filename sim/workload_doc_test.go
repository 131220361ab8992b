package sim

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBulkInsertDocsStateTheirPrograms: the two bulk inserts' docs give the
// rows per client round trip and the CPU per row their programs run.
// oltp_insert's said 20 µs a row and both said a round trip per 100 rows,
// where the programs (study D's calibration) run 40 µs a row and 10 rows a
// round trip.
func TestBulkInsertDocsStateTheirPrograms(t *testing.T) {
	for _, name := range []string{"oltp_insert", "bulk_insert"} {
		w, err := LookupWorkload(name)
		require.NoError(t, err)
		m, err := NewMachine(MachineConfig{CPUs: 1})
		require.NoError(t, err)
		rows, sleeps := 0, 0
		var cpu time.Duration
		for _, op := range w.Setup(m) {
			switch op.Kind {
			case OpDone:
				rows += int(op.Arg)
			case OpSleep:
				sleeps++
			case OpCPU:
				cpu += op.Dur
			}
		}
		require.Equal(t, 1, sleeps, name)
		assert.Contains(t, w.Doc, fmt.Sprintf("per %d rows", rows), name)
		assert.Contains(t, w.Doc, fmt.Sprintf("%d µs of CPU", cpu/time.Duration(rows)/time.Microsecond), name)
	}
}

// TestConnectDocStatesItsProgram: connect's doc counts its program's system
// calls, sleeps and user CPU. It said 4 sleeps and 25 µs, where the program
// (and study C's account of it) has 5 and 26 µs.
func TestConnectDocStatesItsProgram(t *testing.T) {
	w, err := LookupWorkload("connect")
	require.NoError(t, err)
	m, err := NewMachine(MachineConfig{CPUs: 1})
	require.NoError(t, err)
	calls, sleeps := 0, 0
	var cpu time.Duration
	for _, op := range w.Setup(m) {
		switch op.Kind {
		case OpSyscall:
			calls++
		case OpSleep:
			sleeps++
		case OpCPU:
			cpu += op.Dur
		}
	}
	assert.Contains(t, w.Doc, fmt.Sprintf("%d system calls", calls))
	assert.Contains(t, w.Doc, fmt.Sprintf("%d sleeps", sleeps))
	assert.Contains(t, w.Doc, fmt.Sprintf("%d µs of user CPU", cpu/time.Microsecond))
}
