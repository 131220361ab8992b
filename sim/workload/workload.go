package workload

import (
	"fmt"
	"sort"
	"time"

	"github.com/innosim/innosim/mycnf"
	"github.com/innosim/innosim/prio"
	"github.com/innosim/innosim/sim/machine"
	"github.com/innosim/innosim/sim/rowlock"
)

// Workload is a sysbench-like load: a documented per-query sequence of CPU bursts,
// lock acquisitions, system calls, sleeps (the client's side) and I/O requests
// that every client thread runs in a loop. Setup adds the mutexes the sequence
// uses to the machine and returns the sequence; Unit names what OpDone counts;
// Uses declares what the sequence needs of a cell.
type Workload struct {
	// Name is the sysbench-style name ("oltp_read_only").
	Name string
	// Unit names what OpDone counts, per second ("queries/s").
	Unit string
	// Doc describes the per-loop sequence and its costs.
	Doc string
	// Uses is what the sequence drives and waits for: a cell reads it to
	// know which of its settings the workload takes (its gate, AIO array,
	// log setting, buffer pool, device, client) without building a machine.
	Uses Uses
	// Rows is the table its row locks are taken on (Uses.RowLocks).
	Rows rowlock.Table
	// Setup adds the workload's mutexes through env and returns the program
	// every client thread runs (shared, read-only).
	Setup func(env Env) []machine.Op
}

const us = time.Microsecond

// Uses declares what a workload's program drives and waits for, as data: the
// ops it holds decide it, and a test holds each built-in workload's
// declaration to its program.
type Uses struct {
	// Gate: the program enters InnoDB's concurrency gate (OpGateEnter), so
	// a Cell's Gate (innodb_thread_concurrency) changes it.
	Gate bool
	// AIO: the program submits asynchronous I/O through an AIO array
	// (OpPrefetch, OpPrefetchSiblings, or pages a page cleaner writes), so a
	// Cell's AIO (innodb_read_io_threads, innodb_write_io_threads,
	// innodb_use_native_aio) changes it.
	AIO bool
	// ReadAhead: some of its AIO reads go to the device (OpPrefetch, a
	// sibling prefetch that may miss the buffer pool).
	ReadAhead bool
	// Dirties: the program dirties pages (OpDirty) that a page cleaner
	// writes through the AIO array and the doublewrite file.
	Dirties bool
	// BufferPool: the program reads innodb_buffer_pool_size (a sibling
	// prefetch that looks in the pool, pages that take its frames).
	BufferPool bool
	// LogCommit: the program commits through the redo log (OpLogCommit), so
	// innodb_flush_log_at_trx_commit changes it and 1 waits for an fsync.
	LogCommit bool
	// RowLocks: the program locks rows (OpRowLock) of its row table
	// (Workload.Rows).
	RowLocks bool
	// Reads, Writes and Fsyncs: the program waits for a synchronous page
	// read, write or fsync on the device (OpRead, OpWrite, OpFsync).
	Reads, Writes, Fsyncs bool
	// RoundTrip: the program waits for its client (an OpSleep of
	// SleepClient or SleepLast), which Cell.Client can put on the machine.
	RoundTrip bool
	// Think is the program's own pause between units (an OpSleep of
	// SleepThink, whose threads are the load: no client), 0 if none.
	Think time.Duration
}

// An Env is what a workload's Setup is given: where its mutexes go, and the
// mutexes of the mechanisms a cell installed for it.
type Env interface {
	// AddMutex adds a mutex of the workload's own and returns its index
	// for OpLock and OpUnlock (Machine.AddMutex).
	AddMutex(mu machine.Mutex) int32
	// GateMutex returns the Queue gate's mutex, which MySQL 5.0 and 5.1's
	// InnoDB take as kernel_mutex too (gate.Install), or −1.
	GateMutex() int32
	// LogMutex returns log_sys->mutex of the redo log of a workload that
	// commits through it (Uses.LogCommit), installing the log on first use.
	LogMutex() int32
	// Server is the server release the cell models (Cell.Server): a 5.5
	// server's statements take its global mutexes (Is55); the zero value
	// runs the workloads' own programs.
	Server() mycnf.Server
}

// All returns the built-in workloads, by name.
func All() map[string]Workload {
	ws := []Workload{oltpReadOnly(), oltpReadWrite(), oltpPointSelect(), oltpReadOnlyMariaDB(), connectWorkload(), oltpInsert(), bulkInsert(), oltpInsertAutoInc(), slapSelect()}
	ws = append(ws, fieldWorkloads()...)
	out := make(map[string]Workload, len(ws))
	for _, w := range ws {
		out[w.Name] = w
	}
	return out
}

// Names returns the built-in workload names, sorted.
func Names() []string {
	var n []string
	for k := range All() {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

// Lookup returns the built-in workload called name.
func Lookup(name string) (Workload, error) {
	if w, ok := All()[name]; ok {
		return w, nil
	}
	return Workload{}, fmt.Errorf("sim: workload %q, want one of %v: %w", name, Names(), machine.ErrInvalidConfig)
}

// statement wraps a statement body in what every statement of a client
// connection does: wait for the client (rtt), read the packet (vio_read: a
// recv on the open socket), raise the thread's priority to Query (a system
// call only with priorities on), run, lower it to Wait, write the result
// (vio_write: a send), count one unit.
func statement(rtt time.Duration, body ...machine.Op) []machine.Op {
	p := []machine.Op{sleep(rtt), sockCall(2 * us), setPrio(int32(prio.Query))}
	p = append(p, body...)
	return append(p, setPrio(int32(prio.Wait)), sockCall(3*us), done(1))
}

// readOnlyBody is one sysbench oltp_read_only statement inside InnoDB (MySQL
// 5.1): parse and optimise; start the transaction and open a read view under
// kernel_mutex, copying the id of every active transaction (250 ns each, as
// read_view_open_now walks trx_sys->trx_list); fix three pages under the
// buffer-pool mutex and read rows; commit and close the read view under
// kernel_mutex.
func readOnlyBody(kernel, bufPool int32) []machine.Op {
	return []machine.Op{
		cpu(12 * us),
		lock(kernel), trxBegin(), cpu(1 * us), readView(250 * time.Nanosecond), unlock(kernel),
		lock(bufPool), cpu(500 * time.Nanosecond), unlock(bufPool), cpu(5 * us),
		lock(bufPool), cpu(500 * time.Nanosecond), unlock(bufPool), cpu(5 * us),
		lock(bufPool), cpu(500 * time.Nanosecond), unlock(bufPool), cpu(5 * us),
		lock(kernel), cpu(1 * us), trxEnd(), unlock(kernel),
	}
}

// inInnoDB wraps body, a statement's work after parsing, in the
// innodb_thread_concurrency gate, entered and left once per handler call as
// ha_innodb.cc does around row_search_for_mysql and row_insert_for_mysql
// (innodb_srv_conc_enter_innodb / innodb_srv_conc_exit_innodb; a thread with
// tickets left passes without waiting). Without a gate the two ops cost
// nothing.
func inInnoDB(body ...machine.Op) []machine.Op {
	p := append([]machine.Op{{Kind: machine.OpGateEnter}}, body...)
	return append(p, machine.Op{Kind: machine.OpGateExit})
}

func innodbMutexes(env Env, names ...string) []int32 {
	var ids []int32
	for _, n := range names {
		// MariaDB 10.6 on: srw_mutex, waiting without a yield, its release waking one waiter
		srw := IsSrw(env.Server())
		ids = append(ids, env.AddMutex(machine.Mutex{Name: n, Spin: true, WakeAll: !srw, NoYield: srw}))
	}
	return ids
}

func oltpReadOnly() Workload {
	return Workload{
		Name: "oltp_read_only", Unit: "queries/s",
		Uses: Uses{Gate: true, RoundTrip: true},
		Doc: "sysbench oltp_read_only against MySQL 5.1's InnoDB (study A; against MariaDB 10.11 see " +
			"oltp_read_only_mariadb) on an in-memory table, one statement per loop: client round trip 5 µs, " +
			"read, priority to Query, parse 12 µs, transaction start and read view under kernel_mutex (250 ns " +
			"per active transaction), 3 page fixes under the buf_pool mutex with 5 µs of row work each, " +
			"commit under kernel_mutex, priority to Wait, write; all but the parse inside the " +
			"innodb_thread_concurrency gate.",
		Setup: func(env Env) []machine.Op {
			mu := innodbMutexes(env, "kernel_mutex", "buf_pool")
			return statement(5*us, inInnoDB(readOnlyBody(mu[0], mu[1])...)...)
		},
	}
}

// connectWorkload is MariaDB 10.3's one-thread-per-connection path with the
// thread cache (sql/mysqld.cc, sql/sql_connect.cc). Each system call has the
// kind of the kernel path it takes (SyscallKind):
//
//	listener, handle_connections_sockets: accept4 (setup); vio_new's fcntl and
//	  vio_keepalive/vio_fastsend's setsockopt ×2 (other)
//	create_new_thread → create_thread_to_handle_connection: a cached thread is
//	  signalled under LOCK_thread_cache (a futex wake: other)
//	handle_one_connection → check_connection: vio_peer_addr's getpeername
//	  (other), the greeting's vio_write (socket)
//	acl_authenticate: the handshake response's vio_read, the OK's vio_write
//	  (socket)
//	do_command SELECT 1: vio_read, vio_write (socket); COM_QUIT: vio_read
//	  (socket)
//	close_connection → vio_close: shutdown and close (setup)
//	one_thread_per_connection_end → cache_thread: THD cleanup and the wait
//	  on COND_thread_cache under LOCK_thread_cache (futex calls: other)
//
// A new connection always finds a cached thread here (thread_cache_size
// defaults to 151 from MariaDB 10.2 on, 0 before), so no connection creates
// a thread: no clone, mmap or set_robust_list.
//
// Of the five waits, the cached thread's wake waits for the listener
// (SleepServer) and the client reads no reply to COM_QUIT (SleepLast:
// libmariadb's mysql_close sends it and closes the socket), so with the
// client on the machine a connection is three of the client's blocking
// reads: the greeting and the OK (mysql_real_connect), SELECT 1's result.
func connectWorkload() Workload {
	return Workload{
		Name: "connect", Unit: "connections/s",
		Uses: Uses{RoundTrip: true},
		Doc: "connect; SELECT 1; disconnect, with the thread cache: the listener accepts (accept4, " +
			"fcntl, setsockopt), wakes a cached thread (LOCK_thread_cache, futex), which sends the " +
			"greeting, reads the handshake response (40 µs round trip), checks the password (8 µs), " +
			"answers, reads and runs SELECT 1 (30 µs round trip, 6 µs), reads COM_QUIT, closes and " +
			"goes back to the cache. 18 system calls (accept4, shutdown and close are the connection's " +
			"setup and teardown), 5 sleeps (context switches) and 26 µs of user CPU per connection.",
		Setup: func(env Env) []machine.Op {
			cache := env.AddMutex(machine.Mutex{Name: "LOCK_thread_cache", Spin: false})
			return []machine.Op{
				sleep(50 * us),                                        // client connects (TCP handshake)
				setupCall(1 * us), syscall(0), syscall(0), syscall(0), // accept4, fcntl, setsockopt ×2
				lock(cache), cpu(1 * us), unlock(cache), syscall(0), // hand over to a cached thread
				sleepFor(5*us, machine.SleepServer),       // the cached thread wakes (a switch)
				syscall(2 * us), sockCall(0), cpu(4 * us), // getpeername, greeting: write
				sleep(40 * us), sockCall(2 * us), cpu(8 * us), sockCall(2 * us), // handshake response, auth, OK
				sleep(30 * us), sockCall(2 * us), cpu(6 * us), sockCall(2 * us), // SELECT 1
				sleepFor(20*us, machine.SleepLast), sockCall(1 * us), setupCall(0), setupCall(0), // COM_QUIT (no reply), shutdown, close
				cpu(4 * us), syscall(0), syscall(0), syscall(0), syscall(0), // THD cleanup, back to the cache
				lock(cache), cpu(1 * us), unlock(cache), cpu(2 * us),
				done(1),
			}
		},
	}
}

func oltpInsert() Workload {
	return Workload{
		Name: "oltp_insert", Unit: "rows/s",
		Uses: Uses{Gate: true, AIO: true, ReadAhead: true, RoundTrip: true},
		Doc: "sysbench prepare's bulk insert: per row 40 µs of CPU (its leaf's page latch is " +
			"contended by nobody else, one table per thread, and is not modelled); one row in 20 fills " +
			"its leaf and splits it, and the split prefetches one or two sibling pages " +
			"(btr_cur_prefetch_siblings: a simulated-AIO read each, not waited for, every sibling read " +
			"as if none were in the buffer pool: study D's calibration; bulk_insert looks in the pool). " +
			"The client sends the next batch, a 30 µs round trip per 10 rows. Each row enters and " +
			"leaves the innodb_thread_concurrency gate.",
		Setup: func(env Env) []machine.Op {
			return insertBatch(
				withProb(0.05, 4), // no split: skip the next 4 ops
				withProb(0.5, 2),  // a split: one sibling, else two
				prefetch(1),
				withProb(0, 1), // skip the two-page prefetch
				prefetch(2),
			)
		},
	}
}

// bulkInsert is oltp_insert with the sibling prefetch of MySQL 5.7 and 8.0
// as the source has it (OpPrefetchSiblings): sysbench 1.0's prepare
// (oltp_common.lua) loads each table in primary-key order and builds the
// secondary index after the load, so a split leaf is its table's rightmost,
// its one sibling is read only if the buffer pool (innodb_buffer_pool_size)
// no longer holds it, and simulated AIO wakes the handlers once per split.
// Same costs as oltp_insert.
func bulkInsert() Workload {
	return Workload{
		Name: "bulk_insert", Unit: "rows/s",
		Uses: Uses{Gate: true, AIO: true, ReadAhead: true, BufferPool: true, RoundTrip: true},
		Doc: "sysbench 1.0 prepare's bulk insert on MySQL 5.7/8.0: oltp_insert's rows (40 µs of CPU each, " +
			"one in 20 splits its leaf, a 30 µs round trip per 10 rows), but the split prefetches the " +
			"rightmost leaf's one sibling only when it is not in the buffer pool (buf_read_page_low), and " +
			"then wakes the simulated-AIO handlers once (os_aio_simulated_wake_handler_threads: per segment, " +
			"the array mutex, a scan of its slots, the event only if one is reserved). Each row enters and leaves " +
			"the innodb_thread_concurrency gate.",
		Setup: func(env Env) []machine.Op {
			return insertBatch(
				withProb(0.05, 1), // no split: skip the prefetch
				prefetchSiblings(),
			)
		},
	}
}

// insertBatch is the bulk inserts' program: the client's next batch (a 30 µs
// round trip and its vio_read), then 10 rows, each 40 µs of CPU and then
// split (the leaf split and its prefetch, in the row's ops) inside the gate
// (write_row → row_insert_for_mysql), counted once.
func insertBatch(split ...machine.Op) []machine.Op {
	row := inInnoDB(append([]machine.Op{cpu(40 * us)}, split...)...)
	row = append(row, done(1))
	p := []machine.Op{sleep(30 * us), sockCall(2 * us)}
	for range 10 {
		p = append(p, row...)
	}
	return p
}

func slapSelect() Workload {
	return Workload{
		Name: "slap_select", Unit: "queries/s",
		Uses: Uses{Gate: true, RoundTrip: true},
		Doc: "mysqlslap's SELECT on a small in-memory InnoDB table (MySQL 5.0): client round trip " +
			"20 µs, read, parse 4 µs, enter InnoDB (the innodb_thread_concurrency gate, whose mutex " +
			"is kernel_mutex), start the transaction and open a read view under kernel_mutex (1 µs), " +
			"8 µs of rows with two page fixes under buf_pool, close the read view and commit under " +
			"kernel_mutex (1 µs), leave InnoDB, write.",
		Setup: func(env Env) []machine.Op {
			mu := innodbMutexes(env, "kernel_mutex", "buf_pool")
			if g := env.GateMutex(); g >= 0 {
				mu[0] = g // one mutex for the gate and kernel_mutex (see gate.Install)
			}
			return []machine.Op{
				sleep(20 * us), sockCall(2 * us), cpu(4 * us),
				{Kind: machine.OpGateEnter},
				lock(mu[0]), cpu(1 * us), unlock(mu[0]),
				cpu(4 * us), lock(mu[1]), cpu(300 * time.Nanosecond), unlock(mu[1]),
				cpu(4 * us), lock(mu[1]), cpu(300 * time.Nanosecond), unlock(mu[1]),
				lock(mu[0]), cpu(1 * us), unlock(mu[0]),
				{Kind: machine.OpGateExit},
				sockCall(3 * us), done(1),
			}
		},
	}
}
