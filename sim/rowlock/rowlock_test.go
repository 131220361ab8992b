package rowlock

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/innosim/innosim/concurrency"
	"github.com/innosim/innosim/prio"
	"github.com/innosim/innosim/sim/gate"
	"github.com/innosim/innosim/sim/machine"
)

// trxMachine returns a machine of cpus cores with kernel_mutex and a row
// table, running threads copies of a transaction that locks locks rows (each
// followed by 10 µs of work and a 5 µs wait for the client) and commits.
func trxMachine(t *testing.T, cpus, threads, locks int, rows Table, limit int) (*Locks, *machine.Machine, int32) {
	t.Helper()
	m, err := machine.New(machine.Config{CPUs: cpus, SpinLoops: machine.DefaultSpinLoops, Seed: 5})
	require.NoError(t, err)
	if limit > 0 {
		_, err := gate.Install(m, concurrency.PolicyQueue, concurrency.Config{Limit: limit, Tickets: 1})
		require.NoError(t, err)
	}
	kernel := m.AddMutex(machine.Mutex{Name: "kernel_mutex", Spin: true, WakeAll: true})
	l, err := Install(m, rows)
	require.NoError(t, err)
	p := []machine.Op{trxBegin()}
	for range locks {
		p = append(p, machine.Op{Kind: machine.OpGateEnter}, pickRow(), rowLock(kernel), cpu(10*us), machine.Op{Kind: machine.OpGateExit}, sleep(5*us))
	}
	p = append(p, machine.Op{Kind: machine.OpGateEnter}, lockRelease(kernel), trxEnd(), machine.Op{Kind: machine.OpGateExit}, done(1), sleep(5*us))
	for range threads {
		require.NoError(t, m.AddThread(p, prio.Normal))
	}
	return l, m, kernel
}

func TestRowLocksOnHotRowsWaitAndDeadlockButCommit(t *testing.T) {
	l, m, _ := trxMachine(t, 4, 8, 3, Table{Rows: 4}, 0)
	r := m.Run(0, 20*time.Millisecond)
	waits, deadlocks := l.Stats()
	assert.NotZero(t, waits, "8 transactions on 4 rows queue for them")
	assert.NotZero(t, deadlocks, "three locks each in random order close cycles")
	assert.NotZero(t, r.Units, "deadlock victims retry and transactions commit")
	for row, owner := range l.owner {
		assert.Contains(t, l.th[owner].held, row, "every locked row is in its holder's list")
	}
}

func TestSpecialDistributionHitsTheHotRows(t *testing.T) {
	m, err := machine.New(machine.Config{CPUs: 1, Seed: 1})
	require.NoError(t, err)
	l, err := Install(m, Table{Rows: 10000, HotShare: 0.01, HotAccess: 0.75})
	require.NoError(t, err)
	require.NoError(t, m.AddThread([]machine.Op{pickRow(), cpu(us)}, prio.Normal))
	hot := 0
	const n = 20000
	for range n {
		l.pickRow(0)
		if l.th[0].row < 100 {
			hot++
		}
	}
	assert.InDelta(t, 0.75, float64(hot)/n, 0.02, "1% of the rows get 75% of the picks")
}

func TestRowTableBadInput(t *testing.T) {
	m, err := machine.New(machine.Config{CPUs: 1})
	require.NoError(t, err)
	_, err = Install(m, Table{Rows: 0})
	assert.ErrorContains(t, err, "RowTable.Rows = 0, want 1..1e9")
	_, err = Install(m, Table{Rows: 10, HotShare: 2})
	assert.ErrorContains(t, err, "HotShare = 2, want 0..1")
	k := m.AddMutex(machine.Mutex{Name: "kernel_mutex"})
	assert.ErrorContains(t, m.AddThread([]machine.Op{pickRow(), rowLock(k), cpu(us)}, prio.Normal), "want a table installed by SetRowTable")
	_, err = Install(m, Table{Rows: 10})
	require.NoError(t, err)
	assert.ErrorContains(t, m.AddThread([]machine.Op{pickRow(), rowLock(k + 1), cpu(us)}, prio.Normal), "mutex 1, want -1 (none) or 0..0")
}

const us = time.Microsecond

func cpu(d time.Duration) machine.Op   { return machine.Op{Kind: machine.OpCPU, Dur: d} }
func sleep(d time.Duration) machine.Op { return machine.Op{Kind: machine.OpSleep, Dur: d} }
func done(n int32) machine.Op          { return machine.Op{Kind: machine.OpDone, Arg: n} }
func trxBegin() machine.Op             { return machine.Op{Kind: machine.OpTrxBegin} }
func trxEnd() machine.Op               { return machine.Op{Kind: machine.OpTrxEnd} }
func pickRow() machine.Op              { return machine.Op{Kind: machine.OpPickRow} }
func rowLock(kernel int32) machine.Op {
	return machine.Op{Kind: machine.OpRowLock, Arg: kernel, Dur: RequestWork}
}
func lockRelease(kernel int32) machine.Op {
	return machine.Op{Kind: machine.OpLockRelease, Arg: kernel, Dur: ReleaseWork}
}

// Under NoMutex (MariaDB 10.6's lock_sys latches) row locks still queue,
// deadlock and commit, and take no machine mutex.
func TestRowLocksWithoutAGlobalMutex(t *testing.T) {
	m, err := machine.New(machine.Config{CPUs: 4, SpinLoops: machine.DefaultSpinLoops, Seed: 5})
	require.NoError(t, err)
	l, err := Install(m, Table{Rows: 4})
	require.NoError(t, err)
	p := []machine.Op{trxBegin()}
	for range 3 {
		p = append(p, pickRow(), rowLock(NoMutex), cpu(10*us), sleep(5*us))
	}
	p = append(p, lockRelease(NoMutex), trxEnd(), done(1), sleep(5*us))
	for range 8 {
		require.NoError(t, m.AddThread(p, prio.Normal))
	}
	r := m.Run(0, 20*time.Millisecond)
	waits, deadlocks := l.Stats()
	assert.NotZero(t, waits)
	assert.NotZero(t, deadlocks)
	assert.NotZero(t, r.Units)
	assert.Zero(t, m.MutexCount(), "no mutex to take")
	for row, owner := range l.owner {
		assert.Contains(t, l.th[owner].held, row)
	}
}
