package workload

import (
	"time"

	"github.com/innosim/innosim/prio"
	"github.com/innosim/innosim/sim/machine"
	"github.com/innosim/innosim/sim/rowlock"
)

// A statement of a client's transaction: wait for the client (rtt), read the
// packet (vio_read: a recv on the open socket), raise the priority to Query (MySQL 5.1's thread priorities), enter
// InnoDB's concurrency gate, run body, leave the gate, lower the priority to
// Wait and write the result (vio_write: a send of sendWork kernel work, more
// for a statement that returns many rows). It counts nothing: the transaction's
// COMMIT does.
func trxStatement(rtt, sendWork time.Duration, body ...machine.Op) []machine.Op {
	p := []machine.Op{sleep(rtt), sockCall(2 * us), setPrio(int32(prio.Query)), {Kind: machine.OpGateEnter}}
	p = append(p, body...)
	return append(p, machine.Op{Kind: machine.OpGateExit}, setPrio(int32(prio.Wait)), sockCall(sendWork))
}

// pageFixes fixes n B-tree pages under the buf_pool mutex (buf_page_get_gen
// in MySQL 5.1 takes buf_pool->mutex for every fix), each followed by work of
// the row or key work on the page. bufPool −1 fixes them under no global
// mutex (MariaDB 10.6 on, see IsSrw: the page_hash cell's latch, shared).
func pageFixes(bufPool int32, n int, work time.Duration) []machine.Op {
	var p []machine.Op
	for range n {
		if bufPool < 0 { // the page_hash cell's latch, shared: no global mutex
			p = append(p, cpu(500*time.Nanosecond+work))
			continue
		}
		p = append(p, lock(bufPool), cpu(500*time.Nanosecond), unlock(bufPool), cpu(work))
	}
	return p
}

// rowChange is what one row change does inside InnoDB 5.1 after its row lock:
// the undo record (trx_undo_report_row_operation: an undo page fixed under
// buf_pool), the change on the page, and the mini-transaction's commit, which
// copies its redo records into the log buffer under log_sys->mutex
// (mtr_commit → log_reserve_and_write_fast). bufPool −1 is MariaDB 10.6 on
// (pageFixes), whose commit holds log_sys's mutex only for lsnReserve.
func rowChange(bufPool, logMutex int32, work time.Duration) []machine.Op {
	p := pageFixes(bufPool, 1, 2*us)
	p = append(p, cpu(work))
	if bufPool < 0 { // MariaDB 10.6 on (IsSrw): only the lsn's reservation is under log_sys's mutex
		return append(p, lock(logMutex), cpu(lsnReserve), unlock(logMutex), cpu(1*us-lsnReserve))
	}
	return append(p, lock(logMutex), cpu(1*us), unlock(logMutex))
}

// lsnReserve is the CPU of log_t::append_prepare's reservation of the
// mini-transaction's bytes (MariaDB 10.6 on: lsn and buf_free advanced under
// log_sys's lsn_lock, or one fetch_add in later releases), a lock apart from
// the log write's (group_commit_lock write_lock and flush_lock); the copy
// into the log buffer (mtr_t::finish_writer, log_t::append) follows outside
// it, under log_sys.latch shared. An estimate of a few loads and stores.
const lsnReserve = 100 * time.Nanosecond

// studyARows is study A's table: sysbench 0.4's sbtest of 10M rows, with
// the special distribution's defaults (1% of the rows get 75% of the picks).
var studyARows = rowlock.Table{Rows: 10_000_000, HotShare: 0.01, HotAccess: 0.75}

// oltpReadWrite is sysbench 0.4's oltp test in its default complex mode,
// read-write (sb_oltp.c get_request_complex, the defaults of
// oltp_read_write.lua in sysbench 0.5 and 1.0 are the same statements), on
// study A's table in MySQL 5.1's InnoDB. Per transaction, each statement one
// client round trip:
//
//	BEGIN
//	10 × SELECT c FROM sbtest WHERE id=?          (the first also starts the trx and opens its read view)
//	SELECT c FROM sbtest WHERE id BETWEEN ? AND ?  (100 rows, sent to the client)
//	SELECT SUM(k) … BETWEEN                        (100 rows read, one sent)
//	SELECT c … BETWEEN … ORDER BY c                (100 rows, sorted, sent)
//	SELECT DISTINCT c … BETWEEN … ORDER BY c       (100 rows, a temporary table)
//	UPDATE sbtest SET k=k+1 WHERE id=?             (row lock, clustered and secondary index)
//	UPDATE sbtest SET c=? WHERE id=?               (row lock, clustered index)
//	UPDATE sbtest SET k=k+1 WHERE id=r             (0.4's extra update of the row deleted next)
//	DELETE FROM sbtest WHERE id=r
//	INSERT INTO sbtest VALUES (r, …)
//	COMMIT                                         (locks released, trx ended, the log written and flushed)
//
// Every id is drawn by rnd_func_special over the table (rowlock.Table); the
// updates' and the delete's row locks are held to the commit (see
// OpRowLock), so transactions that pick the same hot row queue, and a
// deadlock restarts the transaction as sysbench does. CPU per statement:
// parse and optimise 12 µs as oltp_read_only's statement, 5 µs of row work
// per page on the way down (3 pages), 0.3 µs per row of a range, 20 µs for
// the sort, 40 µs for the temporary table; a row change's undo record, page
// change (5–10 µs) and mini-transaction commit under log_sys->mutex. The
// client runs on another host (5 µs round trip, no client CPU here).
//
// On MariaDB 10.6 on (IsSrw) the same statements and CPU take no
// kernel_mutex and no buf_pool mutex: the transaction's start, read view
// (its walk of the other active transactions' lines) and commit are
// lock-free, a page fix latches its page_hash cell shared, a row lock takes
// no global mutex (rowlock.NoMutex) and a mini-transaction's commit holds
// log_sys's lsn_lock, an srw_mutex, only for its lsn's reservation
// (lsnReserve).
func oltpReadWrite() Workload {
	return Workload{
		Name: "oltp_read_write", Unit: "transactions/s",
		Uses: Uses{Gate: true, LogCommit: true, RowLocks: true, RoundTrip: true},
		Rows: studyARows,
		Doc: "sysbench 0.4 oltp, complex mode, read-write (MySQL 5.1 InnoDB, 10M rows, special distribution): " +
			"BEGIN; 10 point selects; simple, sum, order and distinct ranges of 100 rows; an index update, a " +
			"non-index update, an update, delete and insert of one more row; COMMIT. Row locks held to commit " +
			"(lock waits leave the concurrency gate), kernel_mutex for locks, trx and read view, log_sys->mutex " +
			"for every mini-transaction and the commit's log write, group commit's fsync on the device " +
			"(innodb_flush_log_at_trx_commit; 1 needs -device).",
		Setup: func(env Env) []machine.Op {
			srw := IsSrw(env.Server())
			var kernel, bp int32
			if srw { // no kernel_mutex, no buf_pool mutex, no global lock for a row lock (IsSrw)
				kernel, bp = rowlock.NoMutex, -1
			} else {
				mu := innodbMutexes(env, "kernel_mutex", "buf_pool")
				kernel, bp = mu[0], mu[1]
				if g := env.GateMutex(); g >= 0 {
					kernel = g // one mutex for the gate and kernel_mutex (see gate.Install)
				}
			}
			logMu := env.LogMutex()
			if srw { // the lsn's reservation has a lock of its own, not the log write's (lsnReserve)
				logMu = innodbMutexes(env, "log_sys.lsn_lock")[0]
			}
			const rtt = 5 * us
			// a 5.5 server opens and closes the table under LOCK_open in
			// every statement, and takes its MDL ticket in the first (held
			// to the commit), out of the statement's parse budget
			var s55 *server55
			if Is55(env.Server()) {
				s := serverMutexes(env, kernel)
				s55 = &s
			}
			parse := func(first bool) []machine.Op {
				if s55 == nil {
					return []machine.Op{cpu(12 * us)}
				}
				d := 12*us - lockOpenGet - lockOpenPut
				if first {
					d -= mdlMapFind + mdlGrant
				}
				return append([]machine.Op{cpu(d)}, s55.openTable(first)...)
			}
			closeTable := func(b []machine.Op) []machine.Op {
				if s55 == nil {
					return b
				}
				return append(b, s55.closeTable()...)
			}
			var p []machine.Op
			p = append(p, trxStatement(rtt, 3*us, cpu(3*us))...) // BEGIN
			for i := range 10 {
				body := parse(i == 0)
				if i == 0 { // trx_start_low and read_view_open_now, under kernel_mutex
					work, view := 1*us, readView(250*time.Nanosecond)
					if s55 != nil { // the walk's lines at the machine's price; its own in the work
						work, view = 1*us+250*time.Nanosecond, readViewLines(viewLines)
					}
					if srw { // trx_start_low and ReadView::snapshot: rw_trx_hash, lock-free
						body = append(body, trxBegin(), cpu(work+250*time.Nanosecond), readViewLines(viewLines))
					} else {
						body = append(body, lock(kernel), trxBegin(), cpu(work), view, unlock(kernel))
					}
				}
				body = append(body, pageFixes(bp, 3, 5*us)...)
				p = append(p, trxStatement(rtt, 3*us, closeTable(body)...)...)
			}
			rangeBody := func(extra time.Duration) []machine.Op {
				b := parse(false)
				b = append(b, pageFixes(bp, 5, 5*us)...)
				return closeTable(append(b, cpu(30*us+extra)))
			}
			p = append(p, trxStatement(rtt, 10*us, rangeBody(0)...)...)     // simple range: 100 rows sent
			p = append(p, trxStatement(rtt, 3*us, rangeBody(0)...)...)      // sum
			p = append(p, trxStatement(rtt, 10*us, rangeBody(20*us)...)...) // order by: filesort
			p = append(p, trxStatement(rtt, 10*us, rangeBody(40*us)...)...) // distinct: temporary table
			update := func(secondary bool) []machine.Op {
				b := parse(false)
				b = append(b, pageFixes(bp, 3, 5*us)...)
				b = append(b, rowLock(kernel))
				b = append(b, rowChange(bp, logMu, 5*us)...)
				if secondary { // delete-mark the old k and insert the new in index k
					b = append(b, pageFixes(bp, 3, 5*us)...)
					b = append(b, rowChange(bp, logMu, 5*us)...)
				}
				return closeTable(b)
			}
			p = append(p, pickRow())
			p = append(p, trxStatement(rtt, 3*us, update(true)...)...) // index update
			p = append(p, pickRow())
			p = append(p, trxStatement(rtt, 3*us, update(false)...)...) // non-index update
			p = append(p, pickRow())
			p = append(p, trxStatement(rtt, 3*us, update(true)...)...) // the row r's update
			p = append(p, trxStatement(rtt, 3*us, update(true)...)...) // DELETE r: clustered and secondary delete-mark
			p = append(p, trxStatement(rtt, 3*us, update(true)...)...) // INSERT r: clustered and secondary insert
			commit := []machine.Op{cpu(3 * us), lockRelease(kernel), lock(kernel), cpu(1 * us), trxEnd(), unlock(kernel), logCommit()}
			if srw { // trx_t::commit_in_memory: the rw_trx_hash entry erased, lock-free
				commit = []machine.Op{cpu(3 * us), lockRelease(kernel), cpu(1 * us), trxEnd(), logCommit()}
			}
			if s55 != nil { // the MDL ticket released after the commit (release_transactional_locks)
				commit[0] = cpu(3*us - mdlRemove)
				commit = append(commit, s55.releaseMDL()...)
			}
			p = append(p, trxStatement(rtt, 3*us, commit...)...)
			return append(p, done(1))
		},
	}
}

// oltpPointSelect is sysbench 1.0's oltp_point_select.lua (its event runs
// execute_point_selects of oltp_common.lua with point_selects forced to 1):
// per event one SELECT c FROM sbtest1 WHERE id=?, in autocommit, as a
// server-side prepared statement (1.0's --db-ps-mode=auto), on an InnoDB of
// MySQL 5.7 / MariaDB 10.3, which study C ran. Per statement: the client's
// round trip (30 µs), the read of COM_STMT_EXECUTE, 4 µs of dispatch and
// table open/lock (no parse: prepared), the descent through 3 B-tree pages
// under their own page latches (1 µs each: no global buffer-pool mutex in
// these versions; an autocommit read-only transaction takes no trx_sys
// mutex either), 2 µs to fetch the row and build the result, the write of
// the result. CPU-bound once the threads outnumber the cores: two system
// calls and one sleep per 9 µs of CPU. The id's distribution does not matter
// here: nothing is locked.
func oltpPointSelect() Workload {
	return Workload{
		Name: "oltp_point_select", Unit: "queries/s",
		Uses: Uses{Gate: true, RoundTrip: true},
		Doc: "sysbench 1.0 oltp_point_select.lua: one prepared SELECT c FROM sbtest1 WHERE id=? per event, " +
			"autocommit, InnoDB of MySQL 5.7 / MariaDB 10.3: client round trip 30 µs, read, 4 µs dispatch " +
			"and table lock, 3 page fixes of 1 µs under page latches, 2 µs row and result (inside the " +
			"innodb_thread_concurrency gate), write.",
		Setup: func(env Env) []machine.Op {
			if Is55(env.Server()) {
				return pointSelect55(env)
			}
			return statement(30*us, append([]machine.Op{cpu(4 * us)}, inInnoDB(cpu(1*us), cpu(1*us), cpu(1*us), cpu(2*us))...)...)
		},
	}
}

// oltpReadOnlyMariaDB is sysbench 1.0's oltp_read_only.lua (event() of
// oltp_read_only.lua with oltp_common.lua's defaults: point_selects 10,
// range_size 100, range_selects on, skip_trx off, every statement prepared
// on the server: --db-ps-mode=auto) against MariaDB 10.11's InnoDB, the
// server innosim live runs. Per event, each statement one client round trip
// and one query of sysbench's count:
//
//	BEGIN                                          (trans_begin: no InnoDB work yet)
//	10 × SELECT c FROM sbtest WHERE id=?          (the first registers InnoDB in the transaction and opens its read view)
//	SELECT c FROM sbtest WHERE id BETWEEN ? AND ?  (100 rows, sent to the client)
//	SELECT SUM(k) … BETWEEN                        (100 rows read, one sent)
//	SELECT c … BETWEEN … ORDER BY c                (100 rows, sorted, sent)
//	SELECT DISTINCT c … BETWEEN … ORDER BY c       (100 rows, a temporary table)
//	COMMIT                                         (the read view closed)
//
// Unlike MySQL 5.1's InnoDB (oltpReadOnly) no global mutex is on this path:
// the read view's snapshot copies the ids of the read-write transactions
// from trx_sys.rw_trx_hash, a lock-free hash (ReadViewBase::snapshot →
// trx_sys.snapshot_ids in read0read.cc), and a read-only transaction is not
// in it; a page fix looks the page up under its page_hash cell's latch,
// shared (buf_page_get_gen), not under a buffer-pool mutex. The
// transaction is active for the thread pool (get_priority in
// threadpool_common.cc: THD's transaction->is_active(), true once InnoDB
// registered in it) from the first SELECT to the COMMIT: OpTrxBegin and
// OpTrxEnd. CPU per SELECT, as oltpPointSelect's and oltpReadWrite's: 4 µs
// of dispatch (prepared: no parse), 1 µs per page of the descent (3 pages),
// 2 µs for a point select's row and result, 1 µs more in the first for the
// read view; a range's 100 rows at 0.3 µs each, 20 µs for the sort and
// 40 µs for the temporary table. BEGIN and COMMIT take 2 and 3 µs in all. A statement that sends 100 rows writes 10 µs of
// kernel work, the others 3 µs. The client's round trip is 30 µs
// (oltpPointSelect's); innosim live's client on the machine replaces it.
func oltpReadOnlyMariaDB() Workload {
	return Workload{
		Name: "oltp_read_only_mariadb", Unit: "queries/s",
		Uses: Uses{Gate: true, RoundTrip: true},
		Doc: "sysbench 1.0 oltp_read_only.lua against MariaDB 10.11, every statement prepared and one query: BEGIN; " +
			"10 point selects (the first opens the read view: lock-free, no trx_sys mutex); simple, sum, order " +
			"and distinct ranges of 100 rows; COMMIT. Page fixes under page_hash latches, no global mutex. " +
			"4 µs dispatch, 1 µs a page, 0.3 µs a range row, 20 µs sort, 40 µs temporary table; client round trip 30 µs.",
		Setup: func(env Env) []machine.Op {
			const rtt = 30 * us
			stmt := func(send time.Duration, body ...machine.Op) []machine.Op {
				p := []machine.Op{sleep(rtt), sockCall(2 * us)}
				p = append(p, body...)
				return append(p, sockCall(send), done(1))
			}
			descent := func(rows time.Duration) []machine.Op { // 3 pages, then the rows' work
				return inInnoDB(cpu(1*us), cpu(1*us), cpu(1*us), cpu(rows))
			}
			var p []machine.Op
			p = append(p, stmt(3*us, cpu(2*us))...) // BEGIN
			for i := range 10 {
				body := []machine.Op{cpu(4 * us)}
				if i == 0 { // trx_start_if_not_started, ReadView::open
					body = append(body, trxBegin(), cpu(1*us))
				}
				body = append(body, descent(2*us)...)
				p = append(p, stmt(3*us, body...)...)
			}
			rangeSelect := func(send, extra time.Duration) []machine.Op {
				body := append([]machine.Op{cpu(4 * us)}, descent(30*us)...)
				if extra > 0 {
					body = append(body, cpu(extra))
				}
				return stmt(send, body...)
			}
			p = append(p, rangeSelect(10*us, 0)...)     // simple range: 100 rows sent
			p = append(p, rangeSelect(3*us, 0)...)      // sum: one row sent
			p = append(p, rangeSelect(10*us, 20*us)...) // order by: filesort
			p = append(p, rangeSelect(10*us, 40*us)...) // distinct: temporary table
			return append(p, stmt(3*us, cpu(3*us), trxEnd())...)
		},
	}
}

// Sizes of sysbench 1.0's sbtest (oltp_common.lua's create_table: id INTEGER
// AUTO_INCREMENT primary key, k INTEGER, c CHAR(120), pad CHAR(60), index
// k_1 on k) in InnoDB's compact format on 16 KiB pages, for
// oltpInsertAutoInc. A clustered leaf record is 4 + 4 + 120 + 60 bytes of
// columns, 6 of DB_TRX_ID, 7 of DB_ROLL_PTR, 5 of record header and 2
// length bytes (CHAR in utf8mb4, MySQL 8.0's default character set, is
// variable-length; sysbench's c and pad are ASCII): 208 bytes. A leaf has
// 16,384 − 38 (FIL header) − 56 (page header) − 26 (infimum, supremum) − 8
// (FIL trailer) = 16,256 bytes for records and directory (a slot of 2 bytes
// per 4 to 8 records), so about 77 records: an insert at the right edge
// (btr_page_get_split_rec_to_right moves only the new record to the new
// page) splits once per 77 rows.
const autoIncRowsPerLeaf = 77

// oltpInsertAutoInc is sysbench 1.0's oltp_insert.lua with --auto_inc=on and
// --tables=1 on MySQL 8.0 (MySQL bug 111102's load): per event one
// INSERT INTO sbtest1 (id, k, c, pad) VALUES (0, k, c, pad) in autocommit,
// sent as a plain query (con:query, no prepared statement), with id 0 taking
// the next auto-increment value and k drawn uniformly over the table size.
// Every thread inserts at the right edge of one clustered index, under the
// x-latch of its last leaf (row_ins_clust_index_entry_low with
// BTR_MODIFY_LEAF: btr_cur_optimistic_insert with the leaf latched in the
// mini-transaction). One row in autoIncRowsPerLeaf does not fit:
// btr_cur_optimistic_insert calls btr_cur_prefetch_siblings before it
// returns DB_FAIL, with the leaf still latched; the leaf's FIL_PAGE_PREV is
// the leaf filled before it, touched a leaf ago and so resident (no read),
// and FIL_PAGE_NEXT is FIL_NULL, but a sibling exists, so
// os_aio_simulated_wake_handler_threads runs (under simulated AIO every
// segment's array mutex and slot scan; nothing under native AIO). Then the
// latch is released and btr_cur_pessimistic_insert splits the leaf
// (btr_page_split_and_insert), the new right edge latched again.
//
// Writes: k is random over 2e9 rows, so index k_1's leaves (13-byte entries,
// 69% full under random inserts: about 2.4M leaves) outnumber the default
// buffer pool's 8,192 frames by far, and each row dirties a leaf no other
// dirty page shares (OpDirty 1, whether the entry goes straight to the leaf
// or through the change buffer and its merge); each filled clustered leaf is
// written once (OpDirty 1 per split). Each such page takes a frame of the
// buffer pool first, the split's under the right-edge latch
// (buf_LRU_get_free_block, see flushList: with none replaceable the thread
// flushes a page itself, synchronously through the doublewrite). The page
// cleaner (flushList) writes them a doublewrite batch at a time through the
// write array. The reads of index k_1's leaves (the change
// buffer's merges) and k_1's own splits (one per about 840 rows) are not
// modelled, nor the redo log's flush at commit
// (innodb_flush_log_at_trx_commit), which is the same under either AIO.
//
// CPU per row: a 30 µs client round trip (sysbench 1.0's, as
// oltp_point_select), the packet's read, 12 µs of parse and optimise (a
// query, as oltp_read_only's), 4 µs of trx start, auto-increment and the
// descent, 3 µs of record insert, undo record and redo under the right-edge
// latch, 5 µs for index k_1's entry under its own leaf's latch, 2 µs of
// commit, the reply's write; 20 µs for a split (page allocation and the
// move, under the new right edge's latch). All in the
// innodb_thread_concurrency gate but the parse.
func oltpInsertAutoInc() Workload {
	return Workload{
		Name: "oltp_insert_auto_inc", Unit: "queries/s",
		Uses: Uses{Gate: true, AIO: true, Dirties: true, BufferPool: true, RoundTrip: true},
		Doc: "sysbench 1.0 oltp_insert.lua --auto_inc=on --tables=1 on MySQL 8.0: one autocommit INSERT per event, " +
			"all threads at the right edge of one clustered index under its last leaf's latch (3 µs of row work); " +
			"one row in 77 splits the leaf: btr_cur_prefetch_siblings under the latch (a resident sibling, then " +
			"os_aio_simulated_wake_handler_threads: every segment's array mutex and slot scan), then a 20 µs split. " +
			"Every row dirties one page of index k (random k over 2e9 rows), every split one more, each taking a " +
			"frame of the buffer pool first (buf_LRU_get_free_block: with none free or clean, the thread flushes a " +
			"page itself through the doublewrite, two pwrites and two fsyncs); a page cleaner writes them through " +
			"the doublewrite file (a pwrite and an fsync per innodb_doublewrite_pages pages) and the write array " +
			"(up to 1,024 per round, then one wake). 30 µs round trip, 12 µs parse, 11 µs more of InnoDB CPU.",
		Setup: func(env Env) []machine.Op {
			edge := innodbMutexes(env, "right_edge_leaf")[0]
			body := []machine.Op{
				cpu(4 * us), lock(edge), cpu(3 * us),
				withProb(1.0/autoIncRowsPerLeaf, 5), // the row fits: skip to the unlock
				prefetchResidentSibling(),
				unlock(edge), lock(edge), cpu(20 * us), // btr_cur_pessimistic_insert: the split
				dirty(1), // the filled leaf
				unlock(edge),
				cpu(5 * us), dirty(1), // index k_1's entry and its leaf
				cpu(2 * us),
			}
			return statement(30*us, append([]machine.Op{cpu(12 * us)}, inInnoDB(body...)...)...)
		},
	}
}
