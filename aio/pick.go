package aio

import (
	"math/bits"
	"time"

	"github.com/innosim/innosim/prio"
)

// Batch is one I/O a handler issues: a run of requests of one file and one op,
// each starting where the previous ended, merged into a single read or write
// of Length bytes at Offset.
type Batch struct {
	// Segment is the global segment whose handler picked the batch.
	Segment int
	// Op and File are the batch's direction and file (shared by every slot).
	Op   Op
	File uint64
	// Offset and Length are the combined I/O: Offset of the first slot, the sum
	// of the slots' lengths (0 and 0 for syncs).
	Offset int64
	Length int64
	// Hint is the first request's hint: the batch's priority, which the
	// driver may carry to the I/O (WithIOPriority).
	Hint prio.Hint
	// Slots are the global slot numbers in file order, at most MergeLimit. The
	// slice is the core's: valid until Complete(Segment, ...) and not to be
	// modified.
	Slots []int
}

// Pick is what the handler thread of global segment seg does at time now under
// its segment's lock, as os_aio_simulated_handle in MySQL 5.5–5.7. It chooses the
// first request:
//
//   - the oldest request whose age (now minus its Reserve time) is at least
//     OldAge, ties broken by the lowest offset: the guard against starvation;
//   - else the request with the most urgent Hint, ties broken by the lowest
//     offset. With every hint equal this is InnoDB's lowest-offset rule.
//
// Further ties go to the lowest slot. It then merges, as InnoDB's
// consecutive_loop: the waiting request of the same segment, file and op whose
// offset is the previous one's offset plus length, repeatedly, up to MergeLimit
// requests (never across a gap, another file or another op; MySQL bug 67973
// shipped a merge test that never matched). A sync (Fsync, Fdatasync) merges
// instead with every other waiting sync of the same file and op, up to
// MergeLimit: one system call, issued after all of them were submitted,
// serves them all (group commit). The batch's slots are marked in progress;
// each request beyond the first counts as a merge.
//
// Pick keeps nothing of now, and with fewer than two requests waiting its choice
// does not depend on it (the one request is picked however old it is), so a
// driver may skip the clock read then and pass 0: Array does.
//
// woken says that the handler has just returned from waiting on its event: it
// counts a wakeup, and a wasted wakeup if the segment has nothing waiting. Pick
// returns ok = false when nothing waits, or when the segment already has a batch
// in progress (a driver error: one handler serves a segment, and it must
// Complete before it picks again). Pick does not allocate.
//
// InnoDB first returns slots whose I/O is already done (io_already_done), one
// per call; here Complete frees a whole batch at once, so there is never a done
// slot left to return.
func (c *Core) Pick(seg int, now time.Duration, woken bool) (b Batch, ok bool) {
	ok = c.pick(&b, seg, now, woken)
	return b, ok
}

// pick is Pick with an out parameter, for the driver's handler loop (see
// reserveIn for why): it fills *b and returns true, or returns false and leaves
// *b as it was.
func (c *Core) pick(b *Batch, seg int, now time.Duration, woken bool) bool {
	sg := &c.segs[seg]
	if woken {
		sg.st.wakeups++
	}
	if sg.busy {
		return false
	}
	if sg.waiting == 0 {
		if woken {
			sg.st.wasted++
		}
		return false
	}
	batch, f, length := c.choose(sg, seg, now, sg.batch[:0])
	sg.batch = batch
	sg.busy = true
	sg.waiting -= len(batch)
	sg.st.batches++
	sg.st.merges += uint64(len(batch) - 1)
	*b = Batch{Segment: seg, Op: f.op, File: f.file, Offset: f.offset, Length: length, Hint: f.hint, Slots: batch}
	return true
}

// choose is the choice and the merge of pick, for segment seg (sg) with at
// least one request waiting: it marks the batch's slots in progress, appends
// their global numbers to batch and returns it, the first request's slot and
// the batch's length. The caller does the segment's bookkeeping (busy,
// waiting, counters): pick for the handler's one batch at a time, issue for
// native AIO's many.
func (c *Core) choose(sg *segState, seg int, now time.Duration, batch []int) ([]int, *slot, int64) {
	per := c.cfg.SlotsPerSegment
	base := seg * per // global number of the segment's first slot
	slots := c.slots[base : base+per]
	oldAge := c.cfg.OldAge
	old, best := -1, -1
	// The scan stops once it has seen every waiting request: slots are taken
	// from the front of the segment, so with few requests waiting the pass is
	// short. The worst case is still one pass over the segment.
	left := sg.waiting
	for i := 0; left > 0; i++ {
		s := &slots[i]
		if !s.reserved || s.inProgress {
			continue
		}
		left--
		if now-s.at >= oldAge {
			if old < 0 || s.at < slots[old].at || (s.at == slots[old].at && s.offset < slots[old].offset) {
				old = i
			}
			continue
		}
		if best < 0 || s.hint > slots[best].hint || (s.hint == slots[best].hint && s.offset < slots[best].offset) {
			best = i
		}
	}
	first := best
	if old >= 0 {
		first = old
	}
	f := &slots[first]
	f.inProgress = true
	batch = append(batch, base+first)
	length := f.length
	switch {
	case c.cfg.MergeLimit == 1 || sg.waiting == 1:
	case f.op.isSync():
		batch = c.gatherSyncs(slots, base, f, batch, sg.waiting-1)
	default:
		batch, length = c.merge(&sg.merge, slots, base, f, batch, sg.waiting-1)
	}
	return batch, f, length
}

// gatherSyncs extends batch (holding the sync f) with the other waiting syncs
// of f's file and op among slots, lowest slot first, up to MergeLimit;
// waiting is the number of waiting requests other than f. Each sync asks
// for the writes completed before it was submitted, and the batch's one call
// is made after every one of them was submitted, so it covers them all.
func (c *Core) gatherSyncs(slots []slot, base int, f *slot, batch []int, waiting int) []int {
	for i := 0; waiting > 0 && len(batch) < c.cfg.MergeLimit; i++ {
		s := &slots[i]
		if !s.reserved || s.inProgress {
			continue
		}
		waiting--
		if s.op == f.op && s.file == f.file {
			s.inProgress = true
			batch = append(batch, base+i)
		}
	}
	return batch
}

// merge extends batch (holding f) with the consecutive requests among slots,
// whose global numbers start at base; waiting is the number of waiting
// requests other than f. It indexes the candidates by offset in
// one pass and then follows the chain, so a full merge costs O(slots + limit)
// where InnoDB rescans the segment for each link.
func (c *Core) merge(t *mergeTable, slots []slot, base int, f *slot, batch []int, waiting int) ([]int, int64) {
	t.reset()
	next := f.offset + f.length
	for i := 0; waiting > 0; i++ {
		s := &slots[i]
		if !s.reserved || s.inProgress {
			continue
		}
		waiting--
		if s.file == f.file && s.op == f.op && s.offset >= next {
			t.insert(s.offset, int32(i))
		}
	}
	length := f.length
	for len(batch) < c.cfg.MergeLimit {
		i, found := t.lookup(next)
		if !found {
			break
		}
		s := &slots[i]
		s.inProgress = true
		batch = append(batch, base+int(i))
		length += s.length
		next += s.length
	}
	return batch, length
}

// Complete ends the batch in progress in segment seg: its slots are freed, its
// requests counted as completed except failed of them counted as failed (the
// driver decides which; 0 ≤ failed ≤ len(batch)). A submitter that found the
// array full may now find a slot (InnoDB sets array->not_full in
// os_aio_array_free_slot; Full tells a serial driver whether the array still
// is). Complete on a segment with no batch in progress does nothing. Complete
// touches seg alone and does not allocate.
func (c *Core) Complete(seg int, failed int) {
	sg := &c.segs[seg]
	if !sg.busy {
		return
	}
	base := seg * c.cfg.SlotsPerSegment
	for _, g := range sg.batch {
		c.slots[g] = slot{}
		i := g - base
		sg.used[i>>6] &^= 1 << (uint(i) & 63)
	}
	n := len(sg.batch)
	failed = min(max(failed, 0), n)
	sg.reserved -= n
	sg.busy = false
	sg.batch = sg.batch[:0]
	sg.st.completed += uint64(n - failed)
	sg.st.failed += uint64(failed)
}

// mergeTable is an open-addressing hash from offset to local slot, cleared in
// O(1) by bumping a generation. Sized to twice the slots of a segment, it never
// fills.
type mergeTable struct {
	keys  []int64
	vals  []int32
	gens  []uint32
	gen   uint32
	shift uint
}

func (t *mergeTable) init(slots int) {
	n := 1 << bits.Len(uint(2*slots-1))
	n = max(n, 2)
	t.keys = make([]int64, n)
	t.vals = make([]int32, n)
	t.gens = make([]uint32, n)
	t.shift = uint(64 - bits.TrailingZeros(uint(n)))
}

func (t *mergeTable) reset() {
	t.gen++
	if t.gen == 0 { // wrapped: old generations could alias
		clear(t.gens)
		t.gen = 1
	}
}

func (t *mergeTable) home(key int64) int {
	return int((uint64(key) * 0x9E3779B97F4A7C15) >> t.shift)
}

// insert keeps the first slot inserted for a key (the lowest slot).
func (t *mergeTable) insert(key int64, val int32) {
	mask := len(t.keys) - 1
	for h := t.home(key); ; h = (h + 1) & mask {
		if t.gens[h] != t.gen {
			t.gens[h], t.keys[h], t.vals[h] = t.gen, key, val
			return
		}
		if t.keys[h] == key {
			return
		}
	}
}

func (t *mergeTable) lookup(key int64) (int32, bool) {
	mask := len(t.keys) - 1
	for h := t.home(key); t.gens[h] == t.gen; h = (h + 1) & mask {
		if t.keys[h] == key {
			return t.vals[h], true
		}
	}
	return 0, false
}
