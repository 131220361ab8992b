package aio

import (
	"fmt"
	"time"

	"github.com/innosim/innosim/prio"
)

// slot is one entry of an array, as os_aio_slot_t: free, or reserved by a
// request that waits for its handler or is in progress.
type slot struct {
	reserved   bool
	inProgress bool
	hint       prio.Hint
	op         Op
	file       uint64
	offset     int64
	length     int64
	at         time.Duration // reservation time (slot->reservation_time)
}

// Reservation is the result of Core.Reserve.
type Reservation struct {
	// Slot is the global slot number (0..Core.Slots()-1) the request now holds,
	// or -1 if the array was full. The driver keeps its buffer and completion
	// under this number until Complete frees the slot.
	Slot int
	// Segment is the global segment of Slot, whose handler will serve the
	// request; -1 if the array was full.
	Segment int
	// Array is the array the request was routed to.
	Array ArrayID
	// Wake holds the segments whose handlers the driver must wake, after it
	// releases its locks: every segment under WakeAll; Segment under
	// WakeTargeted; none under WakeDeferred. On the array-full path: every
	// segment under WakeAll, else the segments of Array with waiting requests.
	Wake SegmentSet
}

// Reserve reserves a slot for r at time now, as os_aio_array_reserve_slot in
// MySQL 5.5–5.7. The request goes to array ArrayOf(r.Op, r.Kind); its local
// segment is (r.Offset / (64 × PageSize)) mod the array's segments, so each run
// of 64 pages lands in one segment; the scan for a free slot starts at that
// segment's first slot and wraps over the whole array, so a busy segment spills
// into the next. Reserve is Route, then ReserveIn on each segment in scan
// order, then ArrayFull if none had room; it touches every segment of the
// array.
//
// If every slot of the array is reserved, Reserve returns ErrArrayFull, counts an
// array-full wait, and the Reservation's Wake holds the segments to wake so that
// slots free up (see ArrayFull). An invalid r (negative offset, length ≤ 0,
// unknown Op, Kind or Hint, or an I/O past the int64 range) gives an error
// wrapping ErrInvalidRequest and changes nothing. Reserve does not allocate.
func (c *Core) Reserve(r SlotRequest, now time.Duration) (Reservation, error) {
	start, err := c.Route(r)
	if err != nil {
		return Reservation{Slot: -1, Segment: -1}, err
	}
	id := c.segArray[start]
	a := &c.arrays[id]
	for k := range a.n {
		var res Reservation
		if c.reserveIn(&res, a.wrap(start+k), id, r, now) {
			return res, nil
		}
	}
	return c.ArrayFull(id), ErrArrayFull
}

// Route returns the global segment where Reserve's scan for r starts: the local
// segment (r.Offset / (64 × PageSize)) mod n of r's array of n segments. The
// error wraps ErrInvalidRequest for an invalid r, as Reserve's. Route reads only
// immutable state.
func (c *Core) Route(r SlotRequest) (seg int, err error) {
	if err := checkSlotRequest(r); err != nil {
		return -1, err
	}
	return c.route(r), nil
}

// route is Route for a request already checked.
func (c *Core) route(r SlotRequest) int {
	a := &c.arrays[c.ArrayOf(r.Op, r.Kind)]
	stripe := uint64(r.Offset) >> (c.pageShift + 6) // r is checked: Offset >= 0
	n := uint64(a.n)
	if n&(n-1) == 0 {
		return a.first + int(stripe&(n-1)) // a power of two, as the defaults: no division
	}
	return a.first + int(stripe%n)
}

// ReserveIn reserves the first free slot of global segment seg for r at time
// now: one step of Reserve's scan, touching seg alone (and, under WakeDeferred,
// an atomic record for Flush). It returns ErrSegmentFull, changing nothing, if
// every slot of seg is reserved; an error wrapping ErrInvalidRequest if r is
// invalid or seg is not a segment of r's array. The Reservation's Wake is
// every segment under WakeAll, seg under WakeTargeted, none under
// WakeDeferred (seg is recorded for the next Flush). ReserveIn does not
// allocate.
func (c *Core) ReserveIn(seg int, r SlotRequest, now time.Duration) (Reservation, error) {
	if err := checkSlotRequest(r); err != nil {
		return Reservation{Slot: -1, Segment: -1}, err
	}
	id := c.ArrayOf(r.Op, r.Kind)
	if c.segArray[seg] != id {
		return Reservation{Slot: -1, Segment: -1, Array: id},
			fmt.Errorf("aio: segment %d is in the %s array, not the %s array of this request: %w",
				seg, c.segArray[seg], id, ErrInvalidRequest)
	}
	var res Reservation
	if c.reserveIn(&res, seg, id, r, now) {
		return res, nil
	}
	return Reservation{Slot: -1, Segment: -1, Array: id}, ErrSegmentFull
}

// reserveIn is ReserveIn for a checked request r of array id, whose segment
// seg is. It returns false, leaving *res as it was, if seg is full; else it
// fills *res. (An out parameter, not a result: the driver's Submit calls it per
// request, and copying a returned Reservation right after the callee wrote it
// field by field stalled on store forwarding.)
func (c *Core) reserveIn(res *Reservation, seg int, id ArrayID, r SlotRequest, now time.Duration) bool {
	sg := &c.segs[seg]
	i := sg.findFree()
	if i < 0 {
		return false
	}
	sg.used[i>>6] |= 1 << (uint(i) & 63)
	g := seg*c.cfg.SlotsPerSegment + i
	c.slots[g] = slot{
		reserved: true,
		hint:     r.Hint,
		op:       r.Op,
		file:     r.File,
		offset:   r.Offset,
		length:   r.Length,
		at:       now,
	}
	sg.waiting++
	sg.reserved++
	sg.maxReserved = max(sg.maxReserved, sg.reserved)
	sg.st.reserved++
	res.Slot, res.Segment, res.Array = g, seg, id
	res.Wake = SegmentSet{}
	switch c.cfg.Wake {
	case WakeAll:
		res.Wake = c.all
		sg.st.signals += uint64(len(c.segs))
	case WakeTargeted:
		res.Wake.Add(seg)
		sg.st.signals++
	case WakeDeferred:
		w, bit := &c.deferred[seg>>6], uint64(1)<<(uint(seg)&63)
		if w.Load()&bit == 0 {
			w.Or(bit)
		}
	}
	return true
}

// ArrayFull is the array-full path of Reserve, for a driver that found every
// segment of array a full (under all of a's segment locks): it counts an
// array-full wait and returns the segments to wake so that slots free up —
// every segment under WakeAll (InnoDB calls os_aio_simulated_wake_handler_threads
// there: the path of MySQL bug 95491), else the segments of a with requests
// waiting (under WakeDeferred this also stands for the pending Flush of a).
// ArrayFull touches every segment of a.
func (c *Core) ArrayFull(a ArrayID) Reservation {
	ar := &c.arrays[a]
	res := Reservation{Slot: -1, Segment: -1, Array: a}
	ar.st.fullWaits++
	if c.cfg.Wake == WakeAll {
		res.Wake = c.all
	} else {
		for s := ar.first; s < ar.first+ar.n; s++ {
			if c.segs[s].waiting > 0 {
				res.Wake.Add(s)
			}
		}
		if c.cfg.Wake == WakeDeferred {
			for i := range c.deferred {
				c.deferred[i].And(^ar.segs.w[i])
			}
		}
	}
	ar.st.signals += uint64(res.Wake.Len())
	return res
}

func checkSlotRequest(r SlotRequest) error {
	if r.Op.isSync() {
		switch {
		case r.Kind > KindLog:
			return fmt.Errorf("aio: Kind = %d, want KindNormal, KindIbuf or KindLog: %w", r.Kind, ErrInvalidRequest)
		case !r.Hint.Valid():
			return fmt.Errorf("aio: Hint = %d, want prio.Idle..prio.Interrupt: %w", r.Hint, ErrInvalidRequest)
		case r.Offset != 0 || r.Length != 0:
			return fmt.Errorf("aio: %s with Offset = %d and Length = %d, want 0 and 0 (a sync covers the whole file): %w",
				r.Op, r.Offset, r.Length, ErrInvalidRequest)
		}
		return nil
	}
	switch {
	case r.Op > Fdatasync:
		return fmt.Errorf("aio: Op = %d, want Read, Write, Fsync or Fdatasync: %w", r.Op, ErrInvalidRequest)
	case r.Kind > KindLog:
		return fmt.Errorf("aio: Kind = %d, want KindNormal, KindIbuf or KindLog: %w", r.Kind, ErrInvalidRequest)
	case !r.Hint.Valid():
		return fmt.Errorf("aio: Hint = %d, want prio.Idle..prio.Interrupt: %w", r.Hint, ErrInvalidRequest)
	case r.Offset < 0:
		return fmt.Errorf("aio: Offset = %d, want ≥ 0: %w", r.Offset, ErrInvalidRequest)
	case r.Length <= 0:
		return fmt.Errorf("aio: Length = %d, want > 0: %w", r.Length, ErrInvalidRequest)
	case r.Offset > (1<<63-1)-r.Length:
		return fmt.Errorf("aio: Offset + Length = %d + %d overflows int64: %w", r.Offset, r.Length, ErrInvalidRequest)
	}
	return nil
}
