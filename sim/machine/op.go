package machine

import (
	"fmt"
	"time"

	"github.com/innosim/innosim/prio"
)

// OpKind is one step of a simulated thread's program.
type OpKind uint8

// The steps a workload's per-query sequence is made of. Durations are drawn
// uniformly in [0.5, 1.5) × Dur from the machine's random source.
const (
	// OpCPU runs Dur of user-mode CPU.
	OpCPU OpKind = iota
	// OpSyscall enters the kernel: the profile's cost of a call of kind
	// SyscallKind(Arg) (CostProfile.SyscallCost) plus Dur of kernel work.
	OpSyscall
	// OpSleep blocks for Dur (waiting for the client or the network); the wake is a
	// return from sleep for the scheduler. Arg says whom the wait is for
	// (SleepClient, SleepServer, SleepLast, SleepThink), which only
	// ServerProgram and Cell's check of a Client read.
	OpSleep
	// OpLock acquires InnoDB mutex Arg: spin, then wait (see Mutex).
	OpLock
	// OpUnlock releases InnoDB mutex Arg and wakes its waiters.
	OpUnlock
	// OpSetPrio changes the thread's priority hint to prio.Hint(Arg), as MySQL 5.1's
	// my_pthread_setprio around each query; a system call when the machine applies
	// priorities, nothing otherwise.
	OpSetPrio
	// OpDone counts one completed unit (query, transaction, connection, row) for
	// throughput; Arg is the number of units.
	OpDone
	// OpGateEnter asks the concurrency gate for a seat (innodb_thread_concurrency).
	OpGateEnter
	// OpGateExit gives the seat back at the end of a statement.
	OpGateExit
	// OpPrefetch submits Arg asynchronous page reads (a leaf split's sibling
	// prefetch) to the AIO array, without waiting for them.
	OpPrefetch
	// OpSplit continues with the next op with probability Dur/1e9 (Dur is a
	// probability in parts per billion), else skips Arg ops.
	OpSplit
	// OpTrxBegin starts a transaction: the machine's count of active
	// transactions (trx_sys->trx_list) grows by one.
	OpTrxBegin
	// OpTrxEnd commits it: the count shrinks by one.
	OpTrxEnd
	// OpReadView runs Dur of CPU per active transaction, as read_view_open_now
	// copying every active transaction id in MySQL 5.0/5.1 (under kernel_mutex);
	// with Arg > 0, also Arg cache lines of every other active transaction
	// moved to the thread's core from the socket that transaction began on
	// (CostProfile.LineTransfer, LineTransferRemote), as the walk of
	// trx_sys->trx_list reads what each owner wrote.
	OpReadView
	// OpAIOHandler is the whole loop of the handler thread of the simulated-AIO
	// array's segment Arg (see aiosim.Install, which adds these threads); it
	// never returns.
	OpAIOHandler
	// OpRead reads a page and waits for it, as a buffer-pool miss does
	// (buf_read_page → fil_io with sync = true → os_file_read: pread): a
	// system call of Dur kernel work, then blocked until the device
	// (device.Install) completes the read.
	OpRead
	// OpWrite writes a page and waits for it (os_file_write: pwrite), as OpRead.
	OpWrite
	// OpFsync flushes the file and waits for it (os_file_flush: fsync), as
	// OpRead.
	OpFsync
	// OpPickRow draws the row id the next OpRowLock locks, from the table
	// the workload installed with rowlock.Install (sysbench's
	// GET_RANDOM_ID on the client); it takes no time.
	OpPickRow
	// OpRowLock takes an exclusive row lock on the picked row, held to
	// commit, under InnoDB mutex Arg (kernel_mutex), with Dur of CPU under
	// it; a lock held by another transaction is waited for, outside the
	// concurrency gate, and a deadlock rolls the transaction back to the
	// program's first op (see Machine.rowLock). The program must be one
	// transaction from its first op.
	OpRowLock
	// OpLockRelease releases every row lock of the transaction under InnoDB
	// mutex Arg (kernel_mutex), Dur of CPU per lock, and wakes the threads
	// granted a row (lock_release_off_kernel at commit).
	OpLockRelease
	// OpLogCommit writes the transaction's commit record into the redo log
	// and, by innodb_flush_log_at_trx_commit (redolog.Install), writes and
	// fsyncs the log with group commit (log_write_up_to; see
	// Machine.logCommit). With 1 (the default) it needs a device.
	OpLogCommit
	// OpPrefetchSiblings is a leaf split's btr_cur_prefetch_siblings in a
	// bulk insert (MySQL 5.7 and 8.0): the split leaf's one sibling is read
	// through the AIO array only when it is not in the buffer pool (see
	// bufPool; every sibling is read on a machine without one), without a
	// wake per read (IORequest::DO_NOT_WAKE), and then simulated AIO wakes
	// the handlers once for the split whether or not anything was read
	// (os_aio_simulated_wake_handler_threads under WakeAll; the read's
	// segment under WakeTargeted; Flush under WakeDeferred). Native AIO
	// wakes nobody. Arg is 0, or SiblingResident for a split whose sibling
	// the load keeps in the pool (no look-up, no read, the wake alone).
	OpPrefetchSiblings
	// OpSockSend writes a packet to the thread's connection peer (see
	// client.Sockets.Add): a system call of Dur kernel work that wakes the
	// peer if it is blocked in OpSockRecv.
	OpSockSend
	// OpSockRecv reads a packet from the connection's peer: a system call that
	// blocks until one has been sent, then Dur of kernel work.
	OpSockRecv
	// OpDirty brings Arg pages into the buffer pool and dirties them for the
	// page cleaner to write (a page first modified since its last flush: the
	// mini-transaction's commit puts it on the flush list,
	// buf_flush_note_modification), and wakes the cleaner if it sleeps
	// (os_event_set(buf_flush_event)). Each page takes a frame first, which
	// may mean waiting or flushing a page (buf_LRU_get_free_block, see
	// flushList in bufpool.go). Without a
	// page cleaner (added by a workload that writes, oltp_insert_auto_inc) it
	// costs nothing.
	OpDirty
	// OpPageCleaner is the whole loop of the page cleaner thread that
	// such a workload adds beside the AIO handlers; it never returns.
	OpPageCleaner

	numOpKinds // the number of op kinds: not an op
)

// The waits an OpSleep stands for (its Arg). With the client off the machine
// each is a sleep of its Dur; ServerProgram, which puts the client on it,
// makes SleepClient and SleepLast waits the client's requests and leaves
// SleepServer's a sleep. A SleepThink wait is no request at all: a Cell with
// a Client refuses a workload that has one.
const (
	// SleepClient (0, every wait's default) waits for the client's next
	// request, which the client sends once it has read the reply before it.
	SleepClient int32 = iota
	// SleepServer waits for another server thread, not the client: the
	// listener's hand-over of a new connection to a cached thread
	// (handle_connections_sockets → create_new_thread, the thread cache's
	// condition variable). It stays a sleep.
	SleepServer
	// SleepLast waits for a request after which the client reads nothing:
	// COM_QUIT, which libmariadb's mysql_close sends before it closes the
	// socket. The server sends nothing before its next wait, and the client
	// sends its next request without waiting.
	SleepLast
	// SleepThink is the load's own pause between units, with no client
	// waited for: the think time of MySQL bug 40604's scans (read_ahead),
	// whose threads are the load and have no benchmark client on a socket.
	// It is never a round trip: ServerProgram leaves it a sleep, and a Cell
	// with a Client refuses a workload that has one (ClientConfig has no
	// think time; made the client's request, the pause would be lost).
	SleepThink
)

// SyscallKind is the kernel path an OpSyscall takes, for the costs that
// differ by path (CostProfile.SyscallCost). The zero kind is any call that
// has no kind of its own and costs CostProfile.Syscall alone.
type SyscallKind uint8

const (
	// SysOther is every call without a kind of its own: futex waits and
	// wakes (pthread_cond_signal on COND_thread_cache, the mutexes'
	// futexes), fcntl, setsockopt and getpeername on a socket, priocntl or
	// setpriority, pread, pwrite, fsync, io_submit. It costs Syscall.
	SysOther SyscallKind = iota
	// SysSocket is a read or write on an open socket, as MariaDB's vio_read
	// and vio_write (recv and send on a TCP socket, and vio_io_wait's poll
	// when the read would block): Syscall plus SyscallSocket.
	SysSocket
	// SysSetup is a call that creates or destroys a connection's kernel
	// objects: accept4 in the listener (handle_connections_sockets, or the
	// thread pool's listener; the client's handshake becomes a full socket
	// with its file and descriptor), shutdown and close at the end of the
	// connection (vio_shutdown: the FIN exchange and the socket's release),
	// and a new thread's clone, mmap and set_robust_list when the thread
	// cache is empty (create_thread_to_handle_connection): Syscall plus
	// SyscallSetup.
	SysSetup
	numSyscallKinds
)

// Op is one step: what to do (Kind), on what (Arg) and for how long (Dur).
// For OpSyscall, Arg is the call's SyscallKind.
type Op struct {
	Kind OpKind
	Arg  int32
	Dur  time.Duration
}

// SiblingResident is OpPrefetchSiblings' Arg for a split whose one sibling
// is known to be in the buffer pool.
const SiblingResident = 1

// opWants names, for an op kind that a mechanism must run, what the thread
// needs installed; AddThread refuses an op of such a kind that no Stepper
// handles. An op of another kind with no Stepper does nothing.
var opWants = [numOpKinds]string{
	OpRead:        "waits for the device, want a device installed by SetDevice",
	OpWrite:       "waits for the device, want a device installed by SetDevice",
	OpFsync:       "waits for the device, want a device installed by SetDevice",
	OpPickRow:     "locks rows, want a table installed by SetRowTable",
	OpRowLock:     "locks rows, want a table installed by SetRowTable",
	OpLockRelease: "locks rows, want a table installed by SetRowTable",
	OpLogCommit:   "commits through the redo log, want the log installed by SetLog",
	OpAIOHandler:  "is an AIO handler's loop, want the array SetAIO installed",
	OpPageCleaner: "is the page cleaner's loop, want the cleaner of an AIO array",
	OpSockSend:    "needs a connection peer, want the thread added by AddConnection",
	OpSockRecv:    "needs a connection peer, want the thread added by AddConnection",
}

// check refuses an op of an unknown kind, a negative duration, a mutex,
// system-call kind, hint or probability out of range, and a negative count;
// AddThread adds what needs the whole program (a skip's length).
func (k OpKind) check(op Op, mutexes int) error {
	switch {
	case k >= numOpKinds:
		return fmt.Errorf("op kind %d, want one of the OpKind constants (OpCPU..OpPageCleaner): %w", k, ErrInvalidConfig)
	case op.Dur < 0:
		return fmt.Errorf("op kind %d duration %v, want ≥ 0: %w", k, op.Dur, ErrInvalidConfig)
	case (k == OpLock || k == OpUnlock) && mutexes == 0:
		return fmt.Errorf("op mutex %d, want a mutex added by AddMutex (the machine has none): %w", op.Arg, ErrInvalidConfig)
	case (k == OpLock || k == OpUnlock) && (op.Arg < 0 || int(op.Arg) >= mutexes):
		return fmt.Errorf("op mutex %d, want 0..%d: %w", op.Arg, mutexes-1, ErrInvalidConfig)
	case k == OpSyscall && (op.Arg < 0 || op.Arg >= int32(numSyscallKinds)):
		return fmt.Errorf("op syscall kind %d, want 0..%d: %w", op.Arg, numSyscallKinds-1, ErrInvalidConfig)
	case k == OpSplit && op.Dur > 1e9:
		return fmt.Errorf("OpSplit probability %d parts per billion, want 0..1000000000: %w", op.Dur, ErrInvalidConfig)
	case k == OpSetPrio && !prio.Hint(op.Arg).Valid():
		return fmt.Errorf("OpSetPrio hint %d, want %d..%d: %w", op.Arg, prio.Idle, prio.Interrupt, ErrInvalidConfig)
	case k == OpDone && op.Arg < 0:
		return fmt.Errorf("OpDone count %d, want ≥ 0: %w", op.Arg, ErrInvalidConfig)
	case k == OpSleep && (op.Arg < SleepClient || op.Arg > SleepThink):
		return fmt.Errorf("OpSleep wait %d, want SleepClient, SleepServer, SleepLast or SleepThink (0..%d): %w", op.Arg, SleepThink, ErrInvalidConfig)
	}
	return nil
}
