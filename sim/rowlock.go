package sim

import (
	"fmt"
	"time"
)

// RowTable is the table a workload's row locks are taken on, and how
// sysbench picks a row id in it.
//
// The pick is sysbench 0.4's rnd_func_special (sb_oltp.c,
// --oltp-dist-type=special, the default; sysbench 1.0's --rand-type=special
// is the same rule): with probability HotAccess the id is drawn uniformly
// among the HotShare × Rows "special" ids, else uniformly among the others.
// With sysbench's defaults (--oltp-dist-pct=1, --oltp-dist-res=75) 1% of the
// rows get 75% of the accesses, so hot rows exist and concurrent
// transactions meet on them.
type RowTable struct {
	// Rows is the table size (--oltp-table-size, --table_size), 1..1e9.
	Rows int64
	// HotShare is the share of rows that are special (--oltp-dist-pct/100),
	// 0..1; 0 draws uniformly.
	HotShare float64
	// HotAccess is the share of picks that go to the special rows
	// (--oltp-dist-res/100), 0..1.
	HotAccess float64
}

func (r RowTable) validate() error {
	switch {
	case r.Rows < 1 || r.Rows > 1e9:
		return fmt.Errorf("sim: RowTable.Rows = %d, want 1..1e9: %w", r.Rows, ErrInvalidConfig)
	case !(r.HotShare >= 0 && r.HotShare <= 1):
		return fmt.Errorf("sim: RowTable.HotShare = %v, want 0..1: %w", r.HotShare, ErrInvalidConfig)
	case !(r.HotAccess >= 0 && r.HotAccess <= 1):
		return fmt.Errorf("sim: RowTable.HotAccess = %v, want 0..1: %w", r.HotAccess, ErrInvalidConfig)
	}
	return nil
}

// lockSys is InnoDB's lock system for the exclusive record locks of one
// table (lock_sys's record hash in MySQL 5.1), protected by kernel_mutex as
// in lock0lock.c: every lock request, grant and release runs with
// kernel_mutex held (lock_mutex_enter_kernel). A transaction is a thread's,
// or a pooled connection's (trxKey): each runs one transaction at a time.
type lockSys struct {
	m     *Machine
	table RowTable
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

// CPU of the lock system's work under kernel_mutex: one request
// (lock_rec_lock: the record hash lookup and lock_rec_create), and the
// release of one lock at commit (lock_rec_dequeue_from_page).
const (
	rowLockWork     = 1 * time.Microsecond
	lockReleaseWork = 300 * time.Nanosecond
)

// lockWait is the kernel work of a thread's lock-wait sleep or its wake
// beyond the system-call entry (os_event_wait / os_event_set on the thread's
// own slot event: a futex on a private word, whose bucket nobody else uses).
const lockWait = 500 * time.Nanosecond

// SetRowTable installs the table that OpPickRow draws rows from and OpRowLock
// locks. Workloads call it from their Setup; a second call replaces the
// table. It returns an error wrapping ErrInvalidConfig for a bad table.
func (m *Machine) SetRowTable(r RowTable) error {
	if err := r.validate(); err != nil {
		return err
	}
	m.installRows(r)
	return nil
}

// installRows installs a valid row table (a built-in workload's).
func (m *Machine) installRows(r RowTable) {
	hot := int64(float64(r.Rows) * r.HotShare)
	m.rows = &lockSys{m: m, table: r, hot: hot, owner: map[int64]int32{}, queue: map[int64][]int32{}}
	for _, k := range []OpKind{OpPickRow, OpRowLock, OpLockRelease} {
		m.Handle(k, m.rows)
	}
}

// Step runs OpPickRow, OpRowLock and OpLockRelease.
func (l *lockSys) Step(id int32, op *Op) bool {
	switch op.Kind {
	case OpPickRow:
		l.pickRow(id)
		return true
	case OpRowLock:
		return l.rowLock(id, op)
	}
	return l.lockRelease(id, op)
}

// RowLockStats returns the lock requests that waited and the deadlocks found
// (zero without a row table).
func (m *Machine) RowLockStats() (waits, deadlocks uint64) {
	if m.rows == nil {
		return 0, 0
	}
	return m.rows.Waits, m.rows.Deadlocks
}

// thread returns the transaction state of trx key id (see trxKey).
func (l *lockSys) thread(id int32) *rowLockThread {
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

// pickRow draws a row id, as rnd_func_special (see RowTable).
func (l *lockSys) pickRow(id int32) {
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
func (l *lockSys) rowLock(id int32, op *Op) bool {
	m := l.m
	key := m.Session(id)
	rt := l.thread(key)
	for {
		switch rt.stage {
		case rlStart:
			if !m.Lock(id, op.Arg) {
				return false
			}
			rt.stage = rlDecide
			m.Burst(id, m.Jitter(op.Dur), CatUser)
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
			if !m.Unlock(id, op.Arg) {
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
				m.WaitBegin(id) // lock_wait's THD_WAIT_ROW_LOCK
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
func (l *lockSys) closesCycle(id, holder int32) bool {
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
func (l *lockSys) releaseRows(id int32) {
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
func (l *lockSys) wakeGranted(id int32, rt *rowLockThread) bool {
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
func (l *lockSys) lockRelease(id int32, op *Op) bool {
	m := l.m
	key := m.Session(id)
	rt := l.thread(key)
	for {
		switch rt.stage {
		case rlStart:
			if !m.Lock(id, op.Arg) {
				return false
			}
			rt.stage = rlDecide
			m.Burst(id, int64(len(rt.held)+1)*m.Jitter(op.Dur), CatUser)
			return false
		case rlDecide:
			l.releaseRows(key)
			rt.stage = rlUnlock
		case rlUnlock:
			if !m.Unlock(id, op.Arg) {
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

// checkTrxOp checks the ops of row locks and the log against the machine:
// their mutex, the row table they need, and the device a flushing commit
// waits for.
func (m *Machine) checkTrxOp(op Op) error {
	switch op.Kind {
	case OpRowLock, OpLockRelease:
		if op.Arg < 0 || int(op.Arg) >= len(m.mutexes) {
			return fmt.Errorf("sim: op %d mutex %d, want 0..%d: %w", op.Kind, op.Arg, len(m.mutexes)-1, ErrInvalidConfig)
		}
		fallthrough
	case OpPickRow:
		if m.rows == nil {
			return fmt.Errorf("sim: op %d locks rows, want a table installed by SetRowTable: %w", op.Kind, ErrInvalidConfig)
		}
	case OpLogCommit:
		if m.logCfg.FlushAtTrxCommit == 1 && m.dev == nil {
			return fmt.Errorf("sim: a commit with innodb_flush_log_at_trx_commit = 1 fsyncs the log, want a device installed by SetDevice: %w", ErrInvalidConfig)
		}
		m.addLog()
	}
	return nil
}
