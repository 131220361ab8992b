package aio

// Cancel removes the request in global slot g of segment seg while it still
// waits (reserved, not yet picked or issued): the slot is freed and the
// request counted as canceled, so it is never issued. It returns false and
// changes nothing when g holds no waiting request of seg (free, picked, or
// another segment's). It is the Core's part of a request whose context ended
// before its I/O began; InnoDB has no such step (a reserved slot always
// reaches a handler). Cancel touches seg alone, under its lock, and does not
// allocate.
func (c *Core) Cancel(seg, g int) bool {
	if c.SegmentOfSlot(g) != seg || g < 0 || g >= len(c.slots) {
		return false
	}
	s := &c.slots[g]
	if !s.reserved || s.inProgress {
		return false
	}
	sg := &c.segs[seg]
	*s = slot{}
	i := g - seg*c.cfg.SlotsPerSegment
	sg.used[i>>6] &^= 1 << (uint(i) & 63)
	sg.waiting--
	sg.reserved--
	sg.st.canceled++
	return true
}
