package aio

import "math/bits"

// SegmentSet is a set of global segment numbers, 0..129 (at most 2 +
// 2 × MaxSegments segments), a value type that costs no allocation. The core returns one from Reserve and Flush: the handlers the
// driver must wake. Iterate with
//
//	for s := set.Next(0); s >= 0; s = set.Next(s + 1) { ... }
//
// The zero value is the empty set.
type SegmentSet struct {
	w [3]uint64
}

// Add puts global segment seg, 0..129, into the set. A seg outside
// 0..191 (the set's capacity) panics as an out-of-range index does.
func (s *SegmentSet) Add(seg int) { s.w[seg>>6] |= 1 << (uint(seg) & 63) }

// Has reports whether segment seg is in the set.
func (s SegmentSet) Has(seg int) bool {
	if seg < 0 || seg >= 64*len(s.w) {
		return false
	}
	return s.w[seg>>6]&(1<<(uint(seg)&63)) != 0
}

// Len returns the number of segments in the set.
func (s SegmentSet) Len() int {
	return bits.OnesCount64(s.w[0]) + bits.OnesCount64(s.w[1]) + bits.OnesCount64(s.w[2])
}

// Empty reports whether the set has no segment.
func (s SegmentSet) Empty() bool { return s.w[0]|s.w[1]|s.w[2] == 0 }

// Union returns the segments in s or t.
func (s SegmentSet) Union(t SegmentSet) SegmentSet {
	return SegmentSet{[3]uint64{s.w[0] | t.w[0], s.w[1] | t.w[1], s.w[2] | t.w[2]}}
}

// Next returns the smallest segment ≥ from in the set, or -1 if there is none.
func (s SegmentSet) Next(from int) int {
	if from < 0 {
		from = 0
	}
	for i := from >> 6; i < len(s.w); i++ {
		w := s.w[i]
		if i == from>>6 {
			w &= ^uint64(0) << (uint(from) & 63)
		}
		if w != 0 {
			return i<<6 + bits.TrailingZeros64(w)
		}
	}
	return -1
}

// addRange adds segments lo..hi-1.
func (s *SegmentSet) addRange(lo, hi int) {
	for g := lo; g < hi; g++ {
		s.Add(g)
	}
}
