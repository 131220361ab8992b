package sim

import (
	"time"

	"github.com/innosim/innosim/prio"
)

// A statement of a client's transaction: wait for the client (rtt), read the
// packet (vio_read: a recv on the open socket), raise the priority to Query (MySQL 5.1's thread priorities), enter
// InnoDB's concurrency gate, run body, leave the gate, lower the priority to
// Wait and write the result (vio_write: a send of sendWork kernel work, more
// for a statement that returns many rows). It counts nothing: the transaction's
// COMMIT does.
func trxStatement(rtt, sendWork time.Duration, body ...Op) []Op {
	p := []Op{sleep(rtt), sockCall(2 * us), setPrio(int32(prio.Query)), {Kind: OpGateEnter}}
	p = append(p, body...)
	return append(p, Op{Kind: OpGateExit}, setPrio(int32(prio.Wait)), sockCall(sendWork))
}

// pageFixes fixes n B-tree pages under the buf_pool mutex (buf_page_get_gen
// in MySQL 5.1 takes buf_pool->mutex for every fix), each followed by work of
// the row or key work on the page.
func pageFixes(bufPool int32, n int, work time.Duration) []Op {
	var p []Op
	for range n {
		p = append(p, lock(bufPool), cpu(500*time.Nanosecond), unlock(bufPool), cpu(work))
	}
	return p
}

// rowChange is what one row change does inside InnoDB 5.1 after its row lock:
// the undo record (trx_undo_report_row_operation: an undo page fixed under
// buf_pool), the change on the page, and the mini-transaction's commit, which
// copies its redo records into the log buffer under log_sys->mutex
// (mtr_commit → log_reserve_and_write_fast).
func rowChange(bufPool, logMutex int32, work time.Duration) []Op {
	p := pageFixes(bufPool, 1, 2*us)
	p = append(p, cpu(work))
	return append(p, lock(logMutex), cpu(1*us), unlock(logMutex))
}

// studyARows is study A's table: sysbench 0.4's sbtest of 10M rows, with
// the special distribution's defaults (1% of the rows get 75% of the picks).
var studyARows = RowTable{Rows: 10_000_000, HotShare: 0.01, HotAccess: 0.75}

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
// Every id is drawn by rnd_func_special over the table (RowTable); the
// updates' and the delete's row locks are held to the commit (see
// OpRowLock), so transactions that pick the same hot row queue, and a
// deadlock restarts the transaction as sysbench does. CPU per statement:
// parse and optimise 12 µs as oltp_read_only's statement, 5 µs of row work
// per page on the way down (3 pages), 0.3 µs per row of a range, 20 µs for
// the sort, 40 µs for the temporary table; a row change's undo record, page
// change (5–10 µs) and mini-transaction commit under log_sys->mutex. The
// client runs on another host (5 µs round trip, no client CPU here).
func oltpReadWrite() Workload {
	return Workload{
		Name: "oltp_read_write", Unit: "transactions/s",
		Doc: "sysbench 0.4 oltp, complex mode, read-write (MySQL 5.1 InnoDB, 10M rows, special distribution): " +
			"BEGIN; 10 point selects; simple, sum, order and distinct ranges of 100 rows; an index update, a " +
			"non-index update, an update, delete and insert of one more row; COMMIT. Row locks held to commit " +
			"(lock waits leave the concurrency gate), kernel_mutex for locks, trx and read view, log_sys->mutex " +
			"for every mini-transaction and the commit's log write, group commit's fsync on the device " +
			"(innodb_flush_log_at_trx_commit; 1 needs -device).",
		Setup: func(m *Machine) []Op {
			mu := innodbMutexes(m, "kernel_mutex", "buf_pool")
			kernel, bp := mu[0], mu[1]
			if m.gate != nil && m.gate.mutex >= 0 {
				kernel = m.gate.mutex // one mutex for the gate and kernel_mutex (see SetGate)
			}
			logMu := m.addLog()
			m.installRows(studyARows)
			const rtt = 5 * us
			var p []Op
			p = append(p, trxStatement(rtt, 3*us, cpu(3*us))...) // BEGIN
			for i := range 10 {
				body := []Op{cpu(12 * us)}
				if i == 0 { // trx_start_low and read_view_open_now, under kernel_mutex
					body = append(body, lock(kernel), trxBegin(), cpu(1*us), readView(250*time.Nanosecond), unlock(kernel))
				}
				body = append(body, pageFixes(bp, 3, 5*us)...)
				p = append(p, trxStatement(rtt, 3*us, body...)...)
			}
			rangeBody := func(extra time.Duration) []Op {
				b := []Op{cpu(12 * us)}
				b = append(b, pageFixes(bp, 5, 5*us)...)
				return append(b, cpu(30*us+extra))
			}
			p = append(p, trxStatement(rtt, 10*us, rangeBody(0)...)...)     // simple range: 100 rows sent
			p = append(p, trxStatement(rtt, 3*us, rangeBody(0)...)...)      // sum
			p = append(p, trxStatement(rtt, 10*us, rangeBody(20*us)...)...) // order by: filesort
			p = append(p, trxStatement(rtt, 10*us, rangeBody(40*us)...)...) // distinct: temporary table
			update := func(secondary bool) []Op {
				b := []Op{cpu(12 * us)}
				b = append(b, pageFixes(bp, 3, 5*us)...)
				b = append(b, rowLock(kernel))
				b = append(b, rowChange(bp, logMu, 5*us)...)
				if secondary { // delete-mark the old k and insert the new in index k
					b = append(b, pageFixes(bp, 3, 5*us)...)
					b = append(b, rowChange(bp, logMu, 5*us)...)
				}
				return b
			}
			p = append(p, pickRow())
			p = append(p, trxStatement(rtt, 3*us, update(true)...)...) // index update
			p = append(p, pickRow())
			p = append(p, trxStatement(rtt, 3*us, update(false)...)...) // non-index update
			p = append(p, pickRow())
			p = append(p, trxStatement(rtt, 3*us, update(true)...)...) // the row r's update
			p = append(p, trxStatement(rtt, 3*us, update(true)...)...) // DELETE r: clustered and secondary delete-mark
			p = append(p, trxStatement(rtt, 3*us, update(true)...)...) // INSERT r: clustered and secondary insert
			commit := []Op{cpu(3 * us), lockRelease(kernel), lock(kernel), cpu(1 * us), trxEnd(), unlock(kernel), logCommit()}
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
		Doc: "sysbench 1.0 oltp_point_select.lua: one prepared SELECT c FROM sbtest1 WHERE id=? per event, " +
			"autocommit, InnoDB of MySQL 5.7 / MariaDB 10.3: client round trip 30 µs, read, 4 µs dispatch " +
			"and table lock, 3 page fixes of 1 µs under page latches, 2 µs row and result (inside the " +
			"innodb_thread_concurrency gate), write.",
		Setup: func(m *Machine) []Op {
			return statement(30*us, append([]Op{cpu(4 * us)}, inInnoDB(cpu(1*us), cpu(1*us), cpu(1*us), cpu(2*us))...)...)
		},
	}
}
