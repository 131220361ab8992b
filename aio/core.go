package aio

import (
	"errors"
	"math/bits"
)

// ErrArrayFull is returned by Core.Reserve when every slot of the request's array
// is reserved. The Reservation still carries the segments to wake (the
// array-full path of os_aio_array_reserve_slot); the caller waits until Complete
// reports that the array was full, then tries again.
var ErrArrayFull = errors.New("aio: array full")

// ErrInvalidRequest is wrapped by the errors for a request with a negative
// offset, a zero length, an unknown Op, Kind or hint, or a missing buffer or
// completion.
var ErrInvalidRequest = errors.New("invalid request")

// Core is the deterministic policy core of simulated AIO: the slot arrays, their
// segments, the slot choice, the handler's pick and merge, the wake set and the
// counters. It has no goroutines, no clock, no I/O and never blocks: every call
// that needs time takes now, a monotonic offset from any origin the driver
// chooses (virtual time in the simulator, time.Since(start) in the real driver),
// which must not go backwards.
//
// A driver runs it in this cycle (the real driver is Array; the simulator in
// package sim is the other):
//
//	submitter:  res, err := c.Reserve(req, now)    // under the mutex of c.ArrayOf(req.Op, req.Kind)
//	            wake every segment in res.Wake        // after releasing the mutex
//	            if err == ErrArrayFull: wait for a Complete that returns true, retry
//	flusher:    wake every segment in c.Flush(a)   // WakeDeferred, under a's mutex
//	handler s:  b, ok := c.Pick(s, now, woken)     // under the mutex of c.ArrayOfSegment(s)
//	            if !ok: reset the event, release the mutex, sleep, then Pick(s, now, true)
//	            else: release the mutex, do one I/O of b.Length bytes at b.Offset,
//	                  retake it, full := c.Complete(s, failed), release it, deliver
//	                  the completions of b.Slots (read b.Slots before Complete)
//
// Concurrency: a Core is not safe for concurrent use, except that calls about
// different arrays touch disjoint state, so a driver may guard each array with
// its own mutex as InnoDB does (array->mutex). Reserve and Flush touch the array
// they name or route to; Pick, Complete, Waiting and Reserved touch the array of
// their segment; ArrayStats touches its array; Stats touches all of them.
// Layout methods (Segments, ArrayOf, ArrayOfSegment, ArraySegments,
// SegmentOfSlot, Config) read only immutable state.
//
// Arguments: Reserve validates its request (ErrInvalidRequest). The segment
// and ArrayID arguments of the other methods are the driver's own bookkeeping,
// not user input, and must be in range — a segment in 0..Segments()-1, an
// ArrayID of an enabled array, an Op and Kind that Reserve accepts — or the
// call panics as an out-of-range index does; Array never passes one that is
// not. Complete must follow a Pick of the same segment.
//
// Reserve, Flush, Pick and Complete do not allocate; a pick costs one pass over
// the segment's slots plus, when two or more requests wait, one more pass and a
// hash lookup per merged request.
type Core struct {
	cfg       Config
	pageShift uint
	all       SegmentSet // every global segment: the WakeAll set
	arrays    [numArrays]array
	segArray  []ArrayID  // array of each global segment
	segs      []segState // by global segment
	slots     []slot     // every slot; each array owns a contiguous run
}

// array is one of InnoDB's os_aio_array_t: a run of slots cut into segments.
type array struct {
	first    int // global segment number of local segment 0
	n        int // segments; 0 for a disabled ibuf or log array
	perSeg   int // slots per segment
	slotBase int // global slot number of local slot 0
	slots    []slot
	used     []uint64   // bit i set: local slot i reserved; bits past the end set
	reserved int        // slots reserved (waiting or in progress)
	deferred SegmentSet // WakeDeferred: segments that received requests since the last Flush
	merge    mergeTable // scratch for Pick, guarded like the array
	st       counters
}

// segState is what the core keeps per global segment.
type segState struct {
	waiting     int   // reserved slots not yet picked
	reserved    int   // reserved slots, waiting or in progress
	maxReserved int   // high-water mark of reserved
	busy        bool  // a batch is in progress (between Pick and Complete)
	batch       []int // global slot numbers of the batch in progress; cap MergeLimit
}

// counters are one array's statistics (see Stats for their meaning).
type counters struct {
	reserved, completed, failed               uint64
	signals, wakeups, wasted, batches, merges uint64
	fullWaits                                 uint64
}

// NewCore builds a Core for cfg with every slot free. It returns an error
// wrapping ErrInvalidConfig if a field is out of range (see Config.Validate).
// The fields Handlers and Backend are the real driver's and are only checked
// for range.
func NewCore(cfg Config) (*Core, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	c := &Core{cfg: cfg, pageShift: uint(bits.TrailingZeros64(uint64(cfg.PageSize)))}
	nseg := [numArrays]int{ArrayRead: cfg.ReadSegments, ArrayWrite: cfg.WriteSegments}
	if cfg.IbufSegment {
		nseg[ArrayIbuf] = 1
	}
	if cfg.LogSegment {
		nseg[ArrayLog] = 1
	}
	total := cfg.Segments()
	c.slots = make([]slot, total*cfg.SlotsPerSegment)
	c.segs = make([]segState, total)
	c.segArray = make([]ArrayID, total)
	batches := make([]int, total*cfg.MergeLimit)
	g := 0
	for id := range numArrays {
		a := &c.arrays[id]
		a.first, a.n, a.perSeg = g, nseg[id], cfg.SlotsPerSegment
		a.slotBase = g * cfg.SlotsPerSegment
		a.slots = c.slots[a.slotBase : a.slotBase+a.n*a.perSeg]
		if a.n > 0 {
			a.merge.init(a.perSeg)
			a.used = make([]uint64, (len(a.slots)+63)/64)
			if tail := len(a.slots) % 64; tail != 0 {
				a.used[len(a.used)-1] = ^uint64(0) << uint(tail)
			}
		}
		for range a.n {
			c.segArray[g] = id
			c.segs[g].batch = batches[g*cfg.MergeLimit : g*cfg.MergeLimit : (g+1)*cfg.MergeLimit]
			g++
		}
	}
	c.all.addRange(0, total)
	return c, nil
}

// Config returns the configuration the Core was built with.
func (c *Core) Config() Config { return c.cfg }

// Segments returns the number of global segments (handler threads).
func (c *Core) Segments() int { return len(c.segs) }

// Slots returns the total number of slots; slot numbers are 0..Slots()-1.
func (c *Core) Slots() int { return len(c.slots) }

// findFree returns the first free local slot at or after start, wrapping to the
// array's beginning: the result of InnoDB's linear scan, found a word of 64
// slots at a time. The array must not be full.
func (a *array) findFree(start int) int {
	w := start >> 6
	if free := ^a.used[w] & (^uint64(0) << (uint(start) & 63)); free != 0 {
		return w<<6 + bits.TrailingZeros64(free)
	}
	for i := 1; i <= len(a.used); i++ {
		k := (w + i) % len(a.used)
		if free := ^a.used[k]; free != 0 {
			return k<<6 + bits.TrailingZeros64(free)
		}
	}
	return -1 // unreachable while reserved < len(slots)
}

// ArrayOf returns the array a request of this op and kind goes to, as os_aio
// chooses between os_aio_ibuf_array, os_aio_log_array, os_aio_read_array and
// os_aio_write_array.
func (c *Core) ArrayOf(op Op, kind Kind) ArrayID {
	switch {
	case kind == KindIbuf && c.cfg.IbufSegment:
		return ArrayIbuf
	case kind == KindLog && c.cfg.LogSegment:
		return ArrayLog
	case op == Write:
		return ArrayWrite
	}
	return ArrayRead
}

// ArrayOfSegment returns the array that global segment seg belongs to.
// seg must be in 0..Segments()-1.
func (c *Core) ArrayOfSegment(seg int) ArrayID { return c.segArray[seg] }

// ArraySegments returns the global number of the array's first segment and its
// number of segments (0 for a disabled ibuf or log array).
func (c *Core) ArraySegments(a ArrayID) (first, n int) {
	return c.arrays[a].first, c.arrays[a].n
}

// SegmentOfSlot returns the global segment that slot belongs to: slots are cut
// into segments by position, as os_aio_get_segment_no_from_slot.
func (c *Core) SegmentOfSlot(slot int) int { return slot / c.cfg.SlotsPerSegment }

// Waiting returns the number of requests in segment seg that no handler has
// picked yet.
func (c *Core) Waiting(seg int) int { return c.segs[seg].waiting }

// Reserved returns the number of reserved slots (waiting or in progress) in
// array a.
func (c *Core) Reserved(a ArrayID) int { return c.arrays[a].reserved }

// Busy reports whether segment seg has a batch between Pick and Complete.
func (c *Core) Busy(seg int) bool { return c.segs[seg].busy }

// Flush returns the segments of array a that received requests since the last
// Flush of a, and forgets them. Only WakeDeferred records any; under the other
// policies Flush returns the empty set. Counted as wake signals.
func (c *Core) Flush(a ArrayID) SegmentSet {
	ar := &c.arrays[a]
	set := ar.deferred
	ar.deferred = SegmentSet{}
	ar.st.signals += uint64(set.Len())
	return set
}

// FlushAll is Flush of every array, for a driver that serialises all calls.
func (c *Core) FlushAll() SegmentSet {
	var set SegmentSet
	for a := range numArrays {
		set = set.Union(c.Flush(a))
	}
	return set
}
