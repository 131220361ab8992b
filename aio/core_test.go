package aio_test

import (
	"testing"
	"time"

	"github.com/innosim/innosim/aio"
	"github.com/innosim/innosim/prio"
	"github.com/stretchr/testify/require"
)

const page = 16 << 10

// stripe is the byte length of one 64-page stripe at the default page size.
const stripe = 64 * page

func newCore(t testing.TB, change func(*aio.Config)) *aio.Core {
	t.Helper()
	cfg := aio.DefaultConfig()
	if change != nil {
		change(&cfg)
	}
	c, err := aio.NewCore(cfg)
	require.NoError(t, err)
	return c
}

func read(off int64) aio.SlotRequest {
	return aio.SlotRequest{Op: aio.Read, File: 1, Offset: off, Length: page}
}

func reserve(t testing.TB, c *aio.Core, r aio.SlotRequest, now time.Duration) aio.Reservation {
	t.Helper()
	res, err := c.Reserve(r, now)
	require.NoError(t, err)
	return res
}

func set(segs ...int) aio.SegmentSet {
	var s aio.SegmentSet
	for _, g := range segs {
		s.Add(g)
	}
	return s
}

func TestGlobalSegmentLayout(t *testing.T) {
	tests := []struct {
		name                      string
		ibuf, log                 bool
		wantIbuf, wantLog, wantRd int // first global segment; -1 when absent
		wantWr                    int
	}{
		{"ibuf and log on", true, true, 0, 1, 2, 6},
		{"ibuf off", false, true, -1, 0, 1, 5},
		{"log off", true, false, 0, -1, 1, 5},
		{"both off", false, false, -1, -1, 0, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCore(t, func(c *aio.Config) { c.IbufSegment, c.LogSegment = tt.ibuf, tt.log })
			first := func(a aio.ArrayID) int {
				f, n := c.ArraySegments(a)
				if n == 0 {
					return -1
				}
				return f
			}
			require.Equal(t, tt.wantIbuf, first(aio.ArrayIbuf))
			require.Equal(t, tt.wantLog, first(aio.ArrayLog))
			require.Equal(t, tt.wantRd, first(aio.ArrayRead))
			require.Equal(t, tt.wantWr, first(aio.ArrayWrite))
			require.Equal(t, tt.wantWr+4, c.Segments())
			require.Equal(t, aio.ArrayRead, c.ArrayOfSegment(tt.wantRd+3))
			require.Equal(t, aio.ArrayWrite, c.ArrayOfSegment(tt.wantWr))
			if !tt.ibuf {
				require.Equal(t, aio.ArrayRead, c.ArrayOf(aio.Read, aio.KindIbuf))
			}
			if !tt.log {
				require.Equal(t, aio.ArrayWrite, c.ArrayOf(aio.Write, aio.KindLog))
			}
		})
	}
}

func TestReserveChoosesTheSegmentOfThe64PageStripe(t *testing.T) {
	tests := []struct {
		name    string
		req     aio.SlotRequest
		wantSeg int
	}{
		{"first page of the file", read(0), 2},
		{"last page of the first stripe", read(63 * page), 2},
		{"first page of the second stripe", read(stripe), 3},
		{"fourth stripe", read(3 * stripe), 5},
		{"fifth stripe wraps to the first read segment", read(4 * stripe), 2},
		{"write goes to the write array", aio.SlotRequest{Op: aio.Write, File: 1, Offset: stripe, Length: page}, 7},
		{"ibuf read goes to segment 0", aio.SlotRequest{Kind: aio.KindIbuf, File: 1, Offset: 5 * stripe, Length: page}, 0},
		{"log write goes to segment 1", aio.SlotRequest{Op: aio.Write, Kind: aio.KindLog, File: 1, Length: 512}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCore(t, nil)
			res := reserve(t, c, tt.req, 0)
			require.Equal(t, tt.wantSeg, res.Segment)
			require.Equal(t, tt.wantSeg, c.SegmentOfSlot(res.Slot))
			require.Equal(t, 1, c.Waiting(tt.wantSeg))
		})
	}
}

func TestReserveSpillsIntoTheNextSegmentAndWrapsOverTheArray(t *testing.T) {
	c := newCore(t, func(c *aio.Config) { c.SlotsPerSegment = 2 })
	// Read segments are 2..5. Every request aims at the last one (segment 5).
	off := int64(3 * stripe)
	var segs []int
	for range 8 {
		segs = append(segs, reserve(t, c, read(off), 0).Segment)
	}
	require.Equal(t, []int{5, 5, 2, 2, 3, 3, 4, 4}, segs, "fills its own segment, then wraps to the array's start")
	res, err := c.Reserve(read(off), 0)
	require.ErrorIs(t, err, aio.ErrArrayFull)
	require.Equal(t, -1, res.Slot)
	require.Equal(t, uint64(1), c.Stats().ArrayFullWaits)
	// The write array is separate and still has room.
	reserve(t, c, aio.SlotRequest{Op: aio.Write, File: 1, Length: page}, 0)
}

func TestWakeSets(t *testing.T) {
	all := set(0, 1, 2, 3, 4, 5, 6, 7, 8, 9)
	tests := []struct {
		name       string
		policy     aio.WakePolicy
		wantSubmit aio.SegmentSet
		wantFlush  aio.SegmentSet
		wantFull   aio.SegmentSet // when full with requests waiting in segment 4 only
	}{
		{"wake-all wakes every handler", aio.WakeAll, all, set(), all},
		{"targeted wakes the slot's segment", aio.WakeTargeted, set(3), set(), set(4)},
		{"deferred wakes at flush", aio.WakeDeferred, set(), set(3), set(4)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCore(t, func(c *aio.Config) { c.Wake = tt.policy })
			res := reserve(t, c, read(stripe), 0)
			require.Equal(t, tt.wantSubmit, res.Wake)
			require.Equal(t, tt.wantFlush, c.Flush(aio.ArrayRead))
			require.True(t, c.Flush(aio.ArrayRead).Empty(), "a flush forgets what it woke")

			full := newCore(t, func(c *aio.Config) { c.Wake = tt.policy; c.SlotsPerSegment = 1 })
			reserve(t, full, read(0), 0)
			reserve(t, full, read(2*stripe), 0)
			_, ok := full.Pick(2, 0, false)
			require.True(t, ok)
			reserve(t, full, read(0), 0) // spills to segment 3
			reserve(t, full, read(0), 0) // spills to segment 5
			_, ok = full.Pick(3, 0, false)
			require.True(t, ok)
			_, ok = full.Pick(5, 0, false)
			require.True(t, ok)
			// Segments 2, 3 and 5 are in progress, 4 waits: the read array is full.
			res, err := full.Reserve(read(0), 0)
			require.ErrorIs(t, err, aio.ErrArrayFull)
			require.Equal(t, tt.wantFull, res.Wake)
		})
	}
}

func TestSegmentSetIteration(t *testing.T) {
	s := set(0, 63, 64, 129)
	var got []int
	for g := s.Next(0); g >= 0; g = s.Next(g + 1) {
		got = append(got, g)
	}
	require.Equal(t, []int{0, 63, 64, 129}, got)
	require.Equal(t, 4, s.Len())
	require.False(t, s.Has(-1))
	require.False(t, s.Has(500))
	require.True(t, s.Union(set(7)).Has(7))
	require.True(t, aio.SegmentSet{}.Empty())
}

// pickOrder reserves the requests (offset, hint, reserve time) in one read
// segment, picks one at a time at time now with merging off, and returns the
// offsets in the order the handler served them.
func pickOrder(t *testing.T, now time.Duration, reqs []aio.SlotRequest, at []time.Duration) []int64 {
	t.Helper()
	c := newCore(t, func(c *aio.Config) { c.MergeLimit = 1 })
	for i, r := range reqs {
		require.Equal(t, 2, reserve(t, c, r, at[i]).Segment)
	}
	var got []int64
	for {
		b, ok := c.Pick(2, now, false)
		if !ok {
			break
		}
		got = append(got, b.Offset)
		c.Complete(2, 0)
	}
	return got
}

func TestPickOrder(t *testing.T) {
	hinted := func(off int64, h prio.Hint) aio.SlotRequest { r := read(off); r.Hint = h; return r }
	sec := time.Second
	tests := []struct {
		name string
		now  time.Duration
		reqs []aio.SlotRequest
		at   []time.Duration
		want []int64
	}{
		{"lowest offset first", sec,
			[]aio.SlotRequest{read(5 * page), read(1 * page), read(3 * page)},
			[]time.Duration{0, 0, 0}, []int64{1 * page, 3 * page, 5 * page}},
		{"old request first, though its offset is higher", 3 * sec,
			[]aio.SlotRequest{read(1 * page), read(9 * page)},
			[]time.Duration{2 * sec, 0}, []int64{9 * page, 1 * page}},
		{"oldest of two old requests first", 5 * sec,
			[]aio.SlotRequest{read(1 * page), read(9 * page), read(5 * page)},
			[]time.Duration{2 * sec, 0, 1 * sec}, []int64{9 * page, 5 * page, 1 * page}},
		{"equally old: lowest offset", 5 * sec,
			[]aio.SlotRequest{read(9 * page), read(1 * page), read(3 * page)},
			[]time.Duration{0, 0, 4 * sec}, []int64{1 * page, 9 * page, 3 * page}},
		{"just under the old age is not old", 2*sec - 1,
			[]aio.SlotRequest{read(1 * page), read(9 * page)},
			[]time.Duration{1, 0}, []int64{1 * page, 9 * page}},
		{"exactly the old age is old", 2 * sec,
			[]aio.SlotRequest{read(1 * page), read(9 * page)},
			[]time.Duration{1, 0}, []int64{9 * page, 1 * page}},
		{"more urgent hint first", sec,
			[]aio.SlotRequest{hinted(1*page, prio.Background), hinted(9*page, prio.High), read(5 * page)},
			[]time.Duration{0, 0, 0}, []int64{9 * page, 5 * page, 1 * page}},
		{"equal hints: lowest offset", sec,
			[]aio.SlotRequest{hinted(7*page, prio.High), hinted(2*page, prio.High)},
			[]time.Duration{0, 0}, []int64{2 * page, 7 * page}},
		{"an old request beats a more urgent young one", 3 * sec,
			[]aio.SlotRequest{hinted(1*page, prio.Interrupt), hinted(9*page, prio.Idle)},
			[]time.Duration{2 * sec, 0}, []int64{9 * page, 1 * page}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, pickOrder(t, tt.now, tt.reqs, tt.at))
		})
	}
}

func TestMerge(t *testing.T) {
	other := func(r aio.SlotRequest) aio.SlotRequest { r.File = 2; return r }
	write := func(r aio.SlotRequest) aio.SlotRequest { r.Op = aio.Write; return r }
	ibuf := func(r aio.SlotRequest) aio.SlotRequest { r.Kind = aio.KindIbuf; return r }
	long := func(r aio.SlotRequest) aio.SlotRequest { r.Length = 2 * page; return r }
	tests := []struct {
		name       string
		limit      int
		reqs       []aio.SlotRequest
		wantOffset int64
		wantLength int64
		wantSlots  int
	}{
		{"consecutive pages merge", 64,
			[]aio.SlotRequest{read(2 * page), read(0), read(1 * page)}, 0, 3 * page, 3},
		{"a gap stops the merge", 64,
			[]aio.SlotRequest{read(0), read(1 * page), read(3 * page)}, 0, 2 * page, 2},
		{"another file stops the merge", 64,
			[]aio.SlotRequest{read(0), other(read(1 * page)), read(2 * page)}, 0, page, 1},
		{"another op stops the merge", 64,
			[]aio.SlotRequest{ibuf(read(0)), ibuf(write(read(1 * page)))}, 0, page, 1},
		{"lengths other than a page chain by offset plus length", 64,
			[]aio.SlotRequest{long(read(0)), read(2 * page), read(1 * page)}, 0, 3 * page, 2},
		{"the merge limit caps the batch", 2,
			[]aio.SlotRequest{read(0), read(1 * page), read(2 * page)}, 0, 2 * page, 2},
		{"merge limit 1 turns merging off", 1,
			[]aio.SlotRequest{read(0), read(1 * page)}, 0, page, 1},
		{"merging goes forward only", 64,
			[]aio.SlotRequest{read(1 * page), read(2 * page), read(0 * page)}, 0, 3 * page, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCore(t, func(c *aio.Config) { c.MergeLimit = tt.limit })
			var seg int
			for _, r := range tt.reqs {
				seg = reserve(t, c, r, 0).Segment
			}
			b, ok := c.Pick(seg, time.Second, false)
			require.True(t, ok)
			require.Equal(t, tt.wantOffset, b.Offset)
			require.Equal(t, tt.wantLength, b.Length)
			require.Len(t, b.Slots, tt.wantSlots)
			require.Equal(t, uint64(tt.wantSlots-1), c.Stats().Merges)
			require.Equal(t, len(tt.reqs)-tt.wantSlots, c.Waiting(seg))
		})
	}
}

func TestMergeOf64ConsecutivePagesIsOneIO(t *testing.T) {
	c := newCore(t, nil)
	for p := 63; p >= 0; p-- { // submitted backwards: order of submission does not matter
		reserve(t, c, read(int64(p)*page), 0)
	}
	reserve(t, c, read(64*page+4*stripe-stripe), 0) // page 64 lies in the next stripe's segment
	b, ok := c.Pick(2, 0, false)
	require.True(t, ok)
	require.Equal(t, int64(0), b.Offset)
	require.Equal(t, int64(stripe), b.Length)
	require.Len(t, b.Slots, 64)
	for i := 1; i < len(b.Slots); i++ {
		require.Equal(t, 2, c.SegmentOfSlot(b.Slots[i]))
	}
	c.Complete(2, 0)
	st := c.Stats()
	require.Equal(t, uint64(64), st.Completed)
	require.Equal(t, uint64(1), st.Batches)
	require.Equal(t, uint64(63), st.Merges)
}

func TestPickCountsWastedWakeups(t *testing.T) {
	c := newCore(t, func(c *aio.Config) { c.Wake = aio.WakeAll })
	res := reserve(t, c, read(0), 0)
	require.Equal(t, 10, res.Wake.Len())
	for g := res.Wake.Next(0); g >= 0; g = res.Wake.Next(g + 1) {
		_, ok := c.Pick(g, 0, true)
		require.Equal(t, g == res.Segment, ok)
	}
	_, ok := c.Pick(res.Segment, 0, false) // not woken: neither a wakeup nor wasted
	require.False(t, ok, "a segment with its batch in progress picks nothing")
	st := c.Stats()
	require.Equal(t, uint64(10), st.Signals)
	require.Equal(t, uint64(10), st.Wakeups)
	require.Equal(t, uint64(9), st.WastedWakeups)
}

func TestCompleteFreesSlotsAndReportsAFullArray(t *testing.T) {
	c := newCore(t, func(c *aio.Config) { c.SlotsPerSegment = 1; c.ReadSegments = 1 })
	reserve(t, c, read(0), 0)
	_, err := c.Reserve(read(page), 0)
	require.ErrorIs(t, err, aio.ErrArrayFull)
	b, ok := c.Pick(2, 0, false)
	require.True(t, ok)
	require.Len(t, b.Slots, 1)
	require.True(t, c.Full(aio.ArrayRead))
	c.Complete(2, 1)
	require.False(t, c.Full(aio.ArrayRead), "a slot is free: a submitter may proceed")
	c.Complete(2, 0) // no batch in progress: nothing to complete
	require.Zero(t, c.Reserved(aio.ArrayRead))
	reserve(t, c, read(page), 0)
	st := c.Stats()
	require.Equal(t, uint64(2), st.Submitted)
	require.Equal(t, uint64(0), st.Completed)
	require.Equal(t, uint64(1), st.Failed)
	require.Equal(t, uint64(1), st.InFlight)
	require.Equal(t, 1, st.MaxPending)
}

func TestReserveRejectsInvalidRequests(t *testing.T) {
	tests := []struct {
		name string
		req  aio.SlotRequest
	}{
		{"negative offset", aio.SlotRequest{Offset: -1, Length: page}},
		{"zero length", aio.SlotRequest{}},
		{"unknown op", aio.SlotRequest{Op: 2, Length: page}},
		{"unknown kind", aio.SlotRequest{Kind: 3, Length: page}},
		{"unknown hint", aio.SlotRequest{Hint: 9, Length: page}},
		{"end past int64", aio.SlotRequest{Offset: 1<<63 - 10, Length: page}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCore(t, nil)
			_, err := c.Reserve(tt.req, 0)
			require.ErrorIs(t, err, aio.ErrInvalidRequest)
			require.Zero(t, c.Stats().Submitted)
		})
	}
}
