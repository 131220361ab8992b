package aio

import (
	"context"
	"fmt"
	"sync/atomic"
)

// Submit queues r, as os_aio in simulated mode: it reserves a slot under the
// segment's lock, then wakes handlers by the wake policy. It returns nil when r is
// accepted, and then r.Done is called exactly once. Otherwise it returns an
// error and Done is never called:
//
//   - an error wrapping ErrInvalidRequest: r is nil, has no Done, an empty Buf
//     (a read or write) or a Buf (a sync), a File whose type is not
//     comparable or that is a nil pointer (a nil *os.File), a negative Offset (a sync: not 0), an Offset + len(Buf)
//     past the int64 range, or an unknown Op, Kind or Hint (checked first,
//     whatever ctx and the Array's state);
//   - ErrClosed: Close has begun, before r was accepted (not counted),
//     whatever ctx;
//   - ErrInFlight: r was accepted before and its Done has not been called;
//   - an error wrapping ErrCanceled and ctx's error (or r.Context's): it
//     had ended on entry, or ended while Submit waited for a free slot
//     (counted as submitted and canceled, so Stats shows the requests that
//     callers gave up on).
//
// ctx covers only the wait for a slot. r.Context, if set, covers the
// request itself until its I/O is issued (see Request.Context): one that has
// already ended refuses r as ctx would, and one that ends while Submit waits
// for a slot ends the wait.
//
// Under WakeDeferred an accepted request wakes nothing (native AIO: is not
// submitted to the kernel) until Flush. When the array is full Submit wakes
// the segments Core.ArrayFull names — every segment under WakeAll, else those
// with requests waiting, which under WakeDeferred stands for the pending Flush
// (native AIO submits those segments' requests to the kernel instead) — and
// blocks until a slot frees, ctx ends or the Array closes. Submit does not
// allocate, except that an r.Context that can end (Done() != nil) costs one
// context.AfterFunc per accepted request.
//
// Submit may be called from a Done (to chain a request), but there it never
// waits: on a full array it accepts r into the array's overflow queue, and
// the first handler that frees a slot of the array takes it from there into
// that slot, as a waiting submitter would take the slot, with r.Context
// checked then (an ended one completes r with its error). It waits for no slot
// because the slot it would wait for may be one that only the handler
// running that Done can free. The same holds under simulated and native AIO.
func (a *Array) Submit(ctx context.Context, r *Request) error {
	_, _, err := a.submit(ctx, r)
	return err
}

// submit is Submit. It also returns the slot r was accepted in and the
// slot's generation then, for a synchronous call's cancel; slot is -1 for a
// request taken into the overflow queue.
func (a *Array) submit(ctx context.Context, r *Request) (slot int, gen uint32, err error) {
	sr, err := checkRequest(r)
	// An invalid request is refused as such whatever the context or the
	// Array's state, and counts nothing.
	if err != nil {
		return -1, 0, err
	}
	if a.closing.Load() {
		return -1, 0, ErrClosed
	}
	if !atomic.CompareAndSwapUint32(&r.busy, 0, 1) {
		return -1, 0, fmt.Errorf("aio: %s of %d bytes at offset %d submitted again before its Done: %w",
			r.Op, len(r.Buf), r.Offset, ErrInFlight)
	}
	slot, gen, err = a.accept(ctx, r, sr)
	if err != nil {
		r.ctx = nil
		atomic.StoreUint32(&r.busy, 0)
	}
	return slot, gen, err
}

// accept is submit for a checked r that this call owns (busy).
func (a *Array) accept(ctx context.Context, r *Request, sr SlotRequest) (slot int, gen uint32, err error) {
	if err := ctx.Err(); err != nil {
		a.canceled.Add(1)
		return -1, 0, fmt.Errorf("aio: submit: %w: %w", ErrCanceled, err)
	}
	r.ctx = nil
	var ended <-chan struct{} // r.Context's, which also ends a wait for a slot
	if c := r.Context; c != nil {
		if err := c.Err(); err != nil {
			a.canceled.Add(1)
			return -1, 0, fmt.Errorf("aio: submit: %w: the request's Context: %w", ErrCanceled, err)
		}
		if ended = c.Done(); ended != nil {
			r.ctx = c
		}
	}
	start := a.core.route(sr)
	id := a.core.ArrayOfSegment(start)
	arr := &a.core.arrays[id]
	full := &a.full[id]
	var (
		res               Reservation
		fromDone, checked bool
		woken             bool // a freed slot's wake came to this submitter
	)
	for {
		// The scan of Reserve, one segment lock at a time, unless others
		// wait for a slot: a free slot is theirs first (see fullWait).
		if !woken && !full.queued() {
			for k := range arr.n {
				seg := arr.wrap(start + k)
				mu := &a.segMu[seg].Mutex
				mu.Lock()
				done, err := a.reserveIn(&res, seg, id, r, sr)
				if done && err == nil {
					slot, gen = res.Slot, a.gen[res.Slot]
				}
				mu.Unlock()
				if done {
					a.wake(res.Wake)
					return slot, gen, err
				}
			}
		}
		// Every segment looked full, or others wait. Look again holding all
		// of them, so that no Complete can slip between the last look and
		// the wait.
		if !checked { // once per Submit, and never on the path that finds a slot
			fromDone, checked = a.calledFromDone(), true
		}
		a.lockArray(id)
		if a.closed[id] {
			if woken {
				full.consume()
			}
			a.unlockArray(id)
			return -1, 0, ErrClosed
		}
		if woken || !full.queued() {
			for k := range arr.n {
				seg := arr.wrap(start + k)
				if done, err := a.reserveIn(&res, seg, id, r, sr); done {
					if err == nil {
						slot, gen = res.Slot, a.gen[res.Slot]
					}
					if woken && full.consume() && !a.core.Full(id) {
						full.signal(1) // a slot is still free: the next waiter's
					}
					a.unlockArray(id)
					a.wake(res.Wake)
					return slot, gen, err
				}
			}
		}
		if woken {
			full.consume()
		}
		wake := a.core.ArrayFull(id)
		if fromDone {
			// Registered under every lock of the array, as a waiter is: a
			// handler that frees a slot after this sees it (see overflow).
			a.over[id].push(r)
			a.unlockArray(id)
			a.wake(wake.Wake)
			return -1, 0, nil
		}
		w := full.enqueue(woken) // a waiter that lost its slot keeps its place
		a.unlockArray(id)
		a.wake(wake.Wake)
		var cause error
		select {
		case <-w.ch:
			full.release(w)
			woken = true
			continue
		case <-ctx.Done():
			cause = ctx.Err()
		case <-ended:
			cause = fmt.Errorf("the request's Context: %w", r.ctx.Err())
		}
		full.leave(w)
		a.canceled.Add(1)
		return -1, 0, fmt.Errorf("aio: waiting for a free slot in the %s array: %w: %w", id, ErrCanceled, cause)
	}
}

// reserveIn tries to reserve r (as sr, checked) in segment seg of array id,
// whose lock the caller holds. done is false if seg is full; otherwise err is
// Submit's result and, if nil, res.Wake the segments to wake once the lock is
// released. res is an out parameter, as in Core.reserveIn.
func (a *Array) reserveIn(res *Reservation, seg int, id ArrayID, r *Request, sr SlotRequest) (done bool, err error) {
	if a.closed[id] {
		return true, ErrClosed
	}
	sr.File = a.holdFile(seg, r.File)
	if !a.core.reserveIn(res, seg, id, sr, a.now()) {
		a.dropFile(seg, r.File)
		return false, nil
	}
	a.place(r, res.Slot)
	return true, nil
}

// place puts the accepted request r in the slot g just reserved for it, under
// g's segment lock: the slot's generation moves on, and a Context that can
// end gets a watch that cancels r while it still waits there (a synchronous
// call watches its own).
func (a *Array) place(r *Request, g int) {
	a.reqs[g] = r
	a.gen[g]++
	if r.ctx != nil && !r.internal {
		gen := a.gen[g]
		r.stop = context.AfterFunc(r.ctx, func() { a.cancel(r, g, gen) })
	}
}

// calledFromDone reports whether the caller is a caller's Done that one of
// a's handlers is running. While no handler runs one it costs a load;
// otherwise one goroutineID, which is why Submit asks only before it would
// wait.
func (a *Array) calledFromDone() bool {
	if a.inDone.Load() == 0 {
		return false
	}
	var g uint64
	for i := range a.segMu {
		d := a.segMu[i].deliverer.Load()
		if d == 0 {
			continue
		}
		if g == 0 {
			g = goroutineID()
		}
		if d == g {
			return true
		}
	}
	return false
}
