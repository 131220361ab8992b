package aio

import "time"

// The Core's part in native AIO (Config.IO = IONative). A native segment has
// any number of batches in the kernel at once, where a simulated handler has
// one: issue takes a batch out of the segment's waiting requests without
// marking the segment busy, and completeSlots frees the slots of one batch
// whichever order the kernel completes them in. The choice and the merge are
// pick's (choose), so a native array orders and merges its waiting requests
// exactly as a simulated one does.

// issue is pick for native AIO, under segment seg's lock: it chooses and merges
// the next batch of seg's waiting requests into *b, its Slots appended to
// slots[:0] (cap MergeLimit, the caller's; the Core keeps no reference), and
// returns true; with nothing waiting it returns false and leaves *b as it was.
// It counts a batch and its merges, as pick does.
func (c *Core) issue(b *Batch, seg int, now time.Duration, slots []int) bool {
	sg := &c.segs[seg]
	if sg.waiting == 0 {
		return false
	}
	batch, f, length := c.choose(sg, seg, now, slots[:0])
	sg.waiting -= len(batch)
	sg.st.batches++
	sg.st.merges += uint64(len(batch) - 1)
	*b = Batch{Segment: seg, Op: f.op, File: f.file, Offset: f.offset, Length: length, Hint: f.hint, Slots: batch}
	return true
}

// completeSlots ends one issued batch of segment seg, under its lock: its
// slots (global numbers, as issue gave them) are freed and counted as
// completed, except failed of them counted as failed and canceled of them
// as canceled (0 ≤ failed + canceled ≤ len(slots)). It is Complete for a
// segment with several batches in flight.
func (c *Core) completeSlots(seg int, slots []int, failed, canceled int) {
	sg := &c.segs[seg]
	base := seg * c.cfg.SlotsPerSegment
	for _, g := range slots {
		c.slots[g] = slot{}
		i := g - base
		sg.used[i>>6] &^= 1 << (uint(i) & 63)
	}
	n := len(slots)
	failed = min(max(failed, 0), n)
	canceled = min(max(canceled, 0), n-failed)
	sg.reserved -= n
	sg.st.completed += uint64(n - failed - canceled)
	sg.st.failed += uint64(failed)
	sg.st.canceled += uint64(canceled)
}

// woken counts a native handler's return from waiting on its ring, under its
// segment's lock: a wakeup, and a wasted one if it found no completion.
func (c *Core) woken(seg int, found bool) {
	sg := &c.segs[seg]
	sg.st.wakeups++
	if !found {
		sg.st.wasted++
	}
}
