package aio

import (
	"errors"
	"fmt"
	"sync/atomic"
)

// A request's Context covers it until its I/O is issued (see Request). The
// watch is a context.AfterFunc registered when the request takes its slot
// (place), or the synchronous call's own wait on ctx.Done(); either calls
// cancel with the slot and the slot's generation then. Everything cancel
// decides, it decides under the slot's segment lock, where the handler picks
// and the native driver issues, so a request is either still waiting (and
// leaves the slot, never to be issued) or was issued (and its I/O is left to
// complete, or, native and alone in its batch, to the kernel's cancel). The
// generation tells a request that has since completed and been accepted
// again, even in the same slot, from the one the watch was set for.

// cancel ends r, accepted in slot g when the slot's generation was gen, if
// it still waits there: the slot is freed, the request counted as canceled
// and completed with its context's error. If r was issued instead, a native
// Array asks the kernel to cancel it (cancelIssued); a simulated one lets it
// complete. It does nothing for a request already completed.
func (a *Array) cancel(r *Request, g int, gen uint32) {
	seg := a.core.SegmentOfSlot(g)
	mu := &a.segMu[seg].Mutex
	mu.Lock()
	if a.gen[g] != gen || a.reqs[g] != r || !a.core.Cancel(seg, g) {
		if a.native != nil {
			a.cancelIssued(seg, g, gen, r) // releases the lock
			return
		}
		mu.Unlock()
		return
	}
	a.reqs[g] = nil
	a.dropFile(seg, r.File)
	id := a.core.ArrayOfSegment(seg)
	mu.Unlock()
	a.full[id].signal(1) // a slot is free, as after a Complete
	a.finish(r, 0, canceledError(r, false))
}

// ErrCanceled is wrapped, beside the context's own error, by the error of a
// request that its context's end kept from beginning its I/O: refused by
// Submit (or a synchronous call) for a context that had ended or that
// ended while it waited for a slot, or completed before its I/O began.
// errors.Is(err, ErrCanceled) says that no byte of it was read or written
// (see "Cancellation" in the package doc).
var ErrCanceled = errors.New("aio: canceled before the I/O began")

// canceledError is the error of r canceled for its context: before it was
// issued, or (inKernel) by the kernel before the I/O began.
func canceledError(r *Request, inKernel bool) error {
	var cause error = errors.New("context ended")
	if r.ctx != nil {
		cause = r.ctx.Err()
	}
	where := "waiting in its slot"
	if inKernel {
		where = "in the kernel"
	}
	if r.Op.isSync() {
		return fmt.Errorf("aio: %s canceled %s: %w: %w", r.Op, where, ErrCanceled, cause)
	}
	return fmt.Errorf("aio: %s of %d bytes at offset %d canceled %s: %w: %w", r.Op, len(r.Buf), r.Offset, where,
		ErrCanceled, cause)
}

// finish completes r, n bytes transferred, with err: the last thing the
// Array does with r. The request may be submitted again from the moment its
// busy mark is cleared, which is just before Done, so that a Done may submit
// its own request again.
func (a *Array) finish(r *Request, n int, err error) {
	r.n = n
	if r.stop != nil {
		r.stop()
		r.stop = nil
	}
	r.ctx = nil
	done := r.Done
	atomic.StoreUint32(&r.busy, 0)
	done(r, err)
}

// deliver is finish on a handler thread: a caller's Done runs with the
// handler's goroutine id g published in d (and counted in inDone), so that
// Close, Submit and the synchronous calls can tell a call from a Done.
func (a *Array) deliver(d *atomic.Uint64, g uint64, r *Request, n int, err error) {
	if r.internal {
		a.finish(r, n, err)
		return
	}
	d.Store(g)
	a.inDone.Add(1)
	a.finish(r, n, err)
	a.inDone.Add(-1)
	d.Store(0)
}
