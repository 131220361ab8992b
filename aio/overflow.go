package aio

import (
	"sync"
	"sync/atomic"
)

// overflow is an array's queue of requests a Done submitted while the array
// was full (see Submit). A Done must not wait for a slot, since the slot may
// be one only its own handler can free; so the request waits here instead,
// accepted, and the first handler of the array to free a slot moves it into
// that slot (drain) before it looks for its next batch. Requests are pushed
// under every segment lock of the array, as a full-array waiter registers,
// and drained under one of them, so a handler that sees the queue empty under
// its lock after Close sees it empty for good: Close takes every lock to mark
// the array closed, and a closed array takes no more.
type overflow struct {
	n        atomic.Int32 // requests queued: a handler's cheap look
	mu       sync.Mutex
	head     *Request // linked through Request.next; under mu
	tail     *Request
	pending  uint64 // requests queued, for Stats; under mu
	canceled uint64 // requests whose context ended in the queue; under mu
}

// push queues r; the caller holds every segment lock of the array.
func (o *overflow) push(r *Request) {
	o.mu.Lock()
	r.next = nil
	if o.tail == nil {
		o.head = r
	} else {
		o.tail.next = r
	}
	o.tail = r
	o.pending++
	o.n.Add(1)
	o.mu.Unlock()
}

// counts returns the queued and the canceled requests, for Stats.
func (o *overflow) counts() (pending, canceled uint64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.pending, o.canceled
}

// endedRequest is a request to complete with err once the handler has
// released its segment's lock.
type endedRequest struct {
	r   *Request
	err error
}

// drain moves queued requests of array id into free slots of segment seg,
// whose lock the caller (seg's handler) holds, oldest first, until the queue
// or the segment's free slots run out. A request whose context has ended
// leaves the queue counted as canceled and is appended to *ended, with its
// error, for the handler to complete after it releases the lock. It returns
// how many it placed and the segments their reservations wake (the caller
// serves its own segment itself).
func (a *Array) drain(seg int, id ArrayID, ended *[]endedRequest) (placed int, wake SegmentSet) {
	o := &a.over[id]
	if o.n.Load() == 0 {
		return 0, wake
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	for o.head != nil {
		r := o.head
		if r.ctx != nil && r.ctx.Err() != nil {
			o.pop()
			o.canceled++
			*ended = append(*ended, endedRequest{r, canceledError(r, false)})
			continue
		}
		sr := SlotRequest{Op: r.Op, Kind: r.Kind, Offset: r.Offset, Length: int64(len(r.Buf)), Hint: r.Hint}
		sr.File = a.holdFile(seg, r.File)
		var res Reservation
		if !a.core.reserveIn(&res, seg, id, sr, a.now()) {
			a.dropFile(seg, r.File)
			break
		}
		o.pop()
		a.place(r, res.Slot)
		wake = wake.Union(res.Wake)
		placed++
	}
	return placed, wake
}

// pop removes the head; under mu.
func (o *overflow) pop() {
	r := o.head
	o.head = r.next
	if o.head == nil {
		o.tail = nil
	}
	r.next = nil
	o.pending--
	o.n.Add(-1)
}
