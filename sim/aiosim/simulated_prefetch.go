package aiosim

import (
	"github.com/innosim/innosim/aio"
	"github.com/innosim/innosim/sim/machine"
)

// prefetchState is a submitting thread's progress through OpPrefetch.
type prefetchState struct {
	stage   prefetchStage
	split   bool           // OpPrefetchSiblings: one wake after the reads
	sw      simWake        // the split's wake of every segment (pfScan)
	left    int32          // pages still to submit
	wake    aio.SegmentSet // segments still to wake
	flushed bool           // the deferred wakes were flushed
}

// prefetchStage is how far a submitting thread has got in OpPrefetch or
// OpPrefetchSiblings.
type prefetchStage uint8

const (
	pfBegin prefetchStage = iota
	pfStart
	pfUnlock
	pfWake
	pfScan // OpPrefetchSiblings under WakeAll: os_aio_simulated_wake_handler_threads (simWake)
)

// prefetch runs OpPrefetch (split false): for each of pages pages, reserve a
// slot under the read array's mutex, release it, then set the event of every
// segment in the core's wake set — a futex wake for each handler that sleeps
// on it (os_event_set: no system call when nobody waits).
//
// With split true it runs OpPrefetchSiblings instead (pages is its Arg): the
// split leaf's sibling is reserved as above only if the buffer pool does not
// hold it (bufPool.split; never when pages is siblingResident), without its
// wake; then the split's one wake:
// every segment under WakeAll (btr_cur_prefetch_siblings calling
// os_aio_simulated_wake_handler_threads whether or not a read was queued),
// each scanned for a reserved slot under its array's mutex and its event set
// only if the scan finds one (AIO::wake_simulated_handler_thread, MySQL 5.7
// and 8.0); the read's segment under WakeTargeted; the core's Flush under
// WakeDeferred.
//
// It reports whether the op is done and thread id goes on; false means it
// stopped and prefetch is called again when it runs.
func (d *Simulated) prefetch(id int32, pages int32, split bool) bool {
	m := d.m
	for int(id) >= len(d.pf) {
		d.pf = append(d.pf, prefetchState{})
	}
	p := &d.pf[id]
	mu := d.arrayMu[aio.ArrayRead]
	for {
		switch p.stage {
		case pfBegin:
			p.left, p.split, p.wake = pages, split, aio.SegmentSet{}
			if split {
				p.left = 1
				if pages == machine.SiblingResident || d.siblings != nil && !d.siblings.Split(id) {
					p.left = 0 // resident: buf_read_page_low returns at once
				}
			}
			p.stage = pfStart
			if split && p.left == 0 {
				p.wake = d.splitWake()
				p.stage = pfWake
			}
		case pfStart:
			if !m.Lock(id, mu) {
				return false
			}
			off := m.Rand().Int64N(d.pages) * d.core.Config().PageSize
			res, err := d.core.Reserve(aio.SlotRequest{Op: aio.Read, Kind: aio.KindNormal, File: 1,
				Offset: off, Length: d.core.Config().PageSize, Hint: -2}, m.Clock())
			if err != nil {
				d.Dropped++ // array full: a read-ahead is best effort, drop it
			} else {
				d.Prefetch++
			}
			if p.split {
				p.wake = p.wake.Union(res.Wake)
			} else {
				p.wake = res.Wake
			}
			p.stage = pfUnlock
			m.Burst(id, int64(reserveWork), machine.CatUser)
			return false
		case pfUnlock:
			if !m.Unlock(id, mu) {
				return false
			}
			p.stage = pfWake
			if p.split {
				if p.left--; p.left > 0 {
					p.stage = pfStart
					continue
				}
				p.wake = p.wake.Union(d.splitWake())
			}
		case pfWake:
			s := p.wake.Next(0)
			if s < 0 && p.split {
				p.stage = pfBegin
				return true
			}
			if p.split && d.core.Config().Wake == aio.WakeAll {
				p.sw, p.stage = simWake{left: p.wake, seg: -1}, pfScan
				continue
			}
			if s < 0 && p.left == 1 && !p.flushed && d.core.Config().Wake == aio.WakeDeferred {
				// the read-ahead batch is submitted: wake the segments it filled
				p.flushed = true
				p.wake = d.core.Flush(aio.ArrayRead)
				continue
			}
			if s < 0 {
				p.flushed = false
				p.stage = pfStart
				p.left--
				if p.left > 0 {
					continue
				}
				p.stage = pfBegin
				return true
			}
			p.wake = withoutSeg(p.wake, s)
			p.stage = pfWake
			ev := &d.ev[s]
			ev.Set()
			// a futex wake whenever the handler is registered, even if the
			// event was set already (docs/design.md, known departures)
			if ev.Waiting {
				m.FutexWake(id, d, int32(s), d.evBucket[s])
				return false
			}
		case pfScan:
			if !d.wakeScan(id, &p.sw) {
				return false
			}
			p.wake, p.stage = aio.SegmentSet{}, pfBegin
			return true
		}
	}
}

// splitWake is the wake a leaf split makes after its sibling reads: every
// segment under WakeAll (os_aio_simulated_wake_handler_threads), the read
// array's segments with requests waiting under WakeDeferred (the core's
// Flush), none under WakeTargeted (each read named its own segment).
func (d *Simulated) splitWake() aio.SegmentSet {
	var set aio.SegmentSet
	switch d.core.Config().Wake {
	case aio.WakeAll:
		for s := range d.core.Segments() {
			set.Add(s)
		}
	case aio.WakeDeferred:
		set = d.core.Flush(aio.ArrayRead)
	}
	return set
}

// withoutSeg returns set minus seg.
func withoutSeg(set aio.SegmentSet, seg int) aio.SegmentSet {
	var out aio.SegmentSet
	for s := set.Next(0); s >= 0; s = set.Next(s + 1) {
		if s != seg {
			out.Add(s)
		}
	}
	return out
}

// simWake is a thread's progress through os_aio_simulated_wake_handler_threads
// of MySQL 5.7 and 8.0 (os0file.cc), which calls
// AIO::wake_simulated_handler_thread for every global segment: acquire the
// segment's array mutex (the one mutex of the read array, s_reads, or of the
// write array, s_writes, for all its segments), look through the segment's
// slots for a reserved one (the loop stops at the first; AIO::reserve_slot
// fills a segment from its first slot, so one slot's share of the scan, else
// all of it), release the mutex, and set the segment's event only if a slot
// was found.
type simWake struct {
	left  aio.SegmentSet // segments not yet visited
	seg   int32          // the segment whose array mutex is held, -1 if none
	found bool           // the held segment's scan found a reserved slot
}

// wakeScan steps w for thread id; it reports whether every segment has been
// visited. False means the thread stopped (a mutex, the scan's burst, a
// futex wake) and wakeScan is called again when it runs.
func (d *Simulated) wakeScan(id int32, w *simWake) bool {
	m := d.m
	for {
		if w.seg < 0 {
			s := w.left.Next(0)
			if s < 0 {
				return true
			}
			if !m.Lock(id, d.arrayMu[d.core.ArrayOfSegment(s)]) {
				return false
			}
			w.seg = int32(s)
			w.found = d.core.Waiting(s) > 0 || d.core.Busy(s)
			scan := int64(pickWork)
			if w.found {
				scan /= int64(d.core.Config().SlotsPerSegment)
			}
			m.Burst(id, scan, machine.CatUser)
			return false
		}
		s := int(w.seg)
		if !m.Unlock(id, d.arrayMu[d.core.ArrayOfSegment(s)]) {
			return false
		}
		w.seg, w.left = -1, withoutSeg(w.left, s)
		if !w.found {
			continue // nothing reserved: the event is not set
		}
		ev := &d.ev[s]
		ev.Set()
		if ev.Waiting {
			m.FutexWake(id, d, int32(s), d.evBucket[s])
			return false
		}
	}
}

// allSegments returns every global segment of the core.
func (d *Simulated) allSegments() aio.SegmentSet {
	var set aio.SegmentSet
	for s := range d.core.Segments() {
		set.Add(s)
	}
	return set
}

// setEvents sets the event of every segment in *set, removing each as it
// goes (os_event_set: a futex wake when the handler sleeps on it). It
// reports whether the set is empty; false means thread id stopped for a
// futex wake and setEvents is called again when it runs.
func (d *Simulated) setEvents(id int32, set *aio.SegmentSet) bool {
	m := d.m
	for s := set.Next(0); s >= 0; s = set.Next(0) {
		*set = withoutSeg(*set, s)
		ev := &d.ev[s]
		ev.Set()
		if ev.Waiting {
			m.FutexWake(id, d, int32(s), d.evBucket[s])
			return false
		}
	}
	return true
}
