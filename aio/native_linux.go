//go:build linux

package aio

import (
	"fmt"
	"math/bits"
	"runtime"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The native driver (Config.IO = IONative), after InnoDB's Linux native AIO
// (os0file.cc: os_aio_linux_dispatch submits a reserved slot's iocb with
// io_submit on its segment's io_context; os_aio_linux_handle waits in
// io_getevents for that context's completions and frees the slots), with
// io_uring for the io_context:
//
//	submitter:  reserve a slot under the segment lock (Submit, as simulated)
//	            issue: under the lock, pick and merge the segment's waiting
//	                   requests (Core.issue), push one SQE per batch
//	            io_uring_enter(to_submit): the kernel starts the I/O
//	handler s:  io_uring_enter(to_submit: what was left to it,
//	                           GETEVENTS, min_complete 1) on s's ring
//	            for each CQE: the batch's result, per request
//	            under the lock: Core.completeSlots, wake full-array waiters
//	            Done for each request, on this thread
//
// A batch's user_data is its first slot's global number plus one, with the
// slot's generation (Array.gen) above it, so that an SQE's user_data names
// one batch for the life of the ring and a cancel cannot reach the slot's
// next batch; the batch's requests are linked slot to slot from the first.
// user_data 0 is the close mark, a NOP pushed once the array is closed: the
// handler exits when it has seen the mark and reaped every SQE pushed. A
// user_data with the top bit set is an IORING_OP_ASYNC_CANCEL's (cancel.go).
//
// Ordering. A batch's bookkeeping (nativeSlot) is written by the submitter
// under the segment lock before pushed.Add; the handler reads it after reaping
// the CQE and loading pushed, so the atomic carries the order that the kernel
// already guarantees (the CQE cannot exist before its SQE was pushed), in a
// form the race detector sees. The handler writes a slot's bookkeeping only
// under the lock, after the CQE, and a submitter only after reserving the
// slot again under the same lock; a canceller reads it under the lock.
//
// Submission. An issue pushes k SQEs under the lock, then calls
// io_uring_enter(k) outside it, unless someone is about to enter anyway: then
// it leaves its k to them and makes no system call. That is another issue of
// the segment in its io_uring_enter, which enters once more for everything
// left to it before it returns; or the segment's handler while it is awake
// (between its waits: a Done that submits the next request, say), which
// submits what was left to it in the same io_uring_enter that waits for the
// next completion. The kernel then also runs the completion's task work on
// the handler, which is waiting for it, rather than interrupting the thread
// that submitted. The price is that a Done that blocks holds back its
// segment's submissions too, as it holds back its completions.
// Enters may consume each other's SQEs, but every SQE is asked for by exactly
// one enter that comes after its push, so each enter finds at least what it
// asks for, they all get consumed, and no enter comes after the last SQE (the
// close mark) is consumed: the handler may then close the ring. A vectored
// batch's iovecs belong to the batch until it completes (the kernel reads them
// by the time it consumes the SQE, IORING_FEAT_SUBMIT_STABLE, but which enter
// does that is not known).
//
// Plugging (WithPlug). A submission that finds the handler awake (from
// the moment it reaps a completion until it waits again) pushes nothing: its
// request waits in its slot, and the handler issues every waiting request,
// picked and merged, before it next waits, in the io_uring_enter that waits
// (it issues under the lock it clears awake in, so none is left behind). A
// submission that finds the handler waiting enters the kernel itself:
// holding it for the handler's next wake would hold it for the next
// completion, which with a device that completes in bursts (virtio: tens at
// once) is a whole gap between bursts, and the ring's depth would sag by
// every request resubmitted in it.
//
// Files. The kernel looks an SQE's descriptor up when it consumes the SQE,
// in whichever later io_uring_enter that is, and one left to the handler
// comes after its Done calls: long enough for the program to close the File
// and open another at the same number. So no SQE carries a descriptor: each
// ring has a table of registered files (fileTable), filled with a File
// while Go holds a reference to it (SyscallConn().Control: Go cannot close
// it meanwhile), the kernel taking its own reference to the file; the SQE
// names the entry (IOSQE_FIXED_FILE). A File keeps its entry for its later
// requests; the entry keeps the file open, so a request accepted on a File
// reads or writes it even if the File is closed, as a pread already in the
// kernel does. A duplicate descriptor would do the same, but close(2) of
// any descriptor of a file releases the process's POSIX record locks on it
// (InnoDB's os_file_lock takes one on its data files); emptying an entry
// closes none.

// native is an Array's native state.
type native struct {
	segs        []nativeSeg
	slots       []nativeSlot // by global slot
	plug        bool
	ioprio      bool
	enters      atomic.Uint64
	syncCalls   atomic.Uint64                // synchronous finishes (finishSync, a sync redone)
	bufs        atomic.Pointer[fixedBuffers] // published once every ring has them
	bufsClaimed atomic.Bool
	// faults, if set (tests), is called on the handler thread for each
	// completed batch with the kernel's result; a non-nil error fails the
	// batch as a device error would.
	faults atomic.Pointer[func(res int32) error]
}

// nativeSeg is one segment's ring and scratch.
type nativeSeg struct {
	ring *ring
	// Under the segment lock:
	pushed       atomic.Uint64  // SQEs pushed (written under the lock, read by the handler)
	inKernel     int            // SQEs pushed whose CQE the handler has not yet accounted, but the timer's
	closeSent    bool           // the close mark is pushed
	gone         bool           // the handler has exited and closed the ring
	entering     bool           // an issue is in io_uring_enter and takes left after it
	awake        bool           // the handler is running, and takes left before it waits
	left         int            // SQEs pushed for one of those two to submit
	iovFree      [][]unix.Iovec // iovec arrays for merged batches, cap MergeLimit, free
	batch        []int          // Core.issue's slots, cap MergeLimit
	picked       []*Request     // their requests, cap MergeLimit
	files        fileTable
	timer        bool          // the idle timer is in the kernel (not counted in inKernel)
	timerRemoved bool          // its removal is pushed (at close)
	timeout      unix.Timespec // its duration, read by the kernel
	// The handler's own:
	cqes  []uringCQE
	reqs  []*Request // one round's requests, in batch order
	errs  []error
	ns    []int
	slots []int // their global slots
	ended []endedRequest
	_     [64]byte
}

// nativeSlot is what the driver keeps of a slot's request while the kernel
// has it. next links the batch's requests; the batch's own fields are on its
// first slot, and n is 0 on the others.
type nativeSlot struct {
	req      *Request
	next     int32
	n        int32 // requests in the batch (first slot)
	op       Op
	offset   int64
	length   int64
	err      error        // the batch failed before reaching the kernel (first slot)
	iov      []unix.Iovec // a merged batch's iovecs, until it completes (first slot)
	file     int32        // the batch's entry in the ring's file table, -1 if none (first slot)
	userData uint64       // the batch's SQE's (first slot)
	inKernel bool         // pushed and not yet completed (first slot)
	cancel   atomic.Bool  // an ASYNC_CANCEL was pushed for the batch (first slot)
}

const (
	nativeCloseMark  = 0       // user_data of the close mark
	nativeCancelMark = 1 << 63 // set in the user_data of an ASYNC_CANCEL
	nativeTimerMark  = 1 << 62 // user_data of the idle timer, and of its removal with nativeCancelMark

	// idleEmpty is how long a ring stays idle (nothing in the kernel but
	// the timer) before its handler empties its file table: the longest
	// a closed File's file stays open in the kernel once its ring is idle.
	idleEmpty = 10 * time.Millisecond
)

func (a *Array) startNative() error {
	nseg := a.core.Segments()
	per := a.cfg.SlotsPerSegment
	n := &native{segs: make([]nativeSeg, nseg), slots: make([]nativeSlot, a.core.Slots()),
		plug: a.opts.plug, ioprio: a.opts.ioprio}
	for s := range n.segs {
		// One SQ entry per slot, one per slot for a cancel of its batch, and
		// one for the close mark: a segment never has more SQEs pushed and
		// not consumed, nor more CQEs pending (the CQ has twice the
		// entries), so neither ring can overflow.
		r, err := newRing(uint32(2*per + 1))
		if err == nil {
			err = registerFiles(r, per)
		}
		if err != nil {
			if r != nil {
				r.close()
			}
			for i := range s {
				n.segs[i].ring.close()
			}
			return err
		}
		sg := &n.segs[s]
		sg.ring = r
		sg.files.init(r, per)
		sg.batch = make([]int, 0, a.cfg.MergeLimit)
		sg.picked = make([]*Request, 0, a.cfg.MergeLimit)
		sg.cqes = make([]uringCQE, min(len(r.cqes), 2*per+1))
		sg.reqs = make([]*Request, 0, per)
		sg.errs = make([]error, per)
		sg.ns = make([]int, per)
		sg.slots = make([]int, 0, per)
	}
	a.native = n
	a.handlers.Add(nseg)
	for s := range nseg {
		go a.nativeHandle(s)
	}
	return nil
}

// probeNative sets up a small ring and closes it.
func probeNative() error {
	r, err := newRing(2)
	if err != nil {
		return err
	}
	r.close()
	return nil
}

// issueSet issues the waiting requests of every segment in set: what waking a
// handler is in simulated AIO.
func (a *Array) issueSet(set SegmentSet) {
	for i, w := range set.w {
		for ; w != 0; w &= w - 1 {
			a.issue(i<<6 + bits.TrailingZeros64(w))
		}
	}
}

// closeNative issues whatever every segment still has waiting and pushes the
// close marks; the caller has marked every array closed.
func (a *Array) closeNative() {
	for s := range a.native.segs {
		a.issue(s)
	}
}

// issue pushes segment seg's waiting requests to its ring, merged into
// batches, and submits them; once the array is closed it also pushes the
// close mark. Under WithPlug it leaves them to the handler while it runs.
// See native for the protocol.
func (a *Array) issue(seg int) {
	sg := &a.native.segs[seg]
	mu := &a.segMu[seg].Mutex
	mu.Lock()
	if sg.gone {
		mu.Unlock()
		return
	}
	if a.native.plug && sg.awake {
		mu.Unlock() // the running handler issues it before it waits
		return
	}
	a.enterPushed(seg, a.issueLocked(seg))
}

// issueLocked picks, merges and pushes every request waiting in segment seg,
// and the close mark once the array is closed, under seg's lock; it returns
// the number of SQEs pushed, which the caller has submitted (enterPushed,
// or the handler's wait).
func (a *Array) issueLocked(seg int) int {
	sg := &a.native.segs[seg]
	if sg.gone {
		return 0
	}
	var now time.Duration // read only when the pick has a choice, as the simulated handler
	if a.core.Waiting(seg) > 1 {
		now = a.now()
	}
	pushed := 0
	var b Batch
	for a.core.issue(&b, seg, now, sg.batch) {
		reqs := sg.picked[:0]
		for _, g := range b.Slots {
			req := a.reqs[g]
			a.reqs[g] = nil
			a.dropFile(seg, req.File) // picked: it no longer waits to be merged
			reqs = append(reqs, req)
		}
		if b.Op.isSync() {
			a.pushBatch(sg, &b, b.Slots, reqs)
			pushed++
		} else {
			// One SQE per run of equally aligned requests, as the simulated
			// handler's vectored calls (alignedRun): with O_DIRECT one
			// misaligned buffer fails a whole READV with EINVAL.
			for i := 0; i < len(reqs); {
				j := i + alignedRun(reqs[i:])
				a.pushBatch(sg, &b, b.Slots[i:j], reqs[i:j])
				pushed++
				i = j
			}
		}
		clear(reqs)
	}
	if a.closed[a.core.ArrayOfSegment(seg)] && !sg.closeSent {
		sg.closeSent = true
		a.pushSQE(sg.ring, &uringSQE{opcode: uringOpNop, userData: nativeCloseMark})
		pushed++
	}
	if pushed > 0 {
		sg.inKernel += pushed
		sg.pushed.Add(uint64(pushed)) // after the bookkeeping: see native
	}
	return pushed
}

// enterPushed has the kernel consume the k SQEs just pushed to segment seg's
// ring, or leaves them to whoever is about to enter anyway (see native). It
// is called with seg's lock held and releases it.
func (a *Array) enterPushed(seg, k int) {
	sg := &a.native.segs[seg]
	mu := &a.segMu[seg].Mutex
	if k == 0 {
		mu.Unlock()
		return
	}
	if sg.entering || sg.awake {
		sg.left += k // the issue in io_uring_enter or the handler submits them next
		mu.Unlock()
		return
	}
	sg.entering = true
	mu.Unlock()
	a.enterRing(sg.ring, k)
	mu.Lock()
	k, sg.left, sg.entering = sg.left, 0, false
	mu.Unlock()
	if k > 0 {
		a.enterRing(sg.ring, k)
	}
}

// pushBatch records the requests reqs (in slots, file order; consecutive, or
// syncs of one file) as one batch of the kernel's and pushes its SQE: a read
// or write (READ_FIXED or WRITE_FIXED into a registered buffer) for one
// request, a READV or WRITEV for several, one FSYNC for syncs, a NOP for
// requests whose File gives no descriptor (the handler fails them). The
// caller holds the segment lock.
func (a *Array) pushBatch(sg *nativeSeg, b *Batch, slots []int, reqs []*Request) {
	n := a.native
	first := slots[0]
	fs := &n.slots[first]
	length := int64(0)
	for i, g := range slots {
		ns := &n.slots[g]
		ns.req, ns.next, ns.n = reqs[i], -1, 0
		if i > 0 {
			n.slots[slots[i-1]].next = int32(g)
		}
		length += int64(len(reqs[i].Buf))
	}
	op := b.Op
	fs.n, fs.op, fs.offset, fs.length, fs.err = int32(len(slots)), op, reqs[0].Offset, length, nil
	fs.userData = uint64(a.gen[first]&0x7fffffff)<<32 | uint64(first+1)
	fs.inKernel = true
	fs.cancel.Store(false)
	fs.file = -1
	e := uringSQE{userData: fs.userData}
	entry, err := sg.files.acquire(op, reqs[0].File)
	switch {
	case err != nil:
		// Completed by the handler with this error, as every other request:
		// the NOP's CQE carries the batch to it.
		fs.err = err
		e.opcode = uringOpNop
	case op.isSync():
		e.opcode = uringOpFsync
		if op == Fdatasync {
			e.rwFlags = uringFsyncDatasync
		}
	case len(slots) == 1:
		buf := reqs[0].Buf
		e.opcode, e.off = uringOpRead, uint64(fs.offset)
		if op == Write {
			e.opcode = uringOpWrite
		}
		if i, ok := n.bufs.Load().find(buf); ok {
			e.opcode, e.bufIndex = uringOpReadFixed, uint16(i)
			if op == Write {
				e.opcode = uringOpWriteFixed
			}
		}
		e.addr, e.len = uint64(uintptr(unsafe.Pointer(unsafe.SliceData(buf)))), uint32(min(len(buf), uringMaxLen))
	default:
		var iov []unix.Iovec
		if k := len(sg.iovFree); k > 0 {
			iov, sg.iovFree = sg.iovFree[k-1][:0], sg.iovFree[:k-1]
		} else {
			iov = make([]unix.Iovec, 0, a.cfg.MergeLimit)
		}
		for _, r := range reqs {
			var v unix.Iovec
			v.Base = unsafe.SliceData(r.Buf)
			v.SetLen(len(r.Buf))
			iov = append(iov, v)
		}
		fs.iov = iov
		e.opcode, e.off = uringOpReadv, uint64(fs.offset)
		if op == Write {
			e.opcode = uringOpWritev
		}
		e.addr, e.len = uint64(uintptr(unsafe.Pointer(unsafe.SliceData(iov)))), uint32(len(iov))
	}
	if fs.err == nil {
		fs.file, e.fd, e.flags = entry, entry, uringSQEFixedFile
		if n.ioprio && !op.isSync() {
			e.ioprio = uint16(b.Hint.IOPrio())
		}
	}
	a.pushSQE(sg.ring, &e)
}

// cancelIssued asks the kernel to cancel r, issued alone from slot g (the
// slot's generation gen), with IORING_OP_ASYNC_CANCEL, if its batch is still
// in the kernel; a merged batch is left to complete (canceling it would
// cancel its other requests too). The caller holds seg's lock; cancelIssued
// releases it. The batch's CQE then says what happened (result).
func (a *Array) cancelIssued(seg, g int, gen uint32, r *Request) {
	sg := &a.native.segs[seg]
	ns := &a.native.slots[g]
	if sg.gone || a.gen[g] != gen || ns.req != r || !ns.inKernel || ns.n != 1 || ns.cancel.Load() {
		a.segMu[seg].Unlock()
		return
	}
	ns.cancel.Store(true)
	a.pushSQE(sg.ring, &uringSQE{opcode: uringOpAsyncCancel, addr: ns.userData, userData: nativeCancelMark | ns.userData})
	sg.inKernel++
	sg.pushed.Add(1)
	a.enterPushed(seg, 1)
}

// pushSQE pushes e. The SQ has an entry per slot, one more per slot for a
// cancel, and one for the close mark, and only a slot's batch, one cancel of
// it or the mark is ever pushed, so it cannot be full: if it were, the driver
// would be broken, and overwriting an SQE the kernel has not read would lose
// a request silently.
func (a *Array) pushSQE(r *ring, e *uringSQE) {
	if !r.push(e) {
		panic("aio: io_uring submission queue full: more SQEs than slots")
	}
}

// enterRing has the kernel consume k SQEs. EINTR, EAGAIN and EBUSY (no memory
// for requests now, or completions backed up) are retried.
func (a *Array) enterRing(r *ring, k int) {
	for k > 0 {
		got, errno := r.enter(uint32(k), 0, 0)
		a.native.enters.Add(1)
		switch errno {
		case 0:
		case unix.EINTR, unix.EAGAIN, unix.EBUSY:
			runtime.Gosched()
			continue
		default:
			// Only a broken ring gives anything else (EBADF, EFAULT): the
			// requests could never complete, so fail loudly.
			panic(fmt.Sprintf("aio: io_uring_enter to submit %d: %v", k, errno))
		}
		if got <= 0 {
			return // another enter consumed them
		}
		k -= got
	}
}

// registerFiles gives r a file table of n empty entries, one per slot of its
// segment. Out of descriptors (n above RLIMIT_NOFILE) is not a refusal, as
// for io_uring_setup (see setupError); any other errno is.
func registerFiles(r *ring, n int) error {
	switch errno := r.registerFiles(n); errno {
	case 0:
		return nil
	case unix.EMFILE:
		return fmt.Errorf("aio: IO = native: registering a table of %d files (one per slot) with io_uring: "+
			"RLIMIT_NOFILE is lower: %w", n, errno)
	default:
		return fmt.Errorf("aio: IO = native: registering a table of %d files with io_uring: %w: %w",
			n, errno, ErrNativeUnavailable)
	}
}

// ringSyscalls returns the system calls made on the rings so far: every
// io_uring_enter, and every io_uring_register (each ring's file table at
// New, buffers, and a File's entry the first time it reaches a ring).
func (n *native) ringSyscalls() uint64 {
	k := n.enters.Load()
	for i := range n.segs {
		if r := n.segs[i].ring; r != nil {
			k += r.registers.Load()
		}
	}
	return k
}

// ringEnters returns the io_uring_enter calls made so far.
func (n *native) ringEnters() uint64 { return n.enters.Load() }

// syncCallCount returns the synchronous reads, writes and syncs made to
// finish what the kernel gave back.
func (n *native) syncCallCount() uint64 { return n.syncCalls.Load() }
