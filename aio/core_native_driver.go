package aio

import "time"

// The native-AIO Core calls for a driver outside this package (the simulator's
// native driver in package sim); Array's native driver calls the same methods
// unexported. Their locking is issue's, completeSlots' and woken's: under
// segment seg's lock, or with every call serialised.

// IssueNative takes the next batch of segment seg's waiting requests out of the
// segment for the kernel, as os_aio_linux_dispatch hands a reserved slot to
// io_submit: the choice and merge are Pick's, but the segment is not marked
// busy, so any number of batches may be in flight. The batch's Slots are
// appended to slots[:0] (the caller's buffer; cap MergeLimit avoids
// allocating). It returns false, and an empty Batch, when nothing waits.
// Valid only for a Core whose Config.IO is IONative.
func (c *Core) IssueNative(seg int, now time.Duration, slots []int) (Batch, bool) {
	var b Batch
	ok := c.issue(&b, seg, now, slots)
	return b, ok
}

// CompleteNative frees the slots of one batch IssueNative gave for segment seg,
// counting failed of them (0..len(slots)) as failed and the rest as completed,
// as os_aio_array_free_slot frees each slot the kernel completed, in whatever
// order io_getevents returns them.
func (c *Core) CompleteNative(seg int, slots []int, failed int) {
	c.completeSlots(seg, slots, failed, 0)
}

// WokenNative counts a native handler's return from waiting for its segment's
// completions (io_getevents): a wakeup, and a wasted one unless found.
func (c *Core) WokenNative(seg int, found bool) { c.woken(seg, found) }
