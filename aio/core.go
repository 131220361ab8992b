package aio

import (
	"errors"
	"math/bits"
	"sync/atomic"
)

// ErrArrayFull is returned by Core.Reserve when every slot of the request's array
// is reserved. The Reservation still carries the segments to wake (the
// array-full path of os_aio_array_reserve_slot); the caller waits until a
// Complete in that array frees a slot, then tries again.
var ErrArrayFull = errors.New("aio: array full")

// ErrSegmentFull is returned by Core.ReserveIn when every slot of the segment is
// reserved: the caller tries the array's next segment.
var ErrSegmentFull = errors.New("aio: segment full")

// ErrInvalidRequest is wrapped by the errors for a request with a negative
// offset, a zero length, an unknown Op, Kind or hint, or a missing buffer or
// completion.
var ErrInvalidRequest = errors.New("invalid request")

// Core is the deterministic policy core of simulated AIO: the slot arrays, their
// segments, the slot choice, the handler's pick and merge, the wake set and the
// counters. It has no goroutines, no clock, no I/O and never blocks: every call
// that needs time takes now, a monotonic offset from any origin the driver
// chooses (virtual time in the simulator, time.Since(start) in the real driver),
// which must not go backwards (Pick's one exception is in its doc).
//
// A driver runs it in this cycle (the real driver is Array; the simulator in
// package sim is the other):
//
//	submitter:  res, err := c.Reserve(req, now)  // see Concurrency for the locks
//	            wake every segment in res.Wake      // after releasing them
//	            if err == ErrArrayFull: wait for a Complete in that array, retry
//	flusher:    wake every segment in c.Flush(a) // WakeDeferred
//	handler s:  b, ok := c.Pick(s, now, woken)   // under segment s's lock
//	            if !ok: reset the event, release the lock, sleep, then Pick(s, now, true)
//	            else: release the lock, do one I/O of b.Length bytes at b.Offset,
//	                  retake it, c.Complete(s, failed), release it, deliver
//	                  the completions of b.Slots (read b.Slots before Complete)
//
// A driver that locks per segment splits Reserve: Route gives the segment where
// the scan starts, ReserveIn tries one segment under its lock, and when every
// segment refused, ArrayFull (under all of the array's locks) counts the wait
// and gives the segments to wake.
//
// Concurrency: a Core is not safe for concurrent use, except that calls about
// different segments touch disjoint state, so a driver may guard each segment
// with its own mutex — finer than InnoDB's one mutex per array (array->mutex):
// a submitter then contends only with the handler of the segment its request
// lands in, not with every submitter and handler of the array. ReserveIn, Pick,
// Complete, Waiting and Busy touch their segment alone; Flush and the
// WakeDeferred record that ReserveIn keeps touch only atomic words, so Flush
// needs no lock. Reserve, ArrayFull, Full, Reserved and ArrayStats touch every
// segment of their array, so a driver that locks per segment holds all of the
// array's segment locks around them; Stats touches everything. Layout methods
// (Segments, ArrayOf, ArrayOfSegment, ArraySegments, Route, SegmentOfSlot,
// Config) read only immutable state. The real driver Array locks per segment;
// the simulator serialises every call.
//
// Arguments: Reserve, ReserveIn and Route validate their request
// (ErrInvalidRequest). The segment and ArrayID arguments of the other methods
// are the driver's own bookkeeping, not user input, and must be in range — a
// segment in 0..Segments()-1, an ArrayID of an enabled array, an Op and Kind
// that Reserve accepts — or the call panics as an out-of-range index does;
// Array never passes one that is not. Complete must follow a Pick of the same
// segment.
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
	slots     []slot     // every slot; each segment owns a contiguous run

	// deferred holds, under WakeDeferred, the global segments that received a
	// request since their array's last Flush. It is atomic so that a
	// reservation under one segment's lock and a Flush under none can share it.
	deferred [3]atomic.Uint64
}

// array is one of InnoDB's os_aio_array_t: a run of slots cut into segments.
// What it counts itself is what no one segment owns.
type array struct {
	first int        // global segment number of local segment 0
	n     int        // segments; 0 for a disabled ibuf or log array
	segs  SegmentSet // its global segments
	st    counters   // the array-full path's waits and signals; guarded by every segment

	flushSignals atomic.Uint64 // segments returned by Flush
}

// wrap returns global segment g of the array's scan, for g in first..first+2n-2:
// the scan from a segment that passes the array's last goes on at its first.
func (a *array) wrap(g int) int {
	if g >= a.first+a.n {
		g -= a.n
	}
	return g
}

// segState is what the core keeps per global segment: its slots' occupancy, its
// handler's batch and its counters, so that calls about different segments
// share nothing.
//
// The submitter and the handler of a segment usually run on different CPUs, so
// every cache line a request touches moves between them: the fields a
// reservation and a pick touch come first and together, with the slot bitmap
// inside the struct when the segment has at most 256 slots (the default).
type segState struct {
	waiting     int      // reserved slots not yet picked
	reserved    int      // reserved slots, waiting or in progress
	maxReserved int      // high-water mark of reserved
	busy        bool     // a batch is in progress (between Pick and Complete)
	used        []uint64 // bit i set: the segment's slot i reserved; bits past the end set
	inline      [4]uint64
	batch       []int // global slot numbers of the batch in progress; cap MergeLimit
	st          counters

	merge mergeTable // scratch for Pick, used only when two or more requests wait

	_ [64]byte // keeps the next segment's hot fields off this one's cache line
}

// counters are one segment's (or one array's) statistics (see Stats for their
// meaning).
type counters struct {
	reserved, completed, failed, canceled     uint64
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
	per := cfg.SlotsPerSegment
	words := (per + 63) / 64
	c.slots = make([]slot, total*per)
	c.segs = make([]segState, total)
	c.segArray = make([]ArrayID, total)
	batches := make([]int, total*cfg.MergeLimit)
	var used []uint64
	if words > len(segState{}.inline) {
		used = make([]uint64, total*words)
	}
	g := 0
	for id := range numArrays {
		a := &c.arrays[id]
		a.first, a.n = g, nseg[id]
		a.segs.addRange(g, g+a.n)
		for range a.n {
			sg := &c.segs[g]
			c.segArray[g] = id
			sg.batch = batches[g*cfg.MergeLimit : g*cfg.MergeLimit : (g+1)*cfg.MergeLimit]
			if used != nil {
				sg.used = used[g*words : (g+1)*words]
			} else {
				sg.used = sg.inline[:words]
			}
			if tail := per % 64; tail != 0 {
				sg.used[words-1] = ^uint64(0) << uint(tail)
			}
			sg.merge.init(per)
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

// findFree returns the segment's first free slot (0..SlotsPerSegment-1), found a
// word of 64 slots at a time, or -1 if every slot is reserved.
func (sg *segState) findFree() int {
	for w, u := range sg.used {
		if free := ^u; free != 0 {
			return w<<6 + bits.TrailingZeros64(free)
		}
	}
	return -1
}

// ArrayOf returns the array a request of this op and kind goes to, as os_aio
// chooses between os_aio_ibuf_array, os_aio_log_array, os_aio_read_array and
// os_aio_write_array. Syncs go where writes go.
func (c *Core) ArrayOf(op Op, kind Kind) ArrayID {
	switch {
	case kind == KindIbuf && c.cfg.IbufSegment:
		return ArrayIbuf
	case kind == KindLog && c.cfg.LogSegment:
		return ArrayLog
	case op != Read:
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
// array a. It touches every segment of a.
func (c *Core) Reserved(a ArrayID) int {
	ar := &c.arrays[a]
	n := 0
	for s := ar.first; s < ar.first+ar.n; s++ {
		n += c.segs[s].reserved
	}
	return n
}

// Full reports whether every slot of array a is reserved: a submitter to a
// may have found it full and waits for a Complete. It touches every segment of
// a.
func (c *Core) Full(a ArrayID) bool {
	ar := &c.arrays[a]
	for s := ar.first; s < ar.first+ar.n; s++ {
		if c.segs[s].reserved < c.cfg.SlotsPerSegment {
			return false
		}
	}
	return true
}

// Busy reports whether segment seg has a batch between Pick and Complete.
func (c *Core) Busy(seg int) bool { return c.segs[seg].busy }

// Flush returns the segments of array a that received requests since the last
// Flush of a, and forgets them. Only WakeDeferred records any; under the other
// policies Flush returns the empty set. Counted as wake signals. Flush touches
// only atomic words: it needs no segment lock.
func (c *Core) Flush(a ArrayID) SegmentSet {
	ar := &c.arrays[a]
	var set SegmentSet
	for i := range c.deferred {
		m := ar.segs.w[i]
		if m == 0 || c.deferred[i].Load()&m == 0 {
			continue
		}
		set.w[i] = c.deferred[i].And(^m) & m
	}
	if n := set.Len(); n > 0 {
		ar.flushSignals.Add(uint64(n))
	}
	return set
}

// flushSegment is Flush of global segment seg alone: it returns the set
// holding seg if seg received a request since its array's last Flush, and
// forgets it; else the empty set. Counted as a wake signal. Atomic words
// only, as Flush.
func (c *Core) flushSegment(seg int) SegmentSet {
	var set SegmentSet
	bit := uint64(1) << (uint(seg) & 63)
	if c.deferred[seg>>6].And(^bit)&bit != 0 {
		set.Add(seg)
		c.arrays[c.segArray[seg]].flushSignals.Add(1)
	}
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
