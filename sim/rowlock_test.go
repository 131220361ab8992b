package sim

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/innosim/innosim/concurrency"
	"github.com/innosim/innosim/mycnf"
	"github.com/innosim/innosim/prio"
)

// trxMachine returns a machine of cpus cores with kernel_mutex and a row
// table, running threads copies of a transaction that locks locks rows (each
// followed by 10 µs of work and a 5 µs wait for the client) and commits.
func trxMachine(t *testing.T, cpus, threads, locks int, rows RowTable, gate int) (*Machine, int32) {
	t.Helper()
	m, err := NewMachine(MachineConfig{CPUs: cpus, SpinLoops: DefaultSpinLoops, Seed: 5})
	require.NoError(t, err)
	if gate > 0 {
		require.NoError(t, m.SetGate(concurrency.PolicyQueue, concurrency.Config{Limit: gate, Tickets: 1}))
	}
	kernel := m.AddMutex(Mutex{Name: "kernel_mutex", Spin: true, WakeAll: true})
	require.NoError(t, m.SetRowTable(rows))
	p := []Op{trxBegin()}
	for range locks {
		p = append(p, Op{Kind: OpGateEnter}, pickRow(), rowLock(kernel), cpu(10*us), Op{Kind: OpGateExit}, sleep(5*us))
	}
	p = append(p, Op{Kind: OpGateEnter}, lockRelease(kernel), trxEnd(), Op{Kind: OpGateExit}, done(1), sleep(5*us))
	for range threads {
		require.NoError(t, m.AddThread(p, prio.Normal))
	}
	return m, kernel
}

func TestRowLocksOnHotRowsWaitAndDeadlockButCommit(t *testing.T) {
	m, _ := trxMachine(t, 4, 8, 3, RowTable{Rows: 4}, 0)
	r := m.Run(0, 20*time.Millisecond)
	waits, deadlocks := m.RowLockStats()
	assert.NotZero(t, waits, "8 transactions on 4 rows queue for them")
	assert.NotZero(t, deadlocks, "three locks each in random order close cycles")
	assert.NotZero(t, r.Units, "deadlock victims retry and transactions commit")
	for row, owner := range m.rows.owner {
		assert.Contains(t, m.rows.th[owner].held, row, "every locked row is in its holder's list")
	}
}

func TestRowLocksOnAHugeTableNeverWait(t *testing.T) {
	m, _ := trxMachine(t, 4, 8, 3, RowTable{Rows: 1e9}, 0)
	r := m.Run(0, 20*time.Millisecond)
	waits, deadlocks := m.RowLockStats()
	assert.Zero(t, waits)
	assert.Zero(t, deadlocks)
	assert.NotZero(t, r.Units)
}

// A lock waiter that kept its seat would stall a gate of one seat: the
// holder needs the seat to commit. srv_conc_force_exit_innodb before the wait
// lets it in.
func TestLockWaitLeavesTheGate(t *testing.T) {
	m, _ := trxMachine(t, 2, 2, 1, RowTable{Rows: 1}, 1)
	r := m.Run(0, 20*time.Millisecond)
	waits, _ := m.RowLockStats()
	assert.NotZero(t, waits, "two transactions on one row")
	assert.Greater(t, r.Units, uint64(100), "the holder re-enters and commits while the waiter is out of the gate")
}

func TestSpecialDistributionHitsTheHotRows(t *testing.T) {
	m, err := NewMachine(MachineConfig{CPUs: 1, Seed: 1})
	require.NoError(t, err)
	require.NoError(t, m.SetRowTable(RowTable{Rows: 10000, HotShare: 0.01, HotAccess: 0.75}))
	require.NoError(t, m.AddThread([]Op{pickRow(), cpu(us)}, prio.Normal))
	hot := 0
	const n = 20000
	for range n {
		m.rows.pickRow(0)
		if m.rows.th[0].row < 100 {
			hot++
		}
	}
	assert.InDelta(t, 0.75, float64(hot)/n, 0.02, "1% of the rows get 75% of the picks")
}

func TestRowTableAndLogBadInput(t *testing.T) {
	m, err := NewMachine(MachineConfig{CPUs: 1})
	require.NoError(t, err)
	assert.ErrorContains(t, m.SetRowTable(RowTable{Rows: 0}), "RowTable.Rows = 0, want 1..1e9")
	assert.ErrorContains(t, m.SetRowTable(RowTable{Rows: 10, HotShare: 2}), "HotShare = 2, want 0..1")
	assert.ErrorContains(t, m.SetLog(LogConfig{FlushAtTrxCommit: 3}), "innodb_flush_log_at_trx_commit = 3, want 0..2")
	k := m.AddMutex(Mutex{Name: "kernel_mutex"})
	assert.ErrorContains(t, m.AddThread([]Op{pickRow(), rowLock(k), cpu(us)}, prio.Normal), "want a table installed by SetRowTable")
	assert.ErrorContains(t, m.AddThread([]Op{cpu(us), logCommit()}, prio.Normal), "want a device installed by SetDevice")
}

// commitRates runs threads that each do 20 µs of work and commit, with
// innodb_flush_log_at_trx_commit = flush, and returns the commits and the
// device's fsyncs.
func commitRates(t *testing.T, flush, threads int) (commits, fsyncs uint64, r Result) {
	t.Helper()
	m, err := NewMachine(MachineConfig{CPUs: 4, SpinLoops: DefaultSpinLoops, Seed: 2})
	require.NoError(t, err)
	require.NoError(t, m.SetDevice(DeviceConfig{Units: 1, Read: time.Millisecond, Write: time.Millisecond, Fsync: time.Millisecond, Dist: ServiceFixed}))
	require.NoError(t, m.SetLog(LogConfig{FlushAtTrxCommit: flush}))
	for range threads {
		require.NoError(t, m.AddThread([]Op{cpu(20 * us), logCommit(), done(1)}, prio.Normal))
	}
	r = m.Run(0, 100*time.Millisecond)
	return r.Units, r.Fsyncs, r
}

func TestCommitFlushesByFlushLogAtTrxCommit(t *testing.T) {
	c1, f1, _ := commitRates(t, 1, 1)
	assert.InDelta(t, 97, float64(f1), 3, "one thread: an fsync of 1 ms (and 30 µs of CPU) per commit")
	assert.InDelta(t, float64(c1), float64(f1), 2)

	c32, f32, _ := commitRates(t, 1, 32)
	assert.InDelta(t, 97, float64(f32), 3, "the device still does one fsync at a time")
	assert.Greater(t, c32, 10*f32, "group commit: one fsync covers the commits that queued while it ran")

	for _, flush := range []int{0, 2} {
		c, f, _ := commitRates(t, flush, 32)
		assert.Zero(t, f, "flush %d: no fsync at commit", flush)
		assert.Greater(t, c, 50*c32/10, "flush %d: commits are not bound by the device", flush)
	}
}

func TestSeedForHashesTheDeviceByValue(t *testing.T) {
	d := DeviceConfig{Units: 8, Read: 5 * time.Millisecond, Write: time.Millisecond, Fsync: time.Millisecond}
	d2 := d
	a := Cell{Workload: "connect", Threads: 1, Device: &d}
	b := Cell{Workload: "connect", Threads: 1, Device: &d2}
	assert.Equal(t, a.SeedFor(1), b.SeedFor(1), "equal devices at different addresses")
	d2.Units = 4
	assert.NotEqual(t, a.SeedFor(1), b.SeedFor(1))
}

func TestCellFromSettingsMapsFlushLogAtTrxCommit(t *testing.T) {
	s := mycnf.Defaults()
	c, err := CellFromSettings(s, "oltp_read_write")
	require.NoError(t, err)
	require.NotNil(t, c.Log)
	assert.Equal(t, 1, c.Log.FlushAtTrxCommit, "MySQL's default")
	s.FlushLogAtTrxCommit = 2
	c, err = CellFromSettings(s, "oltp_read_write")
	require.NoError(t, err)
	assert.Equal(t, 2, c.Log.FlushAtTrxCommit)
	s.FlushLogAtTrxCommit = 3
	_, err = CellFromSettings(s, "oltp_read_write")
	assert.ErrorContains(t, err, "innodb_flush_log_at_trx_commit = 3, want 0..2")
}

func TestStudyARowsAreAValidTable(t *testing.T) {
	require.NoError(t, studyARows.validate())
}
