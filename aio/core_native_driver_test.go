package aio_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/innosim/innosim/aio"
)

// A driver outside the package runs native AIO through IssueNative,
// CompleteNative and WokenNative: any number of batches of one segment in
// flight at once, each freed whenever its I/O completes, the counters
// balanced.
func TestNativeCoreCallsForAnOutsideDriver(t *testing.T) {
	c := newCore(t, func(cfg *aio.Config) {
		cfg.ReadSegments, cfg.SlotsPerSegment = 1, 2
		cfg.IO, cfg.Wake = aio.IONative, aio.WakeTargeted
	})
	a := reserve(t, c, read(0), 0)
	b1, ok := c.IssueNative(a.Segment, 0, make([]int, 0, 64))
	require.True(t, ok)
	assert.Equal(t, []int{a.Slot}, b1.Slots)
	assert.False(t, c.Busy(a.Segment), "an issued batch leaves the segment free to issue more")
	_, ok = c.IssueNative(a.Segment, 0, nil)
	assert.False(t, ok, "nothing waits")

	b := reserve(t, c, read(10*page), 0)
	b2, ok := c.IssueNative(b.Segment, 0, nil)
	require.True(t, ok)
	_, err := c.Reserve(read(20*page), 0)
	assert.ErrorIs(t, err, aio.ErrArrayFull, "both slots in the kernel")

	c.CompleteNative(b.Segment, b2.Slots, 1) // the later one completes first, failed
	c.WokenNative(a.Segment, true)
	c.CompleteNative(a.Segment, b1.Slots, 0)
	c.WokenNative(a.Segment, false)
	st := c.Stats()
	assert.Equal(t, uint64(2), st.Submitted)
	assert.Equal(t, uint64(1), st.Completed)
	assert.Equal(t, uint64(1), st.Failed)
	assert.Zero(t, st.InFlight)
	assert.Equal(t, uint64(2), st.Batches)
	assert.Equal(t, uint64(2), st.Wakeups)
	assert.Equal(t, uint64(1), st.WastedWakeups)
	assert.Equal(t, uint64(1), st.ArrayFullWaits)
	reserve(t, c, read(20*page), 0) // a slot is free again
}
