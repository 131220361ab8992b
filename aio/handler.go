package aio

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"sync/atomic"
	"unsafe"

	"github.com/innosim/innosim/prio"
)

// handlerScratch is one handler's memory, reused for every batch so the loop
// does not allocate once the combined buffer has grown to its largest batch.
type handlerScratch struct {
	reqs []*Request // the batch being done
	errs []error    // its requests' errors, by position
	ns   []int      // its requests' bytes transferred, by position
	// done, doneErrs and doneNs hold the last batch's requests until their
	// completions are delivered (see handle), and after them any request
	// the handler took out of the overflow queue with its context ended.
	done     []*Request
	doneErrs []error
	doneNs   []int
	ended    []endedRequest // out of the overflow queue with their context ended
	bufs     [][]byte       // the requests' buffers, for a VectorBackend
	buf      []byte         // combined buffer of a merged batch, page aligned
	// g is the handler's goroutine id (0 until its first delivery), published
	// in *deliverer while it runs a caller's Done, so that Close and Submit can
	// tell a call from a Done.
	g         uint64
	deliverer *atomic.Uint64
	// calls counts the Backend calls (Stats.Syscalls) and the ioprio_set
	// calls; ioprio is the I/O priority the handler's thread has (WithIOPriority).
	calls  atomic.Uint64
	ioprio prio.IOPrio
}

func (h *handlerScratch) init(limit int) {
	h.reqs = make([]*Request, 0, limit)
	h.errs = make([]error, limit)
	h.ns = make([]int, limit)
	h.done = make([]*Request, 0, limit)
	h.doneErrs = make([]error, limit)
	h.doneNs = make([]int, limit)
	h.bufs = make([][]byte, 0, limit)
}

// deliverBatch calls Done for the last completed batch, once each, and for
// the requests the handler took out of the overflow queue ended.
func (a *Array) deliverBatch(h *handlerScratch) {
	if len(h.done) == 0 && len(h.ended) == 0 {
		return
	}
	if h.g == 0 {
		h.g = goroutineID()
	}
	for i, r := range h.done {
		err, n := h.doneErrs[i], h.doneNs[i]
		h.done[i], h.doneErrs[i], h.doneNs[i] = nil, nil, 0
		a.deliver(h.deliverer, h.g, r, n, err)
	}
	h.done = h.done[:0]
	for i, e := range h.ended {
		h.ended[i] = endedRequest{}
		a.deliver(h.deliverer, h.g, e.r, 0, e.err)
	}
	h.ended = h.ended[:0]
}

// drainSimulated takes requests out of array id's overflow queue into
// segment seg's free slots (see drain), with seg's lock held, and sets the
// events their reservations wake but seg's own: seg's handler, the caller,
// picks them next.
func (a *Array) drainSimulated(seg int, id ArrayID, h *handlerScratch) {
	_, wake := a.drain(seg, id, &h.ended)
	for s := wake.Next(0); s >= 0; s = wake.Next(s + 1) {
		if s != seg {
			a.events[s].Set()
		}
	}
}

// handle is the handler thread of global segment seg: the loop of
// fil_aio_wait → os_aio_simulated_handle, whose decisions are HandlerCycle's;
// handle does the blocking. In HandlerFutex mode it runs on its
// own locked OS thread and never unlocks it, so the thread ends with the
// goroutine and none is left behind.
//
// After an I/O the handler retakes its segment's lock once to complete the batch
// and pick the next, and delivers the finished batch's completions after
// releasing it: right before the next I/O, or right before it sleeps. The
// second case matters for latency: a submitter woken by Done then finds this
// handler parking, not still busy, as with a plain worker goroutine.
func (a *Array) handle(seg int) {
	defer a.handlers.Done()
	if a.cfg.Handlers == HandlerFutex {
		runtime.LockOSThread()
	}
	id := a.core.ArrayOfSegment(seg)
	mu := &a.segMu[seg].Mutex
	ev := a.events[seg]
	h := &a.work[seg]
	h.deliverer = &a.segMu[seg].deliverer
	// Wait for the first wake before looking at the segment, as between
	// batches: a request reserved before this goroutine ran has set the event
	// already (a new event is reset with signal count 0, so the Set is kept),
	// or, under WakeDeferred, waits for Flush like any other. Looking first
	// served such a request unwoken, depending on when the goroutine started.
	ev.Wait(0)
	c := HandlerCycle{core: a.core, seg: seg}
	if o, ok := a.backend.(cycleObserver); ok {
		c.Observe = o.ObserveCycle
	}
	if a.opts.ioprio {
		// For good: the thread's I/O priority is set per batch and must not
		// reach another goroutine, so the thread ends with the handler.
		runtime.LockOSThread()
	}
	c.Woken()
	mu.Lock()
	for {
		if a.over[id].n.Load() > 0 {
			a.drainSimulated(seg, id, h)
		}
		switch c.Next(a.now, a.closed[id]).Action {
		case HandlerExit:
			mu.Unlock()
			a.deliverBatch(h)
			return
		case HandlerSleep:
			// Reset under the segment lock, after finding nothing: a submitter
			// reserves under the same lock and sets the event after, so its
			// Set lands after this Reset and the Wait below sees it. (A
			// WakeAll or Flush Set from elsewhere may land before it and be
			// lost, but it found nothing to do here anyway.)
			count := ev.Reset()
			mu.Unlock()
			a.deliverBatch(h)
			ev.Wait(count)
			c.Woken()
			mu.Lock()
			continue
		}
		b := c.Batch()
		reqs := h.reqs[:0]
		for _, s := range b.Slots {
			r := a.reqs[s]
			reqs = append(reqs, r)
			a.reqs[s] = nil
			a.dropFile(seg, r.File) // picked: it no longer waits to be merged
		}
		mu.Unlock()
		a.deliverBatch(h)

		failed := a.do(h, *b, reqs)
		h.reqs, h.done = h.done, reqs
		h.errs, h.doneErrs = h.doneErrs, h.errs
		h.ns, h.doneNs = h.doneNs, h.ns

		mu.Lock()
		c.Complete(failed)
		// os_event_set(array->not_full), one waiter per slot freed (see
		// fullWait). Registered waiters are seen here.
		a.full[id].signal(len(reqs))
	}
}

// do performs batch b for reqs (in file order) and sets h.errs[i] and
// h.ns[i] for each request. With a plain Backend it is one call: a merged
// read goes through the combined buffer and is copied out; a merged write is
// copied in first, as InnoDB does with its combined_buf. With a
// VectorBackend a merged batch is one vectored call per run of equally
// aligned requests (see alignedRun). A sync is one call for the batch. It
// returns the number of failed requests.
func (a *Array) do(h *handlerScratch, b Batch, reqs []*Request) (failed int) {
	if a.opts.ioprio {
		a.setIOPrio(h, b)
	}
	if b.Op.isSync() {
		h.calls.Add(1)
		err := syncFile(a.backend, b.Op, reqs[0].File)
		for i, r := range reqs {
			h.ns[i] = 0
			if err != nil {
				failed++
				h.errs[i] = fmt.Errorf("aio: %s: %w", r.Op, err)
			}
		}
		return failed
	}
	if vb, ok := a.backend.(VectorBackend); ok && len(reqs) > 1 {
		for i := 0; i < len(reqs); {
			j := i + alignedRun(reqs[i:])
			h.calls.Add(1)
			failed += doVector(h, vb, b.Op, reqs[i:j], h.errs[i:j], h.ns[i:j])
			i = j
		}
		return failed
	}
	buf := reqs[0].Buf
	if len(reqs) > 1 {
		if int64(cap(h.buf)) < b.Length {
			h.buf = alignedBuffer(int(b.Length), int(a.cfg.PageSize)) // PageSize is validated
		}
		buf = h.buf[:b.Length]
		if b.Op == Write {
			off := 0
			for _, r := range reqs {
				off += copy(buf[off:], r.Buf)
			}
		}
	}
	h.calls.Add(1)
	n, err := a.transfer(b.Op, reqs[0].File, buf, b.Offset)
	n = min(max(n, 0), len(buf))
	off := 0
	for i, r := range reqs {
		end := off + len(r.Buf)
		if b.Op == Read && len(reqs) > 1 && n > off {
			copy(r.Buf, buf[off:min(end, n)])
		}
		h.ns[i] = min(max(n-off, 0), len(r.Buf))
		if end > n || failedDespiteCount(err) {
			failed++
			h.errs[i] = ioError(b.Op, r, err)
		}
		off = end
	}
	return failed
}

// doVector performs consecutive requests reqs with one vectored call into (or
// from) their own buffers and sets errs[i] and ns[i] for each.
func doVector(h *handlerScratch, vb VectorBackend, op Op, reqs []*Request, errs []error, ns []int) (failed int) {
	bufs := h.bufs[:0]
	length := 0
	for _, r := range reqs {
		bufs = append(bufs, r.Buf)
		length += len(r.Buf)
	}
	n, err := transferv(vb, op, reqs[0].File, bufs, reqs[0].Offset)
	clear(bufs)
	n = min(max(n, 0), length)
	off := 0
	for i, r := range reqs {
		ns[i] = min(max(n-off, 0), len(r.Buf))
		off += len(r.Buf)
		if off > n || failedDespiteCount(err) {
			failed++
			errs[i] = ioError(op, r, err)
		}
	}
	return failed
}

// setIOPrio gives the handler's thread (locked to it: see handle) batch b's
// I/O priority, with one ioprio_set when it changes. A refusal is counted
// (Stats.IOPrioRefused) and the I/O goes on at the priority the thread has.
func (a *Array) setIOPrio(h *handlerScratch, b Batch) {
	want := b.Hint.IOPrio()
	if want == h.ioprio {
		return
	}
	h.calls.Add(1)
	if err := prio.SetIOPrio(0, want); err != nil {
		a.ioprioRefused.Add(1)
		return
	}
	h.ioprio = want
}

// maxDirectAlign is the most alignment that O_DIRECT demands of a transfer's
// buffer addresses, lengths and file offset: the device's logical block size,
// 512 or 4096 bytes on Linux (statx's STATX_DIOALIGN reports it).
const maxDirectAlign = 4096

// alignment is the alignment of r's transfer: the largest power of two, up to
// maxDirectAlign, that divides its buffer's address, its length and its offset.
func alignment(r *Request) uint64 {
	x := uint64(uintptr(unsafe.Pointer(unsafe.SliceData(r.Buf)))) | uint64(len(r.Buf)) | uint64(r.Offset) | maxDirectAlign
	return x & -x
}

// alignedRun returns how many of reqs, from the first, share its alignment:
// the requests that go in one vectored call. With O_DIRECT a call fails whole
// with EINVAL if one of its buffers is misaligned, so a merged batch that
// mixed a misaligned request with aligned neighbours failed them all; issued
// by runs, each request succeeds or fails as it would alone (a run succeeds
// exactly when its shared alignment meets the device's), and a batch of
// requests that all share one alignment, the usual case, is still one call.
// The split is the driver's: the Core and Stats count the merged batch once.
func alignedRun(reqs []*Request) int {
	first := alignment(reqs[0])
	n := 1
	for n < len(reqs) && alignment(reqs[n]) == first {
		n++
	}
	return n
}

// transfer is the one Backend call of do. A panic in it is the failure of that
// call, not of the program: it returns n = 0 and a *PanicError, so that every
// request of the call completes once (failed) and the handler goes on.
func (a *Array) transfer(op Op, f File, buf []byte, off int64) (n int, err error) {
	defer recoverBackend(&n, &err)
	if op == Write {
		return a.backend.WriteAt(f, buf, off)
	}
	return a.backend.ReadAt(f, buf, off)
}

// transferv is transfer for a VectorBackend.
func transferv(vb VectorBackend, op Op, f File, bufs [][]byte, off int64) (n int, err error) {
	defer recoverBackend(&n, &err)
	if op == Write {
		return vb.WritevAt(f, bufs, off)
	}
	return vb.ReadvAt(f, bufs, off)
}

// syncFile is the one Backend call of a sync batch, panic-safe as transfer.
func syncFile(b Backend, op Op, f File) (err error) {
	defer recoverBackend(new(int), &err)
	sb, ok := b.(SyncBackend)
	if !ok {
		return fmt.Errorf("backend %T cannot sync (it is not a SyncBackend): %w", b, errors.ErrUnsupported)
	}
	if op == Fdatasync {
		return sb.Fdatasync(f)
	}
	return sb.Fsync(f)
}

// recoverBackend, deferred by transfer, turns a panic into a *PanicError.
func recoverBackend(n *int, err *error) {
	if p := recover(); p != nil {
		*n, *err = 0, &PanicError{Value: p, Stack: debug.Stack()}
	}
}

// goroutineID returns the calling goroutine's id, read from the first line of
// its stack trace ("goroutine 18 [running]:"); ids are never reused. Go has no
// API for it on purpose, and the driver uses it for one question only: is a
// call to Close or Submit made from a Done? It costs a traceback of the caller
// (microseconds), paid by a handler's first delivery, by Close, and by a Submit about
// to wait on a full array while some Done is running; never on the path that
// finds a slot.
func goroutineID() uint64 {
	var buf [64]byte
	s := buf[:runtime.Stack(buf[:], false)]
	s = bytes.TrimPrefix(s, []byte("goroutine "))
	var id uint64
	for _, c := range s {
		if c < '0' || c > '9' {
			break
		}
		id = id*10 + uint64(c-'0')
	}
	return id
}

// failedDespiteCount reports whether a backend error fails the whole batch even
// though its byte count covers every request: any error but io.EOF, which
// io.ReaderAt allows beside a full count at the end of the input.
func failedDespiteCount(err error) bool {
	return err != nil && !errors.Is(err, io.EOF)
}

// ErrBackendPanic is wrapped by the error of every request of a Backend call
// that panicked (see PanicError).
var ErrBackendPanic = errors.New("aio: backend panicked")

// PanicError is what a panic in a Backend call becomes, and under native AIO
// a panic in the methods of a request's File that the driver calls to find
// its descriptor (SyscallConn, Fd, Name): every request of that call or
// batch fails with it (wrapped with the request's op, length and offset), is
// counted as failed, and the handler goes on serving. errors.Is(err,
// ErrBackendPanic) holds, and when the panic value is an error, errors.Is and
// errors.As reach it too. A Done that wants the crash back can panic again.
type PanicError struct {
	// Value is the value the Backend panicked with.
	Value any
	// Stack is the handler thread's stack at the panic, as runtime/debug.Stack
	// formats it: the Backend's frames are on it.
	Stack []byte
}

// Error returns "backend panicked: " and the value.
func (e *PanicError) Error() string { return fmt.Sprintf("backend panicked: %v", e.Value) }

// Unwrap returns ErrBackendPanic and, if the value is an error, the value.
func (e *PanicError) Unwrap() []error {
	if err, ok := e.Value.(error); ok {
		return []error{ErrBackendPanic, err}
	}
	return []error{ErrBackendPanic}
}

// ioError is the error of a request the I/O did not cover: the backend's
// error, or for a short transfer without one, io.ErrUnexpectedEOF (read) or
// io.ErrShortWrite (write).
func ioError(op Op, r *Request, err error) error {
	if err == nil || err == io.EOF {
		err = io.ErrUnexpectedEOF
		if op == Write {
			err = io.ErrShortWrite
		}
	}
	return fmt.Errorf("aio: %s of %d bytes at offset %d: %w", op, len(r.Buf), r.Offset, err)
}
