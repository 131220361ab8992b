package workload

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/innosim/innosim/sim/machine"
)

// programOf tallies the program of workload name as set up on a one-core
// machine: ops by kind, the sum of its OpDone units and of its OpCPU time.
func programOf(t *testing.T, name string) (w Workload, kinds map[machine.OpKind]int, units int, cpu time.Duration) {
	t.Helper()
	w, err := Lookup(name)
	require.NoError(t, err)
	m, err := machine.New(machine.Config{CPUs: 1})
	require.NoError(t, err)
	env := testEnv{m: m}
	kinds = map[machine.OpKind]int{}
	for _, op := range w.Setup(env) {
		kinds[op.Kind]++
		switch op.Kind {
		case machine.OpDone:
			units += int(op.Arg)
		case machine.OpCPU:
			cpu += op.Dur
		}
	}
	return w, kinds, units, cpu
}

// TestBulkInsertDocsStateTheirPrograms: the two bulk inserts' docs give the
// rows per client round trip and the CPU per row their programs run.
// oltp_insert's said 20 µs a row and both said a round trip per 100 rows,
// where the programs (study D's calibration) run 40 µs a row and 10 rows a
// round trip.
func TestBulkInsertDocsStateTheirPrograms(t *testing.T) {
	for _, name := range []string{"oltp_insert", "bulk_insert"} {
		w, kinds, rows, cpu := programOf(t, name)
		require.Equal(t, 1, kinds[machine.OpSleep], name)
		assert.Contains(t, w.Doc, fmt.Sprintf("per %d rows", rows), name)
		assert.Contains(t, w.Doc, fmt.Sprintf("%d µs of CPU", cpu/time.Duration(rows)/time.Microsecond), name)
	}
}

// TestConnectDocStatesItsProgram: connect's doc counts its program's system
// calls, sleeps and user CPU. It said 4 sleeps and 25 µs, where the program
// (and study C's account of it) has 5 and 26 µs.
func TestConnectDocStatesItsProgram(t *testing.T) {
	w, kinds, _, cpu := programOf(t, "connect")
	assert.Contains(t, w.Doc, fmt.Sprintf("%d system calls", kinds[machine.OpSyscall]))
	assert.Contains(t, w.Doc, fmt.Sprintf("%d sleeps", kinds[machine.OpSleep]))
	assert.Contains(t, w.Doc, fmt.Sprintf("%d µs of user CPU", cpu/time.Microsecond))
}

// TestReadOnlyMariaDBIsSysbenchsTransaction: oltp_read_only_mariadb runs
// oltp_read_only.lua's event as statements, each a client round trip and a
// query: BEGIN, 10 point selects, 4 ranges, COMMIT. Its transaction is
// active (the thread pool's high priority) from the first SELECT to the
// COMMIT, and it takes no mutex: MariaDB 10.11's read view and page fixes
// take none that every query shares.
func TestReadOnlyMariaDBIsSysbenchsTransaction(t *testing.T) {
	w, kinds, units, _ := programOf(t, "oltp_read_only_mariadb")
	assert.Equal(t, 16, units)
	assert.Equal(t, 16, kinds[machine.OpSleep], "a round trip a statement")
	assert.Zero(t, kinds[machine.OpLock], "no mutex")
	assert.Zero(t, kinds[machine.OpReadView], "no copy of the active transactions under a mutex")
	assert.Contains(t, w.Doc, "10 point selects")
	m, err := machine.New(machine.Config{CPUs: 1})
	require.NoError(t, err)
	env := testEnv{m: m}
	stmt, begin, end := 0, 0, 0 // statements are counted by their round trips
	for _, op := range w.Setup(env) {
		switch op.Kind {
		case machine.OpSleep:
			stmt++
		case machine.OpTrxBegin:
			begin = stmt
		case machine.OpTrxEnd:
			end = stmt
		}
	}
	assert.Equal(t, 2, begin, "the first SELECT, not BEGIN, starts InnoDB's transaction")
	assert.Equal(t, 16, end, "COMMIT ends it")
}
