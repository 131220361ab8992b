package rowlock

import (
	"fmt"
	"time"

	"github.com/innosim/innosim/sim/machine"
)

// Table is the table a workload's row locks are taken on, and how
// sysbench picks a row id in it.
//
// The pick is sysbench 0.4's rnd_func_special (sb_oltp.c,
// --oltp-dist-type=special, the default; sysbench 1.0's --rand-type=special
// is the same rule): with probability HotAccess the id is drawn uniformly
// among the HotShare × Rows "special" ids, else uniformly among the others.
// With sysbench's defaults (--oltp-dist-pct=1, --oltp-dist-res=75) 1% of the
// rows get 75% of the accesses, so hot rows exist and concurrent
// transactions meet on them.
type Table struct {
	// Rows is the table size (--oltp-table-size, --table_size), 1..1e9.
	Rows int64
	// HotShare is the share of rows that are special (--oltp-dist-pct/100),
	// 0..1; 0 draws uniformly.
	HotShare float64
	// HotAccess is the share of picks that go to the special rows
	// (--oltp-dist-res/100), 0..1.
	HotAccess float64
}

// Validate reports a field out of range, wrapping ErrInvalidConfig.
func (r Table) Validate() error {
	switch {
	case r.Rows < 1 || r.Rows > 1e9:
		return fmt.Errorf("sim: RowTable.Rows = %d, want 1..1e9: %w", r.Rows, machine.ErrInvalidConfig)
	case !(r.HotShare >= 0 && r.HotShare <= 1):
		return fmt.Errorf("sim: RowTable.HotShare = %v, want 0..1: %w", r.HotShare, machine.ErrInvalidConfig)
	case !(r.HotAccess >= 0 && r.HotAccess <= 1):
		return fmt.Errorf("sim: RowTable.HotAccess = %v, want 0..1: %w", r.HotAccess, machine.ErrInvalidConfig)
	}
	return nil
}

// Locks is InnoDB's lock system for the exclusive record locks of one
// table (lock_sys's record hash in MySQL 5.1), protected by kernel_mutex as
// in lock0lock.c: every lock request, grant and release runs with
// kernel_mutex held (lock_mutex_enter_kernel). A transaction is a thread's,
// or a pooled connection's (trxKey): each runs one transaction at a time.
type Locks struct {
	m     *machine.Machine
	table Table
	hot   int64 // number of special rows

	owner map[int64]int32   // row → trx key (trxKey) holding its X lock
	queue map[int64][]int32 // row → trx keys waiting for it, in request order (lock_rec_enqueue_waiting)
	th    []rowLockThread   // by thread id, grown on demand
	conn  []rowLockThread   // by pooled connection, grown on demand

	// Waits and Deadlocks count lock requests that waited and those that
	// found a deadlock (the requester is rolled back).
	Waits, Deadlocks uint64
}

// rowLockThread is one thread's transaction in the lock system: its current
// row, the rows it holds, what it waits for, and its progress through
// OpRowLock or OpLockRelease.
type rowLockThread struct {
	row     int64   // the row OpPickRow drew
	held    []int64 // rows locked by the transaction, released at commit
	waitFor int64   // row waited for, or -1
	granted bool    // a releaser granted the row waited for
	stage   rowLockStage
	wakes   []int32 // threads this release granted a lock to: wake each
	victim  bool    // chosen as the deadlock victim: roll back
}

// rowLockStage is how far a thread has got in OpRowLock or OpLockRelease.
type rowLockStage uint8

const (
	rlStart       rowLockStage = iota // take kernel_mutex
	rlDecide                          // kernel_mutex held, the lock work charged: grant, queue or deadlock
	rlUnlock                          // release kernel_mutex
	rlWake                            // wake the threads granted a lock, one futex wake each
	rlWakeCharged                     // the next wake's system call charged: make the thread runnable
	rlExitGate                        // srv_conc_force_exit_innodb before the wait
	rlSuspend                         // the futex wait's entry charged: sleep unless granted
	rlSuspended                       // asleep in srv_suspend_mysql_thread
	rlEnterGate                       // srv_conc_force_enter_innodb after the wait
)

// CPU of the lock system's work under kernel_mutex, an OpRowLock's and an
// OpLockRelease's Dur in the workloads: one request (lock_rec_lock: the
// record hash lookup and lock_rec_create), and the release of one lock at
// commit (lock_rec_dequeue_from_page).
const (
	RequestWork = 1 * time.Microsecond
	ReleaseWork = 300 * time.Nanosecond
)

// The gate's ops as a row lock's wait runs them (Machine.StepOp): it leaves
// InnoDB's gate before it sleeps and enters it again after.
var (
	gateEnterOp = machine.Op{Kind: machine.OpGateEnter}
	gateExitOp  = machine.Op{Kind: machine.OpGateExit}
)

// lockWait is the kernel work of a thread's lock-wait sleep or its wake
// beyond the system-call entry (os_event_wait / os_event_set on the thread's
// own slot event: a futex on a private word, whose bucket nobody else uses).
const lockWait = 500 * time.Nanosecond

// Install installs the lock system of table r: OpPickRow draws rows from it,
// OpRowLock locks them and OpLockRelease releases them. A second Install on
// a machine replaces the first. It returns an error wrapping
// ErrInvalidConfig for a bad table.
func Install(m *machine.Machine, r Table) (*Locks, error) {
	if err := r.Validate(); err != nil {
		return nil, err
	}
	hot := int64(float64(r.Rows) * r.HotShare)
	l := &Locks{m: m, table: r, hot: hot, owner: map[int64]int32{}, queue: map[int64][]int32{}}
	for _, k := range []machine.OpKind{machine.OpPickRow, machine.OpRowLock, machine.OpLockRelease} {
		m.Handle(k, l)
	}
	return l, nil
}

// Step runs OpPickRow, OpRowLock and OpLockRelease.
func (l *Locks) Step(id int32, op *machine.Op) bool {
	switch op.Kind {
	case machine.OpPickRow:
		l.pickRow(id)
		return true
	case machine.OpRowLock:
		return l.rowLock(id, op)
	}
	return l.lockRelease(id, op)
}

// NoMutex is OpRowLock's and OpLockRelease's Arg for a lock system with no
// global mutex: MariaDB 10.6 on, where a record lock takes lock_sys.latch
// shared and the latch of the record's rec_hash cell (lock_sys_t::LockGuard),
// which only requests for rows of the same cell contend for.
const NoMutex = -1

// CheckOp refuses a row lock or release under a mutex the machine lacks.
func (l *Locks) CheckOp(op machine.Op) error {
	if n := l.m.MutexCount(); (op.Kind == machine.OpRowLock || op.Kind == machine.OpLockRelease) && (op.Arg < NoMutex || int(op.Arg) >= n) {
		return fmt.Errorf("sim: op %d mutex %d, want %d (none) or 0..%d: %w", op.Kind, op.Arg, NoMutex, n-1, machine.ErrInvalidConfig)
	}
	return nil
}

// Owners returns each locked row's holder: the session (a thread's id, or a
// pooled connection's key, ≤ −2) whose transaction holds it.
func (l *Locks) Owners() map[int64]int32 {
	out := make(map[int64]int32, len(l.owner))
	for row, k := range l.owner {
		out[row] = k
	}
	return out
}

// Held returns how many rows session k's transaction holds.
func (l *Locks) Held(k int32) int { return len(l.thread(k).held) }

// Stats returns the lock requests that waited and the deadlocks found.
func (l *Locks) Stats() (waits, deadlocks uint64) { return l.Waits, l.Deadlocks }

// thread returns the transaction state of trx key id (see trxKey).
func (l *Locks) thread(id int32) *rowLockThread {
	if id < 0 {
		c := int(-2 - id)
		for c >= len(l.conn) {
			l.conn = append(l.conn, rowLockThread{waitFor: -1})
		}
		return &l.conn[c]
	}
	for int(id) >= len(l.th) {
		l.th = append(l.th, rowLockThread{waitFor: -1})
	}
	return &l.th[id]
}

// pickRow draws a row id, as rnd_func_special (see Table).
func (l *Locks) pickRow(id int32) {
	rt := l.thread(l.m.Session(id))
	rng := l.m.Rand()
	switch {
	case l.hot > 0 && l.hot < l.table.Rows && rng.Float64() < l.table.HotAccess:
		rt.row = rng.Int64N(l.hot)
	case l.hot > 0 && l.hot < l.table.Rows:
		rt.row = l.hot + rng.Int64N(l.table.Rows-l.hot)
	default:
		rt.row = rng.Int64N(l.table.Rows)
	}
}

// rowLock runs OpRowLock: an exclusive lock on the thread's current row, held
// to commit, as lock_clust_rec_modify_check_and_lock → lock_rec_lock in
// MySQL 5.1 (lock0lock.c). Under kernel_mutex (mi): a row nobody locks, or
// one the transaction holds already, is granted (lock_rec_lock_fast /
// lock_rec_has_expl); else the request queues behind the holder
// (lock_rec_enqueue_waiting) unless that closes a cycle of waits
// (lock_deadlock_occurs), in which case the requester is the victim: its
// locks are released and it starts its transaction again from the
// program's first op, as sysbench retries a transaction that got a
// deadlock error. A queued request leaves InnoDB's concurrency gate
// (srv_conc_force_exit_innodb), sleeps on its thread's event
// (lock_wait_suspend_thread → srv_suspend_mysql_thread) until a commit grants
// it the row, and enters the gate again (srv_conc_force_enter_innodb). Dur is
// the CPU of the request under kernel_mutex. It reports whether the thread
// holds the row and goes on; false means it stopped and rowLock is called
// again.
func (l *Locks) rowLock(id int32, op *machine.Op) bool {
	m := l.m
	key := m.Session(id)
	rt := l.thread(key)
	for {
		switch rt.stage {
		case rlStart:
			if op.Arg != NoMutex && !m.Lock(id, op.Arg) {
				return false
			}
			rt.stage = rlDecide
			m.Burst(id, m.Jitter(op.Dur), machine.CatUser)
			return false
		case rlDecide:
			rt.stage = rlUnlock
			holder, taken := l.owner[rt.row]
			switch {
			case !taken:
				l.owner[rt.row] = key
				rt.held = append(rt.held, rt.row)
			case holder == key:
			case l.closesCycle(key, holder):
				l.Deadlocks++
				rt.victim = true
				l.releaseRows(key) // trx_general_rollback_for_mysql: its locks go at once
			default:
				l.Waits++
				rt.waitFor, rt.granted = rt.row, false
				l.queue[rt.row] = append(l.queue[rt.row], key)
			}
		case rlUnlock:
			if op.Arg != NoMutex && !m.Unlock(id, op.Arg) {
				return false
			}
			switch {
			case rt.victim:
				rt.stage = rlWake
			case rt.waitFor >= 0:
				rt.stage = rlExitGate
			default:
				rt.stage = rlStart
				return true
			}
		case rlWake, rlWakeCharged: // only a deadlock victim gets here from rowLock
			if !l.wakeGranted(id, rt) {
				return false
			}
			rt.stage = rlExitGate
		case rlExitGate:
			if !m.StepOp(id, &gateExitOp) {
				return false
			}
			if rt.victim {
				rt.victim, rt.stage = false, rlStart
				m.RestartTrx(id)
				return true
			}
			rt.stage = rlSuspend
			m.Syscall(id, int64(m.Costs().Syscall)+int64(lockWait))
			return false
		case rlSuspend:
			rt.stage = rlSuspended
			if !rt.granted {
				m.Block(id)
				m.WaitBegin(id, machine.WaitRowLock)
				return false
			}
		case rlSuspended: // woken by the commit that granted the row
			m.WaitEnd(id)
			rt.stage = rlEnterGate
		case rlEnterGate:
			if !m.StepOp(id, &gateEnterOp) {
				return false
			}
			rt.stage = rlStart
			return true
		}
	}
}

// closesCycle reports whether id waiting for a row held by holder closes a
// cycle of waits: following each holder to the row it waits for and that
// row's holder leads back to id (lock_deadlock_recursive, for exclusive
// locks, where every row has one holder).
func (l *Locks) closesCycle(id, holder int32) bool {
	for range len(l.th) + 1 {
		if holder == id {
			return true
		}
		h := l.thread(holder)
		if h.waitFor < 0 {
			return false
		}
		next, ok := l.owner[h.waitFor]
		if !ok {
			return false
		}
		holder = next
	}
	return false
}

// releaseRows releases every row id's transaction holds, granting each to
// the first thread queued for it (lock_release_off_kernel → lock_grant),
// and records the grants to wake in id's wakes. kernel_mutex is held.
func (l *Locks) releaseRows(id int32) {
	rt := l.thread(id)
	for _, row := range rt.held {
		q := l.queue[row]
		if len(q) == 0 {
			delete(l.owner, row)
			continue
		}
		w := q[0]
		if len(q) == 1 {
			delete(l.queue, row)
		} else {
			l.queue[row] = q[1:]
		}
		l.owner[row] = w
		wt := l.thread(w)
		wt.held = append(wt.held, row)
		wt.waitFor, wt.granted = -1, true
		rt.wakes = append(rt.wakes, w)
	}
	rt.held = rt.held[:0]
}

// wakeGranted wakes, one futex wake each (os_event_set on the waiter's slot
// event in lock_grant → trx_end_lock_wait), the threads a release granted a
// row to; a waiter that has not gone to sleep yet finds its grant and does
// not sleep. It reports whether all are woken; false means thread id
// stopped for a wake's system call.
func (l *Locks) wakeGranted(id int32, rt *rowLockThread) bool {
	m := l.m
	if len(rt.wakes) == 0 {
		return true
	}
	if rt.stage != rlWakeCharged {
		rt.stage = rlWakeCharged
		m.Syscall(id, int64(m.Costs().Syscall)+int64(lockWait))
		return false
	}
	w := rt.wakes[0]
	rt.wakes = rt.wakes[1:]
	rt.stage = rlWake
	if wt := l.thread(w); wt.stage == rlSuspended {
		if wid := m.SessionThread(w); wid >= 0 && m.Blocked(wid) {
			m.Wake(wid)
		}
	}
	return l.wakeGranted(id, rt)
}

// lockRelease runs OpLockRelease: the commit's release of every row lock the
// transaction holds, under kernel_mutex (mi), as trx_commit_off_kernel →
// lock_release_off_kernel in MySQL 5.1; Dur is the CPU per lock released.
// Each row with a waiter is granted to the first (lock_grant) and that thread
// woken after kernel_mutex is released. It reports whether the thread goes
// on.
func (l *Locks) lockRelease(id int32, op *machine.Op) bool {
	m := l.m
	key := m.Session(id)
	rt := l.thread(key)
	for {
		switch rt.stage {
		case rlStart:
			if op.Arg != NoMutex && !m.Lock(id, op.Arg) {
				return false
			}
			rt.stage = rlDecide
			m.Burst(id, int64(len(rt.held)+1)*m.Jitter(op.Dur), machine.CatUser)
			return false
		case rlDecide:
			l.releaseRows(key)
			rt.stage = rlUnlock
		case rlUnlock:
			if op.Arg != NoMutex && !m.Unlock(id, op.Arg) {
				return false
			}
			rt.stage = rlWake
		default: // rlWake and its charged step
			if !l.wakeGranted(id, rt) {
				return false
			}
			rt.stage = rlStart
			return true
		}
	}
}
