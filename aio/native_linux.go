//go:build linux

package aio

import (
	"errors"
	"fmt"
	"io"
	"math/bits"
	"os"
	"runtime"
	"sync/atomic"
	"syscall"
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
// A batch's user_data is its first slot's global number plus one; the batch's
// requests are linked slot to slot from there. user_data 0 is the close mark,
// a NOP pushed once the array is closed and its segment has nothing waiting:
// the handler exits when it has seen the mark and reaped every SQE pushed.
//
// Ordering. A batch's bookkeeping (nativeSlot) is written by the submitter
// under the segment lock before pushed.Add; the handler reads it after reaping
// the CQE and loading pushed, so the atomic carries the order that the kernel
// already guarantees (the CQE cannot exist before its SQE was pushed), in a
// form the race detector sees. The handler writes a slot's bookkeeping only
// before completeSlots frees the slot under the lock, and a submitter writes it
// only after reserving the slot again under the same lock.
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
// Files. The kernel looks an SQE's descriptor up when it consumes the SQE,
// in whichever later io_uring_enter that is, and one left to the handler
// comes after its Done calls: long enough for the program to close the File
// and open another at the same number. So no SQE carries a descriptor: each
// ring has a table of registered files, an entry per slot, and a batch's
// File is put in its first slot's entry (IORING_REGISTER_FILES_UPDATE, the
// kernel taking its own reference to the file) while Go holds a reference to
// the File (SyscallConn().Control: Go cannot close it meanwhile); the SQE
// names the entry (IOSQE_FIXED_FILE). The handler empties the entry when it
// reaps the batch's CQE, the first moment known to come after the lookup
// whichever enter consumed the SQE, and before the slot is freed for another
// batch to fill. Meanwhile the entry keeps the file open, so a request
// accepted on a File reads or writes it even if the File is closed, as a
// pread already in the kernel does. A duplicate descriptor, closed at the
// CQE, would do the same, but close(2) of any descriptor of a file releases
// the process's POSIX record locks on it (InnoDB's os_file_lock takes one on
// its data files); emptying an entry closes none.

// native is an Array's native state.
type native struct {
	segs   []nativeSeg
	slots  []nativeSlot // by global slot
	enters atomic.Uint64
	// faults, if set (tests), is called on the handler thread for each
	// completed batch with the kernel's result; a non-nil error fails the
	// batch as a device error would.
	faults atomic.Pointer[func(res int32) error]
}

// nativeSeg is one segment's ring and scratch.
type nativeSeg struct {
	ring *ring
	// Under the segment lock:
	pushed    atomic.Uint64  // SQEs pushed (written under the lock, read by the handler)
	closeSent bool           // the close mark is pushed
	gone      bool           // the handler has exited and closed the ring
	entering  bool           // an issue is in io_uring_enter and takes left after it
	awake     bool           // the handler is running, and takes left before it waits
	left      int            // SQEs pushed for one of those two to submit
	iovFree   [][]unix.Iovec // iovec arrays for merged batches, cap MergeLimit, free
	batch     []int          // Core.issue's slots, cap MergeLimit
	picked    []*Request     // their requests, cap MergeLimit
	install   fileInstall    // pushBatch's table update
	// The handler's own:
	cqes  []uringCQE
	empty fileUpdate // the table update that empties a completed batch's entry
	reqs  []*Request // one round's requests, in batch order
	errs  []error
	slots []int // their global slots
	_     [64]byte
}

// nativeSlot is what the driver keeps of a slot's request while the kernel
// has it. next links the batch's requests; the batch's own fields are on its
// first slot.
type nativeSlot struct {
	req    *Request
	next   int32 // next slot of the batch, -1 at its end
	n      int32 // requests in the batch (first slot)
	op     Op
	offset int64
	length int64
	err    error        // the batch failed before reaching the kernel (first slot)
	iov    []unix.Iovec // a merged batch's iovecs, until it completes (first slot)
	file   int32        // the batch's entry in the ring's file table, -1 if none (first slot)
}

const nativeCloseMark = 0 // user_data of the close mark

func (a *Array) startNative() error {
	nseg := a.core.Segments()
	per := a.cfg.SlotsPerSegment
	n := &native{segs: make([]nativeSeg, nseg), slots: make([]nativeSlot, a.core.Slots())}
	for s := range n.segs {
		// One SQ entry per slot, and one for the close mark: a segment never
		// has more SQEs pushed and not consumed, nor more CQEs pending (the
		// CQ has twice the entries), so neither ring can overflow.
		r, err := newRing(uint32(per + 1))
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
		sg.install.init(r)
		sg.batch = make([]int, 0, a.cfg.MergeLimit)
		sg.picked = make([]*Request, 0, a.cfg.MergeLimit)
		sg.cqes = make([]uringCQE, min(len(r.cqes), per+1))
		sg.reqs = make([]*Request, 0, per)
		sg.errs = make([]error, per)
		sg.slots = make([]int, 0, per)
	}
	a.native = n
	a.handlers.Add(nseg)
	for s := range nseg {
		go a.nativeHandle(s)
	}
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
// batches, and submits them; once the array is closed it also pushes the close
// mark. See native for the protocol.
func (a *Array) issue(seg int) {
	n := a.native
	sg := &n.segs[seg]
	mu := &a.segMu[seg].Mutex
	mu.Lock()
	if sg.gone {
		mu.Unlock()
		return
	}
	r := sg.ring
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
		// One SQE per run of equally aligned requests, as the simulated
		// handler's vectored calls (alignedRun): with O_DIRECT one misaligned
		// buffer fails a whole READV with EINVAL.
		for i := 0; i < len(reqs); {
			j := i + alignedRun(reqs[i:])
			a.pushBatch(sg, b.Op, b.Slots[i:j], reqs[i:j])
			pushed++
			i = j
		}
		clear(reqs)
	}
	if a.closed[a.core.ArrayOfSegment(seg)] && !sg.closeSent {
		sg.closeSent = true
		a.pushSQE(r, &uringSQE{opcode: uringOpNop, userData: nativeCloseMark})
		pushed++
	}
	if pushed == 0 {
		mu.Unlock()
		return
	}
	sg.pushed.Add(uint64(pushed)) // after the bookkeeping: see native
	if sg.entering || sg.awake {
		sg.left += pushed // the issue in io_uring_enter or the handler submits them next
		mu.Unlock()
		return
	}
	sg.entering = true
	mu.Unlock()
	a.submit(r, pushed)
	mu.Lock()
	pushed, sg.left, sg.entering = sg.left, 0, false
	mu.Unlock()
	if pushed > 0 {
		a.submit(r, pushed)
	}
}

// pushBatch records the consecutive requests reqs (in slots, file order) as
// one batch of the kernel's and pushes its SQE: a read or write for one
// request, a READV or WRITEV for several, a NOP for requests whose File gives
// no descriptor (the handler fails them). The File goes in the file table's
// entry of the first slot, emptied by the handler (see native). The caller
// holds the segment lock.
func (a *Array) pushBatch(sg *nativeSeg, op Op, slots []int, reqs []*Request) {
	n := a.native
	first := slots[0]
	fs := &n.slots[first]
	length := int64(0)
	for i, g := range slots {
		ns := &n.slots[g]
		ns.req, ns.next = reqs[i], -1
		if i > 0 {
			n.slots[slots[i-1]].next = int32(g)
		}
		length += int64(len(reqs[i].Buf))
	}
	fs.n, fs.op, fs.offset, fs.length, fs.err = int32(len(slots)), op, reqs[0].Offset, length, nil
	e := uringSQE{userData: uint64(first) + 1}
	entry := int32(first % a.cfg.SlotsPerSegment) // the first slot's, in its segment
	fs.file = -1
	switch err := sg.install.file(op, reqs[0].File, uint32(entry)); {
	case err != nil:
		// Completed by the handler with this error, as every other request:
		// the NOP's CQE carries the batch to it.
		fs.err = err
		e.opcode = uringOpNop
	case len(slots) == 1:
		buf := reqs[0].Buf
		e.opcode, e.fd, e.off = uringOpRead, entry, uint64(fs.offset)
		if op == Write {
			e.opcode = uringOpWrite
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
		e.opcode, e.fd, e.off = uringOpReadv, entry, uint64(fs.offset)
		if op == Write {
			e.opcode = uringOpWritev
		}
		e.addr, e.len = uint64(uintptr(unsafe.Pointer(unsafe.SliceData(iov)))), uint32(len(iov))
	}
	if fs.err == nil {
		fs.file, e.flags = entry, uringSQEFixedFile
	}
	a.pushSQE(sg.ring, &e)
}

// pushSQE pushes e. The SQ has an entry per slot and one for the close mark,
// and only a slot's batch or the mark is ever pushed, so it cannot be full:
// if it were, the driver would be broken, and overwriting an SQE the kernel
// has not read would lose a request silently.
func (a *Array) pushSQE(r *ring, e *uringSQE) {
	if !r.push(e) {
		panic("aio: io_uring submission queue full: more SQEs than slots")
	}
}

// submit has the kernel consume k SQEs. EINTR, EAGAIN and EBUSY (no memory
// for requests now, or completions backed up) are retried.
func (a *Array) submit(r *ring, k int) {
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

// nativeHandle is the handler of global segment seg in native mode:
// os_aio_linux_handle's loop on its own ring. It is a plain goroutine, whose
// thread blocks in io_uring_enter as any goroutine's in a system call, and
// after a round that ran Done calls it yields (runtime.Gosched) before it
// waits again: a Done that readies a goroutine (the request's submitter
// waiting for it, say) puts it on this goroutine's P, and a P whose thread then
// blocks in a system call runs it only once another thread takes the P
// (sysmon's retake, or an idle thread woken to steal it). The yield runs it
// here first. A handler locked to its OS thread could not yield that way:
// its P goes to another thread, and it waits for its own to be handed back.
func (a *Array) nativeHandle(seg int) {
	defer a.handlers.Done()
	n := a.native
	sg := &n.segs[seg]
	r := sg.ring
	id := a.core.ArrayOfSegment(seg)
	mu := &a.segMu[seg].Mutex
	deliverer := &a.segMu[seg].deliverer
	var reaped, g uint64
	closing, woken, ran := false, false, false
	for {
		k := r.reap(sg.cqes)
		pushed := sg.pushed.Load() // orders the batches' bookkeeping before this read of it
		if k == 0 {
			mu.Lock()
			if woken && !closing {
				a.core.woken(seg, false)
			}
			left := sg.left
			sg.left, sg.awake = 0, false
			mu.Unlock()
			if closing && reaped == pushed && left == 0 {
				break
			}
			if ran {
				runtime.Gosched()
				ran = false
			}
			a.wait(r, left)
			woken = true
			continue
		}
		reaped += uint64(k)
		// Results first, without the lock: a failed or short batch may need
		// a synchronous rest, and a test's fault hook may block.
		reqs, slots := sg.reqs[:0], sg.slots[:0]
		type done struct{ start, end, failed int }
		var batches [64]done // most rounds; more spill to the heap
		bs := batches[:0]
		for _, c := range sg.cqes[:k] {
			if c.userData == nativeCloseMark {
				closing = true
				continue
			}
			start := len(reqs)
			first := int(c.userData - 1)
			fs := &n.slots[first]
			if fs.file >= 0 {
				// The kernel is done with the entry (see native). Emptying
				// one that is filled fails only for a broken ring; the
				// file would stay open until the slot's next batch.
				_ = sg.empty.set(r, uint32(fs.file), -1)
				fs.file = -1
			}
			for sl := int32(first); sl >= 0; sl = n.slots[sl].next {
				ns := &n.slots[sl]
				reqs = append(reqs, ns.req)
				slots = append(slots, int(sl))
				ns.req = nil
			}
			failed := n.result(fs, c.res, reqs[start:], sg.errs[start:len(reqs)])
			bs = append(bs, done{start, len(reqs), failed})
		}
		mu.Lock()
		if woken && !closing {
			a.core.woken(seg, true) // a wake while closing is not counted, as HandlerCycle.Next
		}
		sg.awake = true // until it waits again, submissions are left to it
		// What was left to it during the last round: submitted after this
		// round's Done calls, so that a stream of completions that never
		// lets the CQ empty does not hold it back.
		carry := sg.left
		sg.left = 0
		for _, d := range bs {
			if fs := &n.slots[slots[d.start]]; fs.iov != nil {
				clear(fs.iov) // the buffers' pointers: let them go
				sg.iovFree = append(sg.iovFree, fs.iov)
				fs.iov = nil
			}
			a.core.completeSlots(seg, slots[d.start:d.end], d.failed)
		}
		a.full[id].signal() // os_event_set(array->not_full), as the simulated handler
		mu.Unlock()
		woken = false
		if len(reqs) > 0 {
			if g == 0 {
				g = goroutineID()
			}
			deliverer.Store(g) // Close and Submit tell a call from a Done by it (calledFromDone)
		}
		for i, req := range reqs {
			err := sg.errs[i]
			sg.errs[i] = nil
			req.Done(req, err)
		}
		deliverer.Store(0)
		ran = len(reqs) > 0
		if carry > 0 {
			a.submit(r, carry)
		}
		clear(reqs)
		sg.reqs, sg.slots = reqs[:0], slots[:0]
	}
	mu.Lock()
	sg.gone = true
	mu.Unlock()
	r.close()
}

// wait is the handler's io_uring_enter: it submits the k SQEs left to it
// and waits for at least one completion, in one call. The SQEs are consumed
// before the wait, so an interrupted wait (EINTR) has consumed them, and the
// call's count says so; EAGAIN and EBUSY consume nothing.
func (a *Array) wait(r *ring, k int) {
	for {
		got, errno := r.enter(uint32(k), 1, uringEnterGetEvents)
		a.native.enters.Add(1)
		switch errno {
		case 0:
			if k -= min(max(got, 0), k); k == 0 || got <= 0 {
				return
			}
		case unix.EINTR:
			if k == 0 {
				return
			}
		case unix.EAGAIN, unix.EBUSY:
			runtime.Gosched()
		default:
			panic(fmt.Sprintf("aio: io_uring_enter to submit %d and wait: %v", k, errno))
		}
	}
}

// result sets errs[i] for each request of the batch whose first slot is fs and
// whose CQE result is res (bytes, or a negated errno), and returns the number
// that failed. A short transfer that is not the end of the file (res > 0), and
// a request the kernel canceled or interrupted, are finished synchronously,
// as FileBackend would do them whole; a read that ends at the end of the file
// fails with io.ErrUnexpectedEOF, a write with io.ErrShortWrite.
func (n *native) result(fs *nativeSlot, res int32, reqs []*Request, errs []error) (failed int) {
	var err error
	done := int64(0)
	switch {
	case fs.err != nil:
		err = fs.err
	case res >= 0:
		done = int64(res)
	default:
		switch errno := unix.Errno(-res); errno {
		case unix.EINTR, unix.EAGAIN, unix.ECANCELED:
			// The kernel gave the request back (its submitting thread
			// exited, say): do it here.
		default:
			err = pathError(fs.op, reqs[0].File, errno)
		}
	}
	if f := n.faults.Load(); f != nil && err == nil {
		if ferr := (*f)(res); ferr != nil {
			err, done = ferr, 0
		}
	}
	if err == nil && done < fs.length && (done > 0 || res < 0) {
		more, rerr := finishSync(fs.op, reqs, fs.offset, done)
		done += int64(more)
		if rerr != nil && !errors.Is(rerr, io.EOF) {
			err = rerr
		}
	}
	off := int64(0)
	for i, r := range reqs {
		off += int64(len(r.Buf))
		if err != nil || off > done {
			failed++
			errs[i] = ioError(fs.op, r, err)
		}
	}
	return failed
}

// finishSync transfers the part of a batch past its first done bytes with
// pread/pwrite (preadv/pwritev for several buffers), looping until the end or
// an error, and returns the bytes it moved.
func finishSync(op Op, reqs []*Request, off, done int64) (int, error) {
	bufs := make([][]byte, 0, len(reqs))
	skip := done
	for _, r := range reqs {
		b := r.Buf
		if skip >= int64(len(b)) {
			skip -= int64(len(b))
			continue
		}
		bufs = append(bufs, b[skip:])
		skip = 0
	}
	if len(bufs) == 0 {
		return 0, nil
	}
	f := reqs[0].File
	if op == Write {
		return FileBackend{}.WritevAt(f, bufs, off+done)
	}
	return FileBackend{}.ReadvAt(f, bufs, off+done)
}

// fder is a File with a descriptor, as *os.File.
type fder interface{ Fd() uintptr }

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

// fileInstall puts a File in an entry of a ring's file table, from inside
// the File's SyscallConn Control, with fn built once so that a *os.File's
// install allocates nothing. It is a segment's, used under the segment lock.
type fileInstall struct {
	r   *ring
	fn  func(fd uintptr)
	at  uint32 // the entry fn fills
	err error  // fn's
	set fileUpdate
}

func (in *fileInstall) init(r *ring) {
	in.r = r
	in.fn = func(fd uintptr) {
		// A file without offsets (a pipe, a socket, a terminal) fails with
		// ESPIPE, as pread and pwrite do. io_uring reads and writes such a
		// file at its current position whatever the offset: a read would
		// take the stream's next bytes for the bytes at Offset, and one of
		// an empty pipe would not complete until a writer came, holding
		// Close. lseek fails with ESPIPE exactly where pread does; SEEK_CUR
		// by 0 moves nothing.
		if _, err := unix.Seek(int(fd), 0, io.SeekCurrent); err != nil {
			in.err = err
			return
		}
		if errno := in.set.set(in.r, in.at, int32(fd)); errno != 0 {
			in.err = fmt.Errorf("registering it with io_uring: %w", errno)
		}
	}
}

// file puts f in entry at of the ring's file table, or returns the error
// that fails the requests of an op on f.
//
// A *os.File, or any File that is a syscall.Conn, is put there inside its
// RawConn's Control, while Go holds a reference that keeps the descriptor
// from being closed and its number reused: the entry is f's file. A closed
// *os.File (Control refuses it) fails with os.ErrClosed, as its ReadAt and
// WriteAt do. A File with only an Fd method is put there from the number Fd
// returns, with no such reference: it must stay open until the request
// reaches the kernel, as the Config.IO doc says.
func (in *fileInstall) file(op Op, f File, at uint32) error {
	in.at, in.err = at, nil
	switch x := f.(type) {
	case nil:
		return ErrNoFile
	case *os.File: // before syscall.Conn: the static call allocates nothing
		rc, err := x.SyscallConn()
		if err == nil {
			err = rc.Control(in.fn)
		}
		if err != nil {
			// Control fails only when the File is closed (or nil).
			return pathError(op, f, os.ErrClosed)
		}
	case syscall.Conn:
		rc, err := x.SyscallConn()
		if err == nil {
			err = rc.Control(in.fn)
		}
		if err != nil {
			return pathError(op, f, err)
		}
	case fder:
		fd := x.Fd()
		if fd == ^uintptr(0) {
			return pathError(op, f, os.ErrClosed)
		}
		in.fn(fd)
	default:
		return fmt.Errorf("aio: IO = native needs a File with a descriptor (a syscall.Conn or an Fd method, as *os.File), not %T: %w",
			f, ErrInvalidRequest)
	}
	if in.err != nil {
		return pathError(op, f, in.err)
	}
	return nil
}

// pathError is err for an op on f, named as os.File's errors are when f has
// a Name.
func pathError(op Op, f File, err error) error {
	if nf, ok := f.(interface{ Name() string }); ok {
		return &os.PathError{Op: op.String(), Path: nf.Name(), Err: err}
	}
	return err
}

// ringSyscalls returns the system calls made on the rings so far: every
// io_uring_enter, and every io_uring_register (each ring's file table at
// New, and two a batch: naming its file and emptying the entry).
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
