package engine

import "math"

// farHeap holds the calendar's events more than a year ahead of its cursor:
// a 4-ary min-heap keyed by (time, sequence number), the sequence numbering
// the events in the order they were scheduled. A 4-ary heap is shallower than
// a binary one, and a node's four children share a cache line or two.
type farHeap []farEntry

// farEntry is one event of the far heap: its time, its sequence number and
// its node in the calendar's slice.
type farEntry struct {
	at  int64
	seq uint64
	i   int32
}

func (x *farEntry) less(y *farEntry) bool {
	return x.at < y.at || x.at == y.at && x.seq < y.seq
}

// push adds e.
func (h *farHeap) push(e farEntry) {
	s := append(*h, e)
	i := len(s) - 1
	for i > 0 {
		p := (i - 1) / 4
		if !e.less(&s[p]) {
			break
		}
		s[i] = s[p]
		i = p
	}
	s[i] = e
	*h = s
}

// pop removes and returns the least entry; the heap must not be empty.
func (h *farHeap) pop() farEntry {
	s := *h
	top := s[0]
	n := len(s) - 1
	last := s[n]
	s = s[:n]
	*h = s
	i := 0
	for n > 0 {
		c := 4*i + 1
		if c >= n {
			break
		}
		m := c
		for j := c + 1; j < min(c+4, n); j++ {
			if s[j].less(&s[m]) {
				m = j
			}
		}
		if !s[m].less(&last) {
			break
		}
		s[i] = s[m]
		i = m
	}
	if n > 0 {
		s[i] = last
	}
	return top
}

// pushFar puts node i, of day d a year or more past the cursor, in the far
// heap.
func (q *calendar) pushFar(i int32, d uint64) {
	q.farSeq++
	q.far.push(farEntry{at: q.nodes[i].at, seq: q.farSeq, i: i})
	q.farDay = min(q.farDay, d)
}

// migrate moves the far events within a year of the cursor to their
// buckets, in order.
func (q *calendar) migrate() {
	end := q.day + q.mask
	for len(q.far) > 0 && uint64(q.far[0].at)>>(q.shift&63) <= end {
		i := q.far.pop().i
		b := uint64(q.nodes[i].at) >> (q.shift & 63) & q.mask
		q.nodes[i].next = -1
		if q.buckets[b] < 0 {
			q.buckets[b] = i
			q.occ[b>>6] |= 1 << (b & 63)
		} else {
			q.link(i, b)
		}
	}
	q.farDay = math.MaxUint64
	if len(q.far) > 0 {
		q.farDay = uint64(q.far[0].at) >> (q.shift & 63)
	}
}
