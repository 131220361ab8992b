// Package aio is InnoDB's simulated asynchronous I/O (os0file.cc, MySQL 5.5–5.7),
// faithful first, then better: an array of slots cut into segments, one handler
// thread per segment, and the policy that decides which handlers a submission
// wakes.
//
// # Embedding: the synchronous calls
//
// A Go program that uses the Array as its I/O layer starts from
// EmbedConfig (native AIO where io_uring works, else simulated AIO on the
// FileBackend) and calls ReadAt, WriteAt, Sync and Datasync, which block
// until their request is done and take a context, as os.File's methods with
// a ctx in front:
//
//	cfg, opts := aio.EmbedConfig()
//	a, err := aio.New(cfg, opts...)
//	...
//	n, err := a.ReadAt(ctx, f, page, off)   // as f.ReadAt(page, off)
//	n, err = a.WriteAt(ctx, f, page, off)
//	err = a.Sync(ctx, f)                    // fsync: the writes above are durable
//
// The context covers a request until its I/O is issued; a read or write
// whose context ends while it waits returns an error wrapping ErrCanceled
// and ctx.Err() and never happens (see ReadAt). On Linux a read the page
// cache holds whole is done on the caller's thread (preadv2 with
// RWF_NOWAIT), as os.File.ReadAt would do it; only a read that must wait
// for the device is handed to a handler. The request's priority is
// prio.FromContext(ctx). Submit, with a Done callback, is the asynchronous
// form (Request.Context gives it the same cancellation).
//
// # The model
//
// A request (read or write, file, offset, length) reserves a slot in one of four
// arrays: insert buffer (one segment, global segment 0), log (one segment,
// global segment 1), read (ReadSegments) and write (WriteSegments), numbered in
// that order. The slot's position decides its segment. The submitter starts the
// scan for a free slot at the first slot of the request's local segment,
// (offset / (64 pages)) mod segments, so that a 64-page extent lands in one
// segment where its handler can merge it, and wraps over the whole array. When
// the array is full the submitter wakes handlers and waits for a slot.
//
//	global segment:  0      1      2   3   4   5      6   7   8   9
//	array:           ibuf   log    read ........      write ........
//	slots:           256    256    256 256 256 256    256 256 256 256
//
// A handler thread serves only its own segment. Woken, it takes its segment's lock,
// picks the oldest request over the old age (2 s) or else the lowest offset,
// gathers the requests that continue it in the same file (up to 64), releases
// the lock, does one synchronous read or write for all of them, and completes
// them. Then it looks again; with nothing to do it resets its event and sleeps.
//
// # Wake policies and study D
//
// InnoDB (WakeAll) wakes every handler thread after a read is queued. With
// 16 read + 16 write threads, one prefetch of a sibling page on a B-tree leaf
// split wakes 34 threads, of which one finds work: the kernel's futex spinlock
// was 57% of CPU in study D. WakeTargeted wakes only the segment that received
// the request; WakeDeferred wakes nobody until a Flush, which wakes exactly the
// segments that received requests since the last one (read-ahead's
// "wake later", made targeted). A wakeup that finds its segment empty is
// counted as wasted.
//
// # Priority
//
// A request carries a prio.Hint. Among requests younger than the old age the
// more urgent hint goes first, then the lowest offset; with all hints equal the
// pick is InnoDB's. Requests over the old age still go first, oldest first, so
// no hint can starve another past the old age.
//
// # Syncs
//
// Fsync and Fdatasync requests (Sync, Datasync) make a file durable as
// fsync(2) and fdatasync(2) do, through the Backend (SyncBackend) or the
// ring (IORING_OP_FSYNC), on a handler like any request; they go to the
// write array (the log array for KindLog). The ordering contract is
// fil_flush's: a sync covers every write to the same file that completed —
// its Done called, its WriteAt returned — before the sync was submitted.
// It does not order against writes to the file still queued or in flight
// when it is submitted: those may be issued before, during or after it and
// are covered only by a later sync; a sync neither waits for them nor holds
// them back, and writes submitted after it may complete before it. A
// program that needs a set of writes durable waits for them, then syncs, as
// InnoDB's buf_flush waits for a batch's writes before fil_flush. Syncs of
// one file waiting in a segment together are one system call (Core.Pick),
// issued after all of them were submitted, so it covers what each asks for.
//
// # Cancellation
//
// A request's Context (Request.Context; a synchronous call's ctx) covers it
// until its I/O is issued. While it waits in its slot, its context ending
// takes it out of the slot (Core.Cancel) under the slot's segment lock, the
// lock its handler picks under, so it is either picked first or never
// issued; it completes once, with an error wrapping ErrCanceled and the
// context's error, and counts as canceled. Once issued, a simulated
// request's I/O runs to its end; a native request issued alone is canceled
// in the kernel (IORING_OP_ASYNC_CANCEL), and its completion says whether
// the kernel stopped it before it began. InnoDB has no cancellation: its
// requests always complete.
//
// The rule for errors: every error that a context's end causes wraps both
// the context's error (context.Canceled, context.DeadlineExceeded) and
// ErrCanceled, wherever the context ended — before Submit (or a
// synchronous call) was entered, while it waited for a free slot, while
// the request waited in its slot or in the overflow queue, or in the
// kernel before the I/O began. ErrCanceled promises that no byte was read
// or written, so the one exception is an I/O stopped part way (a native
// cancel that came late, or a ReadAt whose first bytes came from the page
// cache): its error wraps the context's error alone, and n > 0 says what
// was moved. A request refused by Submit was never accepted; its Done is
// not called.
//
// # One core, two drivers
//
// Core holds every decision: slot choice, pick and merge, wake sets, counters.
// It has no goroutines, no clock (each call takes now, a monotonic offset the
// driver supplies), no I/O and never blocks, so the simulator in package sim
// drives the same code in virtual time that Array drives on real cores. Array
// wraps the Core with one mutex per segment, taken where InnoDB takes
// array->mutex, and runs the handler threads either as goroutines sleeping on
// channel events or as locked OS threads sleeping on raw futex words
// (internal/futex), the way InnoDB's threads sleep on os_event_t.
//
// # Native AIO
//
// Config.IO = IONative is InnoDB's native AIO (innodb_use_native_aio=1) on
// Linux io_uring instead of libaio: the same arrays, segments, slots and
// Core, but each segment owns a ring. A submitter reserves a slot, then pushes
// the segment's waiting requests (picked and merged by the Core, as a handler
// would) to the ring and submits them with one io_uring_enter; the segment's
// handler (a goroutine, which keeps an OS thread while it waits: see
// Config.IO) waits in io_uring_enter for its own ring's completions, frees
// the slots and runs Done, as os_aio_linux_handle does with io_getevents. No submitter wakes a handler; the kernel wakes the one
// whose ring completed. Many requests per segment are in the kernel at once,
// where a simulated handler does one synchronous I/O at a time.
//
// A File is registered in a ring's file table the first time its requests
// reach it and named by its entry from then on (no descriptor in an SQE);
// buffers given to RegisterBuffers are used as fixed buffers; with
// WithPlug a request that finds its segment's handler running waits in
// its slot and is submitted, merged with its neighbours, in the handler's
// next io_uring_enter, the one that also waits for the next completion, so
// that under load a request costs a fraction of a system call
// (Stats.Syscalls); with WithIOPriority the batch's hint is the SQE's
// ioprio (prio.IOPrio).
//
// # Differences from InnoDB, and why
//
//   - Ages are exact durations, not whole seconds of time(NULL); "the same age"
//     means the same reservation instant.
//   - WakeAll sets every handler's event; InnoDB first scans each segment under
//     the array mutex and sets only events of segments with a reserved slot.
//     Both pay per handler on every submission; here the price is paid by the
//     woken thread, where it can be counted as a wasted wakeup.
//   - Complete frees a whole batch at once instead of returning completed slots
//     one per call (io_already_done), so there is no "finished slots first"
//     step left to take.
//   - One lock per segment instead of one per array (see below).
//   - A native handler is a goroutine, not an OS thread of its own. After a
//     round of Done calls it yields before it waits again, so a submitter its
//     Done readied runs and submits on the handler's thread at once, and the
//     kernel runs that read's completion (task work on the submitting
//     thread) on the thread that waits for it. A locked handler thread
//     cannot yield its P that way.
//   - The merge follows the chain through a per-segment hash of waiting offsets
//     rather than rescanning the segment for each link: the same batch in
//     O(slots + merged) instead of O(slots × merged). The free-slot scan reads
//     a bitmap 64 slots at a time, and the pick's pass stops once it has seen
//     every waiting request; both choose exactly the slot InnoDB's loops
//     choose (a model test checks it step by step).
//   - A merged batch with a VectorBackend (FileBackend is one) is one
//     preadv/pwritev per run of equally aligned requests, straight into the
//     requests' buffers (so an O_DIRECT misalignment fails only its own
//     request); InnoDB, and any plain Backend here, goes through a combined
//     buffer and copies.
//   - Submitters that find an array full queue in arrival order, and each
//     slot freed wakes the first (fullWait); InnoDB's os_event_set on
//     not_full wakes every waiter to race for the slot, which with many
//     waiters is a herd per slot and no bound on a loser's wait.
//   - A Done that submits to a full array is accepted into the array's
//     overflow queue, which the next handler to free a slot drains; InnoDB
//     would block the handler thread in os_aio_array_reserve_slot, possibly
//     waiting for itself.
//   - Requests can be canceled until issued (see Cancellation), syncs are
//     requests (see Syncs), and a request can carry its priority to the I/O
//     scheduler (WithIOPriority).
//
// # Handler threads, events and segment locks
//
// InnoDB has one mutex per array, taken by every submitter and every handler of
// the array; with a few submitters and handlers on a few cores that mutex is
// where the time goes (half of the CPU of the goroutine-mode benchmark went to
// it here). Each segment has its own lock instead: a submitter takes the lock
// of the segment its request lands in (and of the next ones while those are
// full: the same scan, one segment at a time), and a handler only its own. The
// Core's state is split the same way (Core's Concurrency note). Only the
// array-full path, Stats and Close take every lock of an array, in segment
// order; a submitter that finds the array full registers its wait while it
// holds them all, so the Complete that frees a slot cannot miss it.
//
// A handler holds its segment's lock to pick, drops it for the I/O, and takes
// it once more to complete the batch and pick the next. It resets its event
// under the lock after finding nothing, and a submitter sets the event after
// reserving in that segment under the same lock, so no wakeup is lost; both
// event kinds (a one-token channel, or internal/futex's signal
// count) keep a Set that lands between Reset and Wait. Completions run on the
// handler thread after the slots are freed, and just before the handler
// sleeps, so a submitter woken by Done does not find its handler still busy.
//
// # HandlerFutex and GOMAXPROCS
//
// A futex-mode handler is a locked OS thread, and after its FUTEX_WAIT returns
// it needs one of Go's GOMAXPROCS Ps to run the pick. A thread asleep in the
// system call keeps its P (Go lends it to a thread leaving a system call, and
// sysmon retakes it); a woken thread whose P is busy and that finds none idle
// waits on Go's run queue until sysmon hands it one, and sysmon, having found
// little to retake, has backed off to rounds of a millisecond or more. With
// 130 handler threads on 2 Ps that is rare per request but long
// (runtime.exitsyscallNoP, counted with uprobes on BenchmarkAIOWake: 0.004 per
// request at targeted/4, 0.016 at targeted/32, waits of 1 to 3.5 ms), and it
// is most of what targeted wake costs at many handlers on the 2-vCPU build
// machine: targeted/64 took 24.3 µs a request against 7.3 µs at targeted/4 at
// GOMAXPROCS=2, and 9.3 against 6.0 µs at GOMAXPROCS=140 (-cpu 140, every
// locked thread with a P of its own), where the kernel alone schedules the
// threads, as it does InnoDB's. A program that runs futex mode for InnoDB's
// behaviour should set GOMAXPROCS to at least Config.Segments() plus its own
// locked threads; goroutine mode needs nothing of the kind.
//
// Sources: os0file.cc (os_aio_array_reserve_slot, os_aio_simulated_handle,
// os_aio_simulated_wake_handler_thread(s), os_aio_array_free_slot,
// os_aio_linux_dispatch, os_aio_linux_handle) and srv0start.cc of MySQL
// 5.5–5.7, fil0fil.cc (fil_flush) for syncs; io_uring_setup(2),
// io_uring_enter(2), io_uring_register(2) and io_uring(7) of the Linux man
// pages for native AIO, and ioprio_set(2) with the kernel's
// block/mq-deadline.c and block/bfq-iosched.c for I/O priorities; MySQL bugs 67973 (a merge condition that
// never matched) and 95491 (the array-full wake path); study D
// (innosim reproduce d).
package aio
