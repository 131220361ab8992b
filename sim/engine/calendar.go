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
// Four choices differ from Brown's. The queue keeps sixteen to sixty-four
// buckets an event and a day near a quarter of the mean separation of the
// next distinct times (Brown: half to two buckets an event, three
// separations a day), so that most buckets hold one event or none and the
// year still spans four to sixteen times the events' separation times their
// number. A bitmap of the buckets that hold
// events lets the cursor pass 64 empty buckets at a time, so that finding the
// next event is a count of trailing zeros, not a walk over empty days. Each
// bucket keeps its tail as well as its head, so that an event at or after a
// bucket's last (many events at one time, as when every thread of a machine
// starts at once) is linked without a walk. And an event more than a year
// ahead of the cursor waits in a heap (farHeap) until the cursor comes within
// a year of it, so that times spread over many years (timeouts beside
// nanosecond wakes) cost a heap's O(log n), not Brown's scan of a year and
// search of every bucket.
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
	free    int32    // head of the free list of nodes, or -1
	buckets []int32  // head node of each bucket's list, or -1
	tails   []int32  // last node of each bucket's list, when it has two or more
	occ     []uint64 // bit b%64 of occ[b/64]: bucket b holds an event
	mask    uint64   // len(buckets) - 1
	shift   uint     // a day is 1<<shift ns
	n       int      // events pending

	// day is the cursor: no pending event is earlier than day's start (day ×
	// 2^shift ns). min leaves it on the next event's day.
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
	q := calendar{free: -1, shift: defaultShift, farDay: math.MaxUint64}
	q.setBuckets(minBuckets)
	q.nodes = make([]node, 0, 256)
	return q
}

// push schedules an event after every pending event of the same time.
func (q *calendar) push(at int64, a int32, gen uint32, k Kind) {
	i := q.free
	if i < 0 {
		i = q.newNode()
	}
	nd := &q.nodes[i]
	q.free = nd.next
	// field by field: a composite literal is built on the stack and copied,
	// and the copy's wide loads of the narrow stores stall the pipeline
	nd.at, nd.a, nd.gen, nd.next, nd.kind = at, a, gen, -1, k
	d := uint64(at) >> (q.shift & 63)
	b := d & q.mask
	if d < q.day {
		q.day = d
	}
	q.n++
	if d-q.day > q.mask {
		q.pushFar(i, d)
	} else if q.buckets[b] < 0 {
		q.buckets[b] = i
		q.occ[b>>6] |= 1 << (b & 63)
	} else if q.link(i, b); q.work > q.limit {
		q.estimate()
	}
	if q.n > q.grow {
		q.rebuild(2*len(q.buckets), 0, 0)
	}
}

// newNode adds a node to the slice and returns it.
func (q *calendar) newNode() int32 {
	q.nodes = append(q.nodes, node{next: -1})
	return int32(len(q.nodes) - 1)
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

// take removes the next event and returns it, unless it is later than
// until: then ok is false and the event stays. The queue must not be empty.
func (q *calendar) take(until int64) (at int64, a int32, gen uint32, k Kind, ok bool) {
	// the common case, as in min
	j := q.day & q.mask
	var h int32
	if word := q.occ[j>>6] >> (j & 63); word != 0 {
		skip := uint64(bits.TrailingZeros64(word))
		j += skip
		h = q.buckets[j]
		if uint64(q.nodes[h].at)>>(q.shift&63) == q.day+skip {
			q.day += skip
			if q.farDay <= q.day+q.mask {
				q.migrate()
			}
		} else {
			h = q.minFar()
			j = q.day & q.mask
		}
	} else {
		h = q.minFar()
		j = q.day & q.mask
	}
	nd := &q.nodes[h]
	if nd.at > until {
		return 0, 0, 0, 0, false
	}
	at, a, gen, k = nd.at, nd.a, nd.gen, nd.kind
	next := nd.next
	q.buckets[j] = next
	q.occ[j>>6] &^= uint64(uint32(next)>>31) << (j & 63) // the bucket's bit goes when next is -1
	nd.next = q.free
	q.free = h
	q.n--
	if q.left--; q.left == 0 || q.work > q.limit {
		q.endPeriod()
	}
	return at, a, gen, k, true
}
