package engine

import (
	"math"
	"math/bits"
)

// calendar is the engine's pending-event set: a calendar queue (R. Brown,
// "Calendar queues: a fast O(1) priority queue implementation for the
// simulation event set problem", CACM 31(10), 1988). Virtual time is cut into
// days of 2^shift ns; day d belongs to bucket d mod len(buckets), and a year
// is one pass over the buckets. Each bucket is a list in the order its events
// run (by time, then in the order they were scheduled), so the next event is
// the head of the first bucket, from the cursor's day on, whose head falls on
// that bucket's day of the current year.
//
// Five choices differ from Brown's. The queue keeps sixteen to sixty-four
// buckets an event and a day near a quarter of the mean separation of the
// next distinct times (Brown: half to two buckets an event, three
// separations a day), so that most buckets hold one event or none and the
// year still spans four to sixteen times the events' separation times their
// number. A bitmap of the buckets that hold events lets the cursor pass 64
// empty buckets at a time, so that finding the next event is a count of
// trailing zeros, not a walk over empty days. Each bucket keeps its tail as
// well as its head, so that an event at or after a bucket's last (many
// events at one time, as when every thread of a machine starts at once) is
// linked without a walk. An event more than a year ahead of the cursor waits
// in a heap (farHeap) until the cursor comes within a year of it, so that
// times spread over many years (timeouts beside nanosecond wakes) cost a
// heap's O(log n), not Brown's scan of a year and search of every bucket.
// And the queue knows its next event ahead: take, having removed one, finds
// the one after it, so that the search runs while the handler of the event
// taken does its work (the processor overlaps the two) rather than between
// two events; push makes an event that comes before it the next.
//
// The bucket count doubles when events outnumber a sixteenth of the buckets
// and halves below a sixty-fourth; each resize, and a period in which the
// walks cost too much (the spacing of the events changed), re-estimates the
// day from the separations of the next events, as Brown's resize does, and
// relinks every event in order (resize.go). Days and bucket counts are
// powers of two, so a bucket is a shift and a mask.
//
// Events live in one slice of nodes linked by index, with a free list: a
// steady population of events allocates nothing, and the slice holds no
// pointers for the garbage collector to scan.
type calendar struct {
	nodes   []node
	free    int32    // head of the free list of nodes; never -1 between calls
	buckets []int32  // head node of each bucket's list, or -1
	tails   []int32  // last node of each bucket's list, when it has two or more
	occ     []uint64 // bit b%64 of occ[b/64]: bucket b holds an event
	mask    uint64   // len(buckets) - 1
	shift   uint     // a day is 1<<shift ns
	n       int      // events pending

	// next is the node of the next event (-1 with none), the head of its
	// bucket, and nextAt its time (math.MaxInt64 with none).
	next   int32
	nextAt int64

	// day is the cursor: no pending event is earlier than day's start (day ×
	// 2^shift ns). take leaves it on the day of the event it took, min on
	// the next event's.
	day uint64

	// grow and shrink are the event counts past which the bucket count
	// doubles or halves.
	grow, shrink int

	// work counts the steps of the slow paths (list nodes passed by link,
	// buckets of a later year and bitmap words passed by min) in the current
	// period, and left the events to take before the period ends. A period
	// lasts len(buckets) events; as soon as its work passes costly steps an
	// event of it, the day is estimated again, and so it is at the end of
	// every every-th period: each estimate that keeps the day doubles every
	// (up to maxEvery), one that changes it resets it to 1.
	work, limit  int
	left         int
	every, until int

	// far holds the events whose day was a year or more past the cursor's
	// when they were scheduled, farSeq numbers them in that order, and
	// farDay is the day of the earliest (math.MaxUint64 with none). No event
	// in far is within a year of the cursor: when the cursor comes within a
	// year of farDay, the events of that year move to their buckets.
	far    farHeap
	farSeq uint64
	farDay uint64

	// order is the room of rebuild and of the estimates, kept between them.
	order []int32
}

// node is one scheduled event and its link in its bucket's list: 24 bytes,
// no pointers.
type node struct {
	at   int64 // virtual time, ns
	a    int32
	gen  uint32
	next int32 // next node of the bucket (or of the free list), or -1
	kind Kind
}

const (
	// minBuckets is one bitmap word of buckets.
	minBuckets = 64
	// sample is how many distinct times of the next events the day is
	// estimated from (Brown samples 25 events; more steady the estimate
	// of a crowded queue), and maxSample how many events at most are taken
	// to find them.
	sample, maxSample = 64, 1024
	// costly is the mean slow-path steps an event above which the day is
	// estimated again.
	costly = 1
	// maxEvery bounds the periods between two estimates of the day.
	maxEvery = 64
	// maxYearShift bounds log2 of a year (buckets × day), so that a day
	// number plus a year of days never overflows.
	maxYearShift = 62
	// defaultShift is the first day, 1 µs, before any estimate.
	defaultShift = 10
)

func newCalendar() calendar {
	q := calendar{free: -1, next: -1, nextAt: math.MaxInt64, shift: defaultShift, farDay: math.MaxUint64}
	q.setBuckets(minBuckets)
	q.nodes = make([]node, 0, 256)
	q.newNode()
	return q
}

// push schedules an event after every pending event of the same time.
func (q *calendar) push(at int64, a int32, gen uint32, k Kind) {
	i := q.free
	nd := &q.nodes[i]
	q.free = nd.next
	// field by field: a composite literal is built on the stack and copied,
	// and the copy's wide loads of the narrow stores stall the pipeline
	nd.at, nd.a, nd.gen, nd.next, nd.kind = at, a, gen, -1, k
	d := uint64(at) >> (q.shift & 63)
	b := d & q.mask
	q.n++
	// the common cases: a bucket that holds no event or one, within a
	// year of the cursor and not before it (d-q.day wraps round then), room
	// for the event and a free node left
	if h := q.buckets[b]; d-q.day <= q.mask && q.n <= q.grow && q.free >= 0 && (h < 0 || q.nodes[h].next < 0) {
		switch {
		case h < 0:
			q.buckets[b] = i
			q.occ[b>>6] |= 1 << (b & 63)
		case q.nodes[h].at <= at:
			q.nodes[h].next = i
			q.tails[b] = i
		default:
			nd.next = h
			q.buckets[b], q.tails[b] = i, h
		}
		if at < q.nextAt || q.next < 0 {
			q.next, q.nextAt = i, at
		}
		return
	}
	q.pushSlow(i, d)
}

// pushSlow is push for the other cases: node i, of day d, before the
// cursor (which goes back to d, as it goes to d in an empty queue), a year
// or more past it (to the far heap) or into a bucket that holds events;
// and when the queue must grow or the free nodes have run out.
func (q *calendar) pushSlow(i int32, d uint64) {
	if d < q.day || q.n == 1 {
		q.day = d
	}
	switch b := d & q.mask; {
	case d-q.day > q.mask:
		q.pushFar(i, d)
	case q.buckets[b] < 0:
		q.buckets[b] = i
		q.occ[b>>6] |= 1 << (b & 63)
	default:
		if q.link(i, b); q.work > q.limit {
			q.estimate()
		}
	}
	// An event before the next is within a year of the cursor: the cursor
	// is on the next event's day or earlier, so the event is in a bucket.
	if at := q.nodes[i].at; at < q.nextAt || q.next < 0 {
		q.next, q.nextAt = i, at
	}
	if q.free < 0 {
		q.newNode()
	}
	if q.n > q.grow {
		q.rebuild(2*len(q.buckets), 0, 0)
	}
}

// newNode adds a free node.
func (q *calendar) newNode() {
	q.nodes = append(q.nodes, node{next: q.free})
	q.free = int32(len(q.nodes) - 1)
}

// take removes the next event and returns its node, whose fields stay as
// they are until the next push; unless the event is later than until: then
// it returns nil and the event stays. The queue must not be empty.
//
// Engine.Run holds a copy of take, written out in its loop: change the two
// together.
func (q *calendar) take(until int64) *node {
	h := q.next
	nd := &q.nodes[h]
	at := nd.at
	if at > until {
		return nil
	}
	// The next event heads its bucket and no event is before its day: the
	// cursor goes there. The event after it is the first head, from the
	// cursor on, that falls on its bucket's day of the cursor's year (the
	// bucket's next, when that falls on the same day), as in min; take
	// looks for it in the cursor's bitmap word and the one after, and
	// leaves the rest to findNext.
	shift, mask := q.shift&63, q.mask
	d := uint64(at) >> shift
	j := d & mask
	w := j >> 6
	next := nd.next
	q.buckets[j] = next
	word := q.occ[w] &^ (uint64(uint32(next)>>31) << (j & 63)) // the bucket's bit goes when next is -1
	q.occ[w] = word
	nd.next, q.free = q.free, h
	q.day = d
	q.n--
	word, off := word>>(j&63), uint64(0)
	if word == 0 && int(w)+1 < len(q.occ) {
		word, off = q.occ[w+1], 64-j&63
	}
	if word != 0 && d+mask < q.farDay {
		skip := off + uint64(bits.TrailingZeros64(word))
		i := q.buckets[j+skip]
		if at := q.nodes[i].at; uint64(at)>>shift == d+skip {
			q.next, q.nextAt = i, at
			if q.left--; q.left == 0 {
				q.endPeriod()
			}
			return nd
		}
	}
	q.findNext()
	return nd
}

// findNext finds the next event when take's search does not: the queue is
// empty, the event is past the two bitmap words or behind a later year's
// head, or far events come within a year of the cursor. It counts the
// event taken in the period, as take does, and ends the period when it is
// over or its work has passed the limit.
func (q *calendar) findNext() {
	if q.n == 0 {
		q.next, q.nextAt = -1, math.MaxInt64
	} else {
		if q.farDay <= q.day+q.mask {
			q.migrate()
		}
		q.next = q.min()
		q.nextAt = q.nodes[q.next].at
	}
	if q.left--; q.left == 0 || q.work > q.limit {
		q.endPeriod()
	}
}

// link puts node i into its bucket b, which holds events, after every node
// at or before its time: after the tail, before the head, or where a walk
// from the head finds.
func (q *calendar) link(i int32, b uint64) {
	nodes := q.nodes
	at := nodes[i].at
	h := q.buckets[b]
	t := h
	if nodes[h].next >= 0 {
		t = q.tails[b]
	}
	if nodes[t].at <= at {
		nodes[t].next = i
		q.tails[b] = i
		return
	}
	if at < nodes[h].at {
		nodes[i].next = h
		q.buckets[b], q.tails[b] = i, t
		return
	}
	// h is at or before at, and the tail after it: i goes between
	p := h
	for nodes[nodes[p].next].at <= at {
		p = nodes[p].next
		q.work++
	}
	nodes[i].next = nodes[p].next
	nodes[p].next = i
}

// min returns the node of the next event (the queue must not be empty) and
// leaves the cursor on its day.
func (q *calendar) min() int32 {
	// the common case: the next event is on the cursor's day or a later day
	// of the cursor's bitmap word
	b := q.day & q.mask
	if word := q.occ[b>>6] >> (b & 63); word != 0 {
		skip := uint64(bits.TrailingZeros64(word))
		h := q.buckets[b+skip]
		if uint64(q.nodes[h].at)>>(q.shift&63) == q.day+skip {
			q.day += skip
			if q.farDay <= q.day+q.mask {
				q.migrate()
			}
			return h
		}
	}
	return q.minFar()
}

// minFar is min past the cursor's bitmap word or its later-year heads.
func (q *calendar) minFar() int32 {
	nb := uint64(len(q.buckets))
	b := q.day & q.mask
	base := q.day - b // the day of bucket 0 in the cursor's pass
	w := b >> 6
	word := q.occ[w] & (^uint64(0) << (b & 63))
	end := q.day + nb // a year from the cursor
	for {
		for word != 0 {
			j := w<<6 | uint64(bits.TrailingZeros64(word))
			d := base + j
			if d >= end {
				break
			}
			h := q.buckets[j]
			if uint64(q.nodes[h].at)>>(q.shift&63) == d {
				q.day = d
				if q.farDay <= q.day+q.mask {
					q.migrate()
				}
				return h
			}
			word &= word - 1 // the head is a later year's
			q.work++
		}
		if base+w<<6 >= end {
			break
		}
		w++
		if w<<6 == nb {
			w, base = 0, base+nb
		}
		word = q.occ[w]
		q.work++
	}
	// A whole year without an event: the next one is further away, the
	// earliest of the far heap's or, when the cursor went back (a bucket may
	// then hold a later year's events), of the buckets' heads (Brown's direct
	// search). Two heads are never at one time: one time is one day, one
	// bucket. A far event is never at a bucket's event's time and before it:
	// the bucket's would have been scheduled after the far one moved in.
	best := int32(-1)
	if q.n > len(q.far) {
		q.work += len(q.occ)
		for w, word := range q.occ {
			for word != 0 {
				h := q.buckets[w<<6|bits.TrailingZeros64(word)]
				if best < 0 || q.nodes[h].at < q.nodes[best].at {
					best = h
				}
				word &= word - 1
			}
		}
	}
	if len(q.far) > 0 && (best < 0 || q.far[0].at < q.nodes[best].at) {
		q.day = q.farDay
		q.migrate()
		return q.buckets[q.day&q.mask]
	}
	q.day = uint64(q.nodes[best].at) >> (q.shift & 63)
	if q.farDay <= q.day+q.mask {
		q.migrate()
	}
	return best
}
