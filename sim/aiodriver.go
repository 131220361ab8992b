package sim

import (
	"time"

	"github.com/innosim/innosim/aio"
)

// CPU under the array mutex: a handler's scan of its segment's slots for work
// (os_aio_simulated_handle looks at every slot of the segment), and a
// submitter's slot reservation.
const (
	pickWork    = 380 * time.Nanosecond
	reserveWork = 150 * time.Nanosecond
)

// aioDriver runs an aio.Core for the simulated server: one handler thread per
// global segment, one pthread mutex per array (array->mutex, os_mutex_t), one
// event per segment (os_aio_segment_wait_events). The core decides slots, wake
// sets and batches; the driver charges the mutexes, the futex calls, the context
// switches and the device time.
type aioDriver struct {
	core     *aio.Core
	arrayMu  [4]int32 // mutex index by aio.ArrayID, -1 for an absent array
	handler  []int32  // thread id by global segment
	ev       []segEvent
	pages    int64 // pages in the simulated tablespace (offsets drawn below)
	Dropped  uint64
	Prefetch uint64
}

// segEvent is an os_event_t: a flag, a signal count and a futex word (bucket).
type segEvent struct {
	set     bool
	signals uint64
	bucket  int32
	waiting bool // the handler is blocked on it
}

// SetAIO installs a simulated-AIO array run by an aio.Core built from cfg and
// adds its handler threads (one per global segment, hint Background). Requests
// are 16 KiB page reads at offsets drawn uniformly over a tablespace of pages
// pages. Errors from aio.NewCore are returned as they are.
func (m *Machine) SetAIO(cfg aio.Config, pages int64) error {
	core, err := aio.NewCore(cfg)
	if err != nil {
		return err
	}
	d := &aioDriver{core: core, pages: max(pages, 1)}
	for a := range d.arrayMu {
		d.arrayMu[a] = -1
		if _, n := core.ArraySegments(aio.ArrayID(a)); n > 0 {
			d.arrayMu[a] = m.AddMutex(Mutex{Name: "aio." + aio.ArrayID(a).String()})
		}
	}
	m.aio = d
	for s := range core.Segments() {
		d.ev = append(d.ev, segEvent{bucket: m.addBucket()})
		id := int32(len(m.threads))
		d.handler = append(d.handler, id)
		if err := m.AddThread([]Op{{Kind: OpAIOHandler}}, -2); err != nil {
			return err
		}
		m.threads[id].seg = int32(s)
	}
	return nil
}

// AIOStats returns the AIO core's counters (zero if there is no AIO array).
func (m *Machine) AIOStats() aio.Stats {
	if m.aio == nil {
		return aio.Stats{}
	}
	return m.aio.core.Stats()
}

// Handler stages, kept in thread.hstage.
const (
	hsWait = iota
	hsWoken
	hsLock
	hsUnlockWait
	hsUnlockIO
	hsIOSys
	hsIOWait
	hsLock2
	hsUnlock2
)

// handlerStep runs the loop of os_aio_simulated_handle for t's segment.
func (m *Machine) handlerStep(t *thread, id int32) {
	d := m.aio
	seg := int(t.seg)
	mu := d.arrayMu[d.core.ArrayOfSegment(seg)]
	ev := &d.ev[seg]
	for {
		switch t.hstage {
		case hsWait:
			t.hstage = hsWoken
			if ev.set || ev.signals != t.sigSeen {
				continue // signalled since the reset: no sleep
			}
			m.futexOp(t, id, kWaitEvent, int32(seg), ev.bucket)
			return
		case hsWoken:
			t.woken = true
			t.hstage = hsLock
		case hsLock:
			if m.lock(t, id, mu) {
				return
			}
			t.phase = 0
			_, ok := d.core.Pick(seg, time.Duration(m.e.now), t.woken)
			t.woken = false
			if !ok {
				ev.set = false // os_event_reset under the array mutex
				t.sigSeen = ev.signals
				t.hstage = hsUnlockWait
			} else {
				t.hstage = hsUnlockIO
			}
			m.runBurst(t, id, int64(pickWork), catUser)
			return
		case hsUnlockWait, hsUnlockIO:
			if m.unlock(t, id, mu) {
				return
			}
			t.phase = 0
			if t.hstage == hsUnlockWait {
				t.hstage = hsWait
			} else {
				t.hstage = hsIOSys
			}
		case hsIOSys: // pread: a system call, then blocked for the device
			t.hstage = hsIOWait
			m.syscalls++
			m.runBurst(t, id, int64(m.cfg.Costs.Syscall), catSys)
			return
		case hsIOWait:
			t.hstage = hsLock2
			m.block(t)
			m.e.At(m.e.now+m.jit(m.cfg.Costs.IOService), m.evWake, id, t.gen)
			return
		case hsLock2:
			if m.lock(t, id, mu) {
				return
			}
			t.phase = 0
			d.core.Complete(seg, 0)
			t.hstage = hsUnlock2
		case hsUnlock2:
			if m.unlock(t, id, mu) {
				return
			}
			t.phase = 0
			t.hstage = hsLock // pick again without sleeping
		}
	}
}

// eventWait is the end of a handler's futex wait on its segment event: it blocks
// unless the event was set meanwhile. It reports whether t blocked.
func (m *Machine) eventWait(t *thread, id int32, seg int32) bool {
	ev := &m.aio.ev[seg]
	if ev.set || ev.signals != t.sigSeen {
		return false
	}
	ev.waiting = true
	m.block(t)
	return true
}

// eventWake is the end of a submitter's futex wake of segment seg's handler.
func (m *Machine) eventWake(seg int32) {
	ev := &m.aio.ev[seg]
	if ev.waiting {
		ev.waiting = false
		m.wake(m.aio.handler[seg])
	}
}

// Prefetch stages, kept in thread.hstage of the submitting thread.
const (
	pfStart = iota
	pfLocked
	pfUnlock
	pfWake
)

// prefetch runs OpPrefetch: for each page, reserve a slot under the read array's
// mutex, release it, then set the event of every segment in the core's wake set —
// a futex wake for each handler that sleeps on it (os_event_set: no system call
// when nobody waits). It reports whether t must stop.
func (m *Machine) prefetch(t *thread, id int32, pages int32) bool {
	d := m.aio
	if d == nil {
		return false
	}
	mu := d.arrayMu[aio.ArrayRead]
	for {
		switch t.hstage {
		case pfStart:
			if t.pfLeft == 0 {
				t.pfLeft = pages
			}
			if m.lock(t, id, mu) {
				return true
			}
			t.phase = 0
			off := m.e.rng.Int64N(d.pages) * d.core.Config().PageSize
			res, err := d.core.Reserve(aio.SlotRequest{Op: aio.Read, Kind: aio.KindNormal, File: 1,
				Offset: off, Length: d.core.Config().PageSize, Hint: -2}, time.Duration(m.e.now))
			if err != nil {
				d.Dropped++ // array full: a read-ahead is best effort, drop it
			} else {
				d.Prefetch++
			}
			t.wakeSet = res.Wake
			t.hstage = pfUnlock
			m.runBurst(t, id, int64(reserveWork), catUser)
			return true
		case pfUnlock:
			if m.unlock(t, id, mu) {
				return true
			}
			t.phase = 0
			t.hstage = pfWake
		case pfWake:
			s := t.wakeSet.Next(0)
			if s < 0 && t.pfLeft == 1 && !t.pfFlushed && d.core.Config().Wake == aio.WakeDeferred {
				// the read-ahead batch is submitted: wake the segments it filled
				t.pfFlushed = true
				t.wakeSet = d.core.Flush(aio.ArrayRead)
				continue
			}
			if s < 0 {
				t.pfFlushed = false
				t.hstage = pfStart
				t.pfLeft--
				if t.pfLeft > 0 {
					continue
				}
				return false
			}
			t.wakeSet = withoutSeg(t.wakeSet, s)
			t.hstage = pfWake
			ev := &d.ev[s]
			if !ev.set {
				ev.set = true
				ev.signals++
			}
			if ev.waiting {
				m.futexOp(t, id, kWakeEvent, int32(s), ev.bucket)
				return true
			}
		}
	}
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
