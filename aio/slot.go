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
	// releases the array mutex: every segment under WakeAll; Segment under
	// WakeTargeted; none under WakeDeferred. On the array-full path: every
	// segment under WakeAll, else the segments of Array with waiting requests.
	Wake SegmentSet
}

// Reserve reserves a slot for r at time now, as os_aio_array_reserve_slot in
// MySQL 5.5–5.7. The request goes to array ArrayOf(r.Op, r.Kind); its local
// segment is (r.Offset / (64 × PageSize)) mod the array's segments, so each run
// of 64 pages lands in one segment; the scan for a free slot starts at that
// segment's first slot and wraps over the whole array, so a busy segment spills
// into the next.
//
// If every slot of the array is reserved, Reserve returns ErrArrayFull, counts an
// array-full wait, and the Reservation's Wake holds the segments to wake so that
// slots free up (InnoDB calls os_aio_simulated_wake_handler_threads there: the
// path of MySQL bug 95491). An invalid r (negative offset, length ≤ 0, unknown
// Op, Kind or Hint, or an I/O past the int64 range) gives an error wrapping
// ErrInvalidRequest and changes nothing. Reserve does not allocate.
func (c *Core) Reserve(r SlotRequest, now time.Duration) (Reservation, error) {
	if err := checkSlotRequest(r); err != nil {
		return Reservation{Slot: -1, Segment: -1}, err
	}
	id := c.ArrayOf(r.Op, r.Kind)
	a := &c.arrays[id]
	res := Reservation{Slot: -1, Segment: -1, Array: id}
	if a.reserved == len(a.slots) {
		a.st.fullWaits++
		if c.cfg.Wake == WakeAll {
			res.Wake = c.all
		} else {
			for s := range a.n {
				if c.segs[a.first+s].waiting > 0 {
					res.Wake.Add(a.first + s)
				}
			}
			if c.cfg.Wake == WakeDeferred {
				a.deferred = SegmentSet{}
			}
		}
		a.st.signals += uint64(res.Wake.Len())
		return res, ErrArrayFull
	}
	local := int((r.Offset >> (c.pageShift + 6)) % int64(a.n))
	i := a.findFree(local * a.perSeg)
	a.used[i>>6] |= 1 << (uint(i) & 63)
	a.slots[i] = slot{
		reserved: true,
		hint:     r.Hint,
		op:       r.Op,
		file:     r.File,
		offset:   r.Offset,
		length:   r.Length,
		at:       now,
	}
	a.reserved++
	a.st.reserved++
	seg := a.first + i/a.perSeg
	sg := &c.segs[seg]
	sg.waiting++
	sg.reserved++
	if sg.reserved > sg.maxReserved {
		sg.maxReserved = sg.reserved
	}
	res.Slot, res.Segment = a.slotBase+i, seg
	switch c.cfg.Wake {
	case WakeAll:
		res.Wake = c.all
	case WakeTargeted:
		res.Wake.Add(seg)
	case WakeDeferred:
		a.deferred.Add(seg)
	}
	a.st.signals += uint64(res.Wake.Len())
	return res, nil
}

func checkSlotRequest(r SlotRequest) error {
	switch {
	case r.Op > Write:
		return fmt.Errorf("aio: Op = %d, want Read or Write: %w", r.Op, ErrInvalidRequest)
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
