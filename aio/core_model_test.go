package aio_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/innosim/innosim/aio"
	"github.com/innosim/innosim/prio"
	"github.com/stretchr/testify/require"
)

// model is a literal, slow transcription of the rules of os0file.cc's simulated
// AIO for the read array alone (one file set, one op): the scan for a free slot
// from the local segment with wrap, the old-age pick, the lowest-offset pick
// (with the hint first), and the merge loop that rescans the segment for each
// link. The Core must agree with it on every step.
type model struct {
	perSeg, nseg, first int
	limit               int
	oldAge              time.Duration
	slots               []mslot
	busy                map[int][]int // segment -> local slots in progress
}

type mslot struct {
	used, inProgress bool
	r                aio.SlotRequest
	at               time.Duration
}

func (m *model) reserve(r aio.SlotRequest, now time.Duration) (int, bool) {
	local := int((r.Offset / stripe) % int64(m.nseg))
	for n, i := 0, local*m.perSeg; n < len(m.slots); n, i = n+1, (i+1)%len(m.slots) {
		if !m.slots[i].used {
			m.slots[i] = mslot{used: true, r: r, at: now}
			return i, true
		}
	}
	return -1, false
}

func (m *model) pick(seg int, now time.Duration) []int {
	if m.busy[seg] != nil {
		return nil
	}
	lo := (seg - m.first) * m.perSeg
	cand := func(i int) bool { return m.slots[i].used && !m.slots[i].inProgress }
	first := -1
	for i := lo; i < lo+m.perSeg; i++ { // old requests: biggest age, then lowest offset
		if !cand(i) || now-m.slots[i].at < m.oldAge {
			continue
		}
		if first < 0 || m.slots[i].at < m.slots[first].at ||
			(m.slots[i].at == m.slots[first].at && m.slots[i].r.Offset < m.slots[first].r.Offset) {
			first = i
		}
	}
	if first < 0 {
		for i := lo; i < lo+m.perSeg; i++ {
			if !cand(i) {
				continue
			}
			if first < 0 || m.slots[i].r.Hint > m.slots[first].r.Hint ||
				(m.slots[i].r.Hint == m.slots[first].r.Hint && m.slots[i].r.Offset < m.slots[first].r.Offset) {
				first = i
			}
		}
	}
	if first < 0 {
		return nil
	}
	batch := []int{first}
	m.slots[first].inProgress = true
	cur := first
consecutive:
	for len(batch) < m.limit {
		for i := lo; i < lo+m.perSeg; i++ {
			s, c := m.slots[i], m.slots[cur]
			if cand(i) && s.r.Offset == c.r.Offset+c.r.Length && s.r.File == c.r.File && s.r.Op == c.r.Op {
				m.slots[i].inProgress = true
				batch = append(batch, i)
				cur = i
				continue consecutive
			}
		}
		break
	}
	m.busy[seg] = batch
	return batch
}

func (m *model) complete(seg int) {
	for _, i := range m.busy[seg] {
		m.slots[i] = mslot{}
	}
	delete(m.busy, seg)
}

// TestCoreAgreesWithTheModel drives the Core and the model with the same random
// steps and compares every reservation and every batch.
func TestCoreAgreesWithTheModel(t *testing.T) {
	tests := []struct {
		name          string
		segs, perSeg  int
		limit, files  int
		pages         int64
		hints         bool
		stepsPerRound int
	}{
		{"small array, one file, no hints", 2, 4, 64, 1, 600, false, 4000},
		{"tiny segments, two files, hints", 3, 2, 64, 2, 8, true, 4000},
		{"wide segments, merge limit 3", 4, 32, 3, 1, 64 * 8, true, 4000},
		{"one segment, dense offsets", 1, 16, 64, 2, 40, true, 4000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCore(t, func(c *aio.Config) {
				c.ReadSegments, c.SlotsPerSegment, c.MergeLimit = tt.segs, tt.perSeg, tt.limit
				c.Wake = aio.WakeTargeted
			})
			first, _ := c.ArraySegments(aio.ArrayRead)
			slotBase := first * tt.perSeg
			m := &model{perSeg: tt.perSeg, nseg: tt.segs, first: first, limit: tt.limit,
				oldAge: 2 * time.Second, slots: make([]mslot, tt.segs*tt.perSeg), busy: map[int][]int{}}
			rng := rand.New(rand.NewPCG(1, uint64(tt.segs*1000+tt.perSeg)))
			now := time.Duration(0)
			var failed uint64
			for step := range tt.stepsPerRound {
				now += time.Duration(rng.IntN(300)) * time.Millisecond
				switch k := rng.IntN(10); {
				case k < 5:
					r := aio.SlotRequest{File: uint64(rng.IntN(tt.files)), Offset: rng.Int64N(tt.pages) * page, Length: page}
					if rng.IntN(8) == 0 {
						r.Length = 2 * page
					}
					if tt.hints {
						r.Hint = prio.Hint(rng.IntN(9) - 4)
					}
					want, ok := m.reserve(r, now)
					res, err := c.Reserve(r, now)
					if !ok {
						require.ErrorIs(t, err, aio.ErrArrayFull, "step %d", step)
						continue
					}
					require.NoError(t, err)
					require.Equal(t, slotBase+want, res.Slot, "step %d: slot", step)
					require.Equal(t, first+want/tt.perSeg, res.Segment, "step %d: segment", step)
				case k < 8:
					seg := first + rng.IntN(tt.segs)
					want := m.pick(seg, now)
					b, ok := c.Pick(seg, now, rng.IntN(2) == 0)
					require.Equal(t, want != nil, ok, "step %d: pick in segment %d", step, seg)
					if !ok {
						continue
					}
					got := make([]int, len(b.Slots))
					for i, g := range b.Slots {
						got[i] = g - slotBase
					}
					require.Equal(t, want, got, "step %d: batch of segment %d", step, seg)
				default:
					seg := first + rng.IntN(tt.segs)
					n := len(m.busy[seg])
					f := 0
					if n > 0 {
						f = rng.IntN(n + 1)
					}
					m.complete(seg)
					c.Complete(seg, f)
					failed += uint64(f)
				}
				st := c.Stats()
				require.Equal(t, st.Submitted, st.Completed+st.Failed+st.InFlight, "step %d: counters balance", step)
				require.Equal(t, failed, st.Failed)
				require.Equal(t, st.Batches+st.Merges, st.Completed+st.Failed+inProgress(m), "step %d: every picked request is counted once", step)
			}
			st := c.Stats()
			require.NotZero(t, st.Merges, "the run must exercise merging")
			require.NotZero(t, st.Completed, "the run must exercise completion")
		})
	}
}

func inProgress(m *model) uint64 {
	var n uint64
	for _, s := range m.slots {
		if s.used && s.inProgress {
			n++
		}
	}
	return n
}
