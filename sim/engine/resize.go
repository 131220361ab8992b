package engine

import (
	"math"
	"math/bits"
)

// setBuckets makes nb empty buckets (nb a power of two, at least 64),
// reusing the slices' room when they have enough, and puts the cursor at
// time 0.
func (q *calendar) setBuckets(nb int) {
	if cap(q.buckets) >= nb {
		q.buckets, q.tails, q.occ = q.buckets[:nb], q.tails[:nb], q.occ[:nb/64]
	} else {
		q.buckets, q.tails, q.occ = make([]int32, nb), make([]int32, nb), make([]uint64, nb/64)
	}
	for i := range q.buckets {
		q.buckets[i] = -1
	}
	clear(q.occ)
	q.mask = uint64(nb - 1)
	q.shift = min(q.shift, maxYearShift-uint(bits.TrailingZeros(uint(nb))))
	q.day = 0
	q.grow, q.shrink = nb/16, 0
	if nb > minBuckets {
		q.shrink = nb / 64
	}
	q.work, q.limit, q.left = 0, costly*nb, nb
	q.every, q.until = 1, 1
}

// takeHead takes the next event off its bucket, leaving its node allocated,
// and returns the node.
func (q *calendar) takeHead() int32 {
	i := q.min()
	b := q.day & q.mask
	next := q.nodes[i].next
	q.buckets[b] = next
	if next < 0 {
		q.occ[b>>6] &^= 1 << (b & 63)
	}
	q.n--
	return i
}

// endPeriod ends a period of len(buckets) events taken, or one whose work
// passed its limit: it halves the buckets when they outnumber the events
// sixty-four to one, and otherwise estimates the day again when the work
// passed the limit or every periods have passed.
func (q *calendar) endPeriod() {
	switch q.until--; {
	case q.n < q.shrink:
		q.rebuild(len(q.buckets)/2, 0, 0)
	case q.work > q.limit || q.until <= 0:
		q.estimate()
	default:
		q.work, q.left = 0, len(q.buckets)
	}
}

// estimate estimates the day again from the next events, rebuilds the
// buckets when the estimate changes it, and starts a period.
func (q *calendar) estimate() {
	order := q.takeSample(q.order[:0])
	q.order = order
	if shift := q.dayShift(order); shift != q.shift {
		q.rebuild(len(q.buckets), len(order), shift)
		return
	}
	// The day stays: put the events back, each first in its bucket (they
	// are the earliest, and go back latest first).
	for j := len(order) - 1; j >= 0; j-- {
		i := order[j]
		d := uint64(q.nodes[i].at) >> (q.shift & 63)
		b := d & q.mask
		next := q.buckets[b]
		switch {
		case next < 0:
			q.occ[b>>6] |= 1 << (b & 63)
		case q.nodes[next].next < 0:
			q.tails[b] = next
		}
		q.nodes[i].next = next
		q.buckets[b] = i
		q.day = min(q.day, d)
	}
	q.n += len(order)
	q.every = min(2*q.every, maxEvery)
	q.work, q.left, q.until = 0, len(q.buckets), q.every
}

// dayShift returns the shift of the day for the events next (in order):
// dayShift's over the first sample distinct times (at most maxSample
// events), at most what keeps a year of len(buckets) days within
// 2^maxYearShift ns.
func (q *calendar) dayShift(next []int32) uint {
	m, distinct := 0, 0
	for ; m < len(next) && m < maxSample && distinct < sample; m++ {
		if m == 0 || q.nodes[next[m]].at != q.nodes[next[m-1]].at {
			distinct++
		}
	}
	shift := dayShift(q.nodes, next[:m], q.shift)
	return min(shift, maxYearShift-uint(bits.TrailingZeros(uint(len(q.buckets)))))
}

// rebuild relinks every bucket's events into nb buckets with a day of
// 1<<shift ns, after the first taken events, already taken off in order into
// q.order; when taken is 0 it first takes the next events off and estimates
// the day from them. The far heap keeps its events (its order does not
// depend on the day) but gives up those the new year reaches.
func (q *calendar) rebuild(nb, taken int, shift uint) {
	order := q.order[:taken]
	if taken == 0 {
		order = q.takeSample(order)
		shift = q.dayShift(order)
	}
	taken = len(order)
	// The rest, bucket by bucket, each list in order: events of one time
	// are in one bucket, so they keep their order.
	for w, word := range q.occ {
		for word != 0 {
			for h := q.buckets[w<<6|bits.TrailingZeros64(word)]; h >= 0; h = q.nodes[h].next {
				order = append(order, h)
			}
			word &= word - 1
		}
	}
	q.order = order
	q.shift = shift
	q.setBuckets(nb)
	q.day = math.MaxUint64
	if len(q.far) > 0 {
		q.farDay = uint64(q.far[0].at) >> (q.shift & 63)
		q.day = q.farDay
	}
	for _, i := range order {
		d := uint64(q.nodes[i].at) >> (q.shift & 63)
		b := d & q.mask
		q.day = min(q.day, d)
		q.nodes[i].next = -1
		if q.buckets[b] < 0 {
			q.buckets[b] = i
			q.occ[b>>6] |= 1 << (b & 63)
		} else {
			q.link(i, b)
		}
	}
	q.n += taken
	if q.n == 0 {
		q.day = 0
	}
	if q.farDay <= q.day+q.mask {
		q.migrate()
	}
	q.work = 0
}

// takeSample takes the next events off, in order, appending them to order:
// enough to hold sample distinct times, at most maxSample.
func (q *calendar) takeSample(order []int32) []int32 {
	for distinct := 0; q.n > 0 && distinct < sample && len(order) < maxSample; {
		i := q.takeHead()
		if len(order) == 0 || q.nodes[i].at != q.nodes[order[len(order)-1]].at {
			distinct++
		}
		order = append(order, i)
	}
	return order
}

// dayShift returns log2 of the day for the events next (in order): a
// quarter of the mean separation of their distinct times, leaving out
// separations more than twice the first mean (as Brown's estimate does),
// rounded to a power of two. Events that all fall at one time keep the day
// old.
func dayShift(nodes []node, next []int32, old uint) uint {
	if len(next) < 2 {
		return old
	}
	var gaps uint64
	for j := 1; j < len(next); j++ {
		if nodes[next[j]].at != nodes[next[j-1]].at {
			gaps++
		}
	}
	if gaps == 0 {
		return old
	}
	// the separations telescope to last - first, so the sum never overflows
	mean := uint64(nodes[next[len(next)-1]].at-nodes[next[0]].at) / gaps
	var kept, cnt uint64
	for j := 1; j < len(next); j++ {
		if s := uint64(nodes[next[j]].at - nodes[next[j-1]].at); s > 0 && s <= 2*mean {
			kept += s
			cnt++
		}
	}
	mean = kept / cnt // cnt ≥ 1: a separation at most the mean is kept
	if mean == 0 {
		return 0
	}
	shift := uint(bits.Len64(mean) - 1) // the power of two at or below
	if 2*mean > 3<<shift {              // nearer the one above
		shift++
	}
	return max(shift, 2) - 2
}
