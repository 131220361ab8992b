package workload

import (
	"time"

	"github.com/innosim/innosim/mycnf"
	"github.com/innosim/innosim/sim/machine"
)

// Is55 reports whether srv is a 5.5 server (MariaDB or MySQL 5.5), whose
// statements take the global mutexes of server55: 5.6's code (MariaDB 10.0
// on) split the table cache (table_open_cache_instances), partitioned the
// MDL map (metadata_locks_hash_instances) and split InnoDB's kernel_mutex.
func Is55(srv mycnf.Server) bool {
	major, minor, ok := srv.Series()
	return ok && major == 5 && minor == 5
}

// IsSrw reports whether srv's InnoDB has MariaDB 10.6's latches
// (MDEV-21452): its mutexes are srw_mutex, a futex word that spins
// innodb_sync_spin_loops rounds, then waits in the kernel, and whose release
// wakes one waiter (srw_mutex_impl::wake: futex_wake(1)); no wait array
// (sync0arr.cc removed); no global mutex on a page fix (buf_page_get_gen
// latches the page_hash cell shared), on a transaction's start or read view
// (trx_sys.rw_trx_hash, a lock-free hash) or on its commit; a record lock
// takes lock_sys.latch shared and its hash cell's latch (LockGuard).
func IsSrw(srv mycnf.Server) bool {
	major, minor, ok := srv.Series()
	return ok && srv.Product == mycnf.MariaDB && (major > 10 || major == 10 && minor >= 6)
}

// server55 holds the global mutexes every statement of a 5.5 server takes
// on its way to and from InnoDB (MariaDB 5.5.28 as read; the InnoDB is
// XtraDB, MariaDB 5.5's default):
//
//   - LOCK_open (sql_base.cc): open_table takes it to get a TABLE of the
//     share from the table definition cache (get_table_share, the share's
//     free list), close_thread_table to give it back; a pthread mutex
//     (MY_MUTEX_INIT_FAST: no spin here), waking one waiter.
//   - MDL_map::m_mutex (mdl.cc): MDL_map::find_or_insert looks the table's
//     MDL_lock up under it (only the GLOBAL and COMMIT namespaces skip it).
//   - the table's MDL_lock::m_rwlock: find_or_insert returns the lock
//     write-locked (mysql_prlock_wrlock), and try_acquire_lock_impl grants
//     the ticket under it; MDL_lock::remove_ticket write-locks it again at
//     the release. Write-locked on both paths, it is one exclusive lock
//     every statement on the table shares.
//   - kernel_mutex (InnoDB): trx_start (trx0trx.c) and
//     read_view_open_now (read0read.c: a copy of every active transaction's
//     id from trx_sys->trx_list) inside row_search_for_mysql's first call,
//     and trx_commit_for_mysql (trx_commit_off_kernel, which closes the
//     read view); an InnoDB mutex (spin, then the sync array, release wakes
//     all). The walk's length is the transactions between trx_start_low's
//     UT_LIST_ADD_FIRST and trx_commit_off_kernel's UT_LIST_REMOVE: an
//     autocommit statement's transaction is in the list only while it runs.
//
// The CPU inside each section is an estimate of the source's work there (a
// hash lookup, a list unlink, a ticket added), taken from the statement's
// budget, so one connection's statement costs what it did.
type server55 struct{ lockOpen, mdlMap, mdlLock, kernel int32 }

// CPU inside server55's sections.
const (
	lockOpenGet  = 300 * time.Nanosecond // get_table_share's hash lookup, a TABLE off the share's free list
	lockOpenPut  = 200 * time.Nanosecond // the TABLE back on the free list (tc_release_table)
	mdlMapFind   = 200 * time.Nanosecond // MDL_map's hash lookup
	mdlGrant     = 200 * time.Nanosecond // can_grant_lock, m_granted.add_ticket
	mdlRemove    = 200 * time.Nanosecond // remove_ticket
	trxStartWork = 300 * time.Nanosecond // trx_start_low: id, list insert
	viewFixed    = 200 * time.Nanosecond // read_view_open_now's allocation, beside its copy
	commitWork   = 300 * time.Nanosecond // trx_commit_off_kernel, read_view_close
	// viewLines is the cache lines of each other active transaction on the
	// critical path of read_view_open_now's walk of trx_sys->trx_list: the
	// line of trx_list.next, a dependent load, whose owner wrote it at its
	// UT_LIST_ADD_FIRST (or a neighbour at its own); the line of id,
	// conc_state and no is loaded beside it, not after it. Its price is the
	// machine's (machine.OpReadView).
	viewLines = 1
)

// serverMutexes adds server55's mutexes; kernel_mutex is kernel when it is
// not −1 (the workload's own), else the gate's when env has a Queue gate
// (one mutex in InnoDB), else a new one.
func serverMutexes(env Env, kernel int32) server55 {
	s := server55{
		lockOpen: env.AddMutex(machine.Mutex{Name: "LOCK_open", Lines: 2}),
		mdlMap:   env.AddMutex(machine.Mutex{Name: "MDL_map::m_mutex", Lines: 1}),
		mdlLock:  env.AddMutex(machine.Mutex{Name: "MDL_lock::m_rwlock", Lines: 2}),
		kernel:   kernel,
	}
	if s.kernel < 0 {
		s.kernel = env.GateMutex()
	}
	if s.kernel < 0 {
		s.kernel = env.AddMutex(machine.Mutex{Name: "kernel_mutex", Spin: true, WakeAll: true})
	}
	return s
}

// serverCPU is the CPU of openTable, closeTable and the MDL ticket's
// acquire and release, which a statement's dispatch budget pays for.
const serverCPU = lockOpenGet + lockOpenPut + mdlMapFind + mdlGrant + mdlRemove

// openTable is open_table with its metadata lock when mdl: the MDL ticket
// (MDL_map::m_mutex, then the lock's m_rwlock), then a TABLE under LOCK_open.
func (s server55) openTable(mdl bool) []machine.Op {
	var p []machine.Op
	if mdl {
		p = append(p, lock(s.mdlMap), cpu(mdlMapFind), unlock(s.mdlMap), lock(s.mdlLock), cpu(mdlGrant), unlock(s.mdlLock))
	}
	return append(p, lock(s.lockOpen), cpu(lockOpenGet), unlock(s.lockOpen))
}

// closeTable is close_thread_table's LOCK_open section.
func (s server55) closeTable() []machine.Op {
	return []machine.Op{lock(s.lockOpen), cpu(lockOpenPut), unlock(s.lockOpen)}
}

// releaseMDL is MDL_context::release_transactional_locks of the table's
// ticket: remove_ticket under the lock's m_rwlock.
func (s server55) releaseMDL() []machine.Op {
	return []machine.Op{lock(s.mdlLock), cpu(mdlRemove), unlock(s.mdlLock)}
}

// trxStart is trx_start and read_view_open_now under kernel_mutex.
func (s server55) trxStart() []machine.Op {
	return []machine.Op{lock(s.kernel), trxBegin(), cpu(trxStartWork + viewFixed), readViewLines(viewLines), unlock(s.kernel)}
}

// trxCommit is trx_commit_for_mysql's kernel_mutex section.
func (s server55) trxCommit() []machine.Op {
	return []machine.Op{lock(s.kernel), cpu(commitWork), trxEnd(), unlock(s.kernel)}
}

// pointSelect55 is oltpPointSelect's statement on a 5.5 server: the same
// 9 µs of CPU at one connection, with the dispatch's table open and close and the MDL ticket
// under server55's mutexes, and InnoDB's transaction start, read view and
// commit under kernel_mutex (an autocommit SELECT is a transaction of its
// own: ha_innobase::external_lock commits it at the statement's end).
func pointSelect55(env Env) []machine.Op {
	s := serverMutexes(env, -1)
	dispatch := 4*us - serverCPU
	inno := 2*us - trxStartWork - viewFixed - commitWork // the walk costs nothing at one active transaction: its own
	body := []machine.Op{cpu(dispatch / 2)}
	body = append(body, s.openTable(true)...)
	body = append(body, inInnoDB(append(s.trxStart(), cpu(1*us), cpu(1*us), cpu(1*us), cpu(inno))...)...)
	body = append(body, s.trxCommit()...)
	body = append(body, s.closeTable()...)
	body = append(body, s.releaseMDL()...)
	body = append(body, cpu(dispatch-dispatch/2))
	return statement(30*us, body...)
}
