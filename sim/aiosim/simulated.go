package aiosim

import (
	"fmt"
	"time"

	"github.com/innosim/innosim/sim/bufpool"
	"github.com/innosim/innosim/sim/device"
	"github.com/innosim/innosim/sim/machine"

	"github.com/innosim/innosim/aio"
)

// CPU under the array mutex: a handler's scan of its segment's slots for work
// (os_aio_simulated_handle looks at every slot of the segment), and a
// submitter's slot reservation.
const (
	pickWork    = 380 * time.Nanosecond
	reserveWork = 150 * time.Nanosecond
)

// Simulated runs an aio.Core for the simulated server: one handler thread per
// global segment, one pthread mutex per array (array->mutex, os_mutex_t), one
// event per segment (os_aio_segment_wait_events). The core decides slots, wake
// sets and batches; the driver charges the mutexes, the futex calls, the context
// switches and the device time.
type Simulated struct {
	m        *machine.Machine
	core     *aio.Core
	arrayMu  [4]int32         // mutex index by aio.ArrayID, -1 for an absent array
	handler  []int32          // thread id by global segment
	ev       []machine.Event  // os_aio_segment_wait_events, by global segment
	evBucket []int32          // the futex bucket of each segment's event
	hs       []aioHandler     // by global segment
	pf       []prefetchState  // by thread id, grown on demand
	pages    int64            // pages in the simulated tablespace (offsets drawn below)
	cw       simCleaner       // the page cleaner's writes and wakes (bufpool.WriteArray)
	sink     bufpool.PageSink // the flush list the write array's completions clean, or nil
	dev      *device.Device   // the device of the handlers' I/Os, or nil
	siblings Siblings         // the buffer pool a sibling prefetch looks in, or nil
	cleaner  int32            // the page cleaner's thread id, with a sink
	Dropped  uint64
	Prefetch uint64
}

// aioHandler is the state of a segment's handler thread between its steps:
// where it is in the driver's blocking (stage) and the cycle's decisions
// (aio.HandlerCycle, the real driver's too).
type aioHandler struct {
	stage   handlerStage
	cycle   *aio.HandlerCycle
	sigSeen uint32 // the event's signal count at the last reset
}

// prefetchState is a submitting thread's progress through OpPrefetch.
type prefetchState struct {
	stage   prefetchStage
	split   bool           // OpPrefetchSiblings: one wake after the reads
	sw      simWake        // the split's wake of every segment (pfScan)
	left    int32          // pages still to submit
	wake    aio.SegmentSet // segments still to wake
	flushed bool           // the deferred wakes were flushed
}

// An Array is an installed AIO array, simulated (Simulated) or native
// (Native): a page cleaner's write array (bufpool.WriteArray) whose core
// keeps the counters.
type Array interface {
	bufpool.WriteArray
	// Stats returns the AIO core's counters.
	Stats() aio.Stats
}

// Siblings is the buffer pool as a leaf split's sibling prefetch sees it
// (bufpool.Pool): Split reports whether thread id's split leaf's sibling
// must be read (it is not resident).
type Siblings interface {
	Split(id int32) (miss bool)
}

// Install installs an AIO array run by an aio.Core built from cfg and adds
// its handler threads (one per global segment, hint Background): simulated
// AIO (Simulated) for cfg.IO = aio.IOSimulated, native AIO (Native) for
// aio.IONative. Requests are 16 KiB page reads at offsets drawn uniformly
// over a tablespace of pages pages, at least 1; the handlers' I/Os go to dev
// (the profile's IOService without one), and a sibling prefetch reads only
// what siblings (nil: none resident) does not hold. Errors from aio.NewCore
// are returned as they are; a second array (of either kind) is an error
// wrapping ErrInvalidConfig, as a second device is.
func Install(m *machine.Machine, cfg aio.Config, pages int64, dev *device.Device, siblings Siblings) (Array, error) {
	if m.Handled(machine.OpAIOHandler) {
		return nil, fmt.Errorf("sim: SetAIO called twice, want one AIO array: %w", machine.ErrInvalidConfig)
	}
	if pages < 1 {
		return nil, fmt.Errorf("sim: SetAIO pages = %d, want at least 1 (the tablespace the reads are drawn from): %w", pages, machine.ErrInvalidConfig)
	}
	if cfg.IO == aio.IONative {
		return installNative(m, cfg, pages, dev, siblings)
	}
	core, err := aio.NewCore(cfg)
	if err != nil {
		return nil, err
	}
	d := &Simulated{m: m, core: core, pages: pages, dev: dev, siblings: siblings}
	for a := range d.arrayMu {
		d.arrayMu[a] = -1
		if _, n := core.ArraySegments(aio.ArrayID(a)); n > 0 {
			d.arrayMu[a] = m.AddMutex(machine.Mutex{Name: "aio." + aio.ArrayID(a).String()})
		}
	}
	for _, k := range []machine.OpKind{machine.OpPrefetch, machine.OpPrefetchSiblings, machine.OpAIOHandler} {
		m.Handle(k, d)
	}
	for s := range core.Segments() {
		d.ev = append(d.ev, machine.Event{})
		d.evBucket = append(d.evBucket, m.AddBucket())
		d.handler = append(d.handler, int32(m.Threads()))
		d.hs = append(d.hs, aioHandler{cycle: aio.NewHandlerCycle(core, s)})
		if err := m.AddThread([]machine.Op{{Kind: machine.OpAIOHandler, Arg: int32(s)}}, -2); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// CheckOp refuses a handler's loop of a segment the array lacks.
func (d *Simulated) CheckOp(op machine.Op) error { return checkSegment(op, len(d.hs)) }

// checkSegment refuses an OpAIOHandler of a segment out of 0..segments−1.
func checkSegment(op machine.Op, segments int) error {
	if op.Kind == machine.OpAIOHandler && (op.Arg < 0 || int(op.Arg) >= segments) {
		return fmt.Errorf("sim: OpAIOHandler of segment %d, want a segment of the array SetAIO installed: %w", op.Arg, machine.ErrInvalidConfig)
	}
	return nil
}

// Stats returns the AIO core's counters.
func (d *Simulated) Stats() aio.Stats { return d.core.Stats() }

// Counters returns the driver's read-ahead pages reserved and those dropped
// for a full array.
func (d *Simulated) Counters() (prefetch, dropped uint64) { return d.Prefetch, d.Dropped }

// Step runs OpPrefetch, OpPrefetchSiblings and a handler thread's loop,
// OpAIOHandler.
func (d *Simulated) Step(id int32, op *machine.Op) bool {
	switch op.Kind {
	case machine.OpPrefetch:
		return d.prefetch(id, op.Arg, false)
	case machine.OpPrefetchSiblings:
		return d.prefetch(id, op.Arg, true)
	}
	d.handle(id, int(op.Arg))
	return false
}

// handlerStage is how far a handler thread has got in its cycle.
type handlerStage uint8

const (
	hsWait handlerStage = iota
	hsWoken
	hsLock
	hsUnlockWait
	hsUnlockIO
	hsIOSys
	hsIOWait
	hsLock2
	hsUnlock2
)

// handle runs the loop of os_aio_simulated_handle for segment seg's
// handler thread id until it stops (a burst, a mutex, a futex call, the
// device).
func (d *Simulated) handle(id int32, seg int) {
	m := d.m
	h := &d.hs[seg]
	mu := d.arrayMu[d.core.ArrayOfSegment(seg)]
	ev := &d.ev[seg]
	for {
		switch h.stage {
		case hsWait:
			h.stage = hsWoken
			if ev.Ready(h.sigSeen) {
				continue // signalled since the reset: no sleep
			}
			m.FutexWait(id, d, int32(seg), d.evBucket[seg])
			return
		case hsWoken:
			h.cycle.Woken()
			h.stage = hsLock
		case hsLock:
			if !m.Lock(id, mu) {
				return
			}
			if h.cycle.Next(m.Clock, false).Action == aio.HandlerIssue {
				h.stage = hsUnlockIO
			} else {
				h.sigSeen = ev.Reset() // os_event_reset under the array mutex
				h.stage = hsUnlockWait
			}
			// os_aio_simulated_handle scans every slot of the segment whether
			// or not the core's Pick had anything to look at
			m.Burst(id, int64(pickWork), machine.CatUser)
			return
		case hsUnlockWait, hsUnlockIO:
			if !m.Unlock(id, mu) {
				return
			}
			if h.stage == hsUnlockWait {
				h.stage = hsWait
			} else {
				h.stage = hsIOSys
			}
		case hsIOSys: // pread: a system call, then blocked for the device
			h.stage = hsIOWait
			m.Syscall(id, int64(m.Costs().Syscall))
			return
		case hsIOWait:
			h.stage = hsLock2
			if d.dev != nil { // one read (pwrite for the write array) on the device, in its queue
				k := machine.IORead
				if d.core.ArrayOfSegment(seg) == aio.ArrayWrite {
					k = machine.IOWrite
				}
				d.dev.IO(id, k)
				return
			}
			if d.core.ArrayOfSegment(seg) == aio.ArrayWrite {
				m.CountIO(machine.IOWrite, 1)
			} else {
				m.CountIO(machine.IORead, 1)
			}
			m.Sleep(id, m.Jitter(m.Costs().IOService))
			return
		case hsLock2:
			if !m.Lock(id, mu) {
				return
			}
			if d.sink != nil && d.core.ArrayOfSegment(seg) == aio.ArrayWrite {
				d.sink.Written(len(h.cycle.Batch().Slots)) // clean: replaceable
			}
			h.cycle.Complete(0)
			h.stage = hsUnlock2
			if d.cw.waitFull && d.core.ArrayOfSegment(seg) == aio.ArrayWrite {
				// AIO::free_slot of a full array: os_event_set(m_not_full)
				// under the mutex, a futex wake of the waiting page cleaner
				d.cw.waitFull = false
				m.Wake(d.cleaner)
				m.Syscall(id, int64(m.Costs().Syscall))
				return
			}
		case hsUnlock2:
			if !m.Unlock(id, mu) {
				return
			}
			h.stage = hsLock // pick again without sleeping
		}
	}
}

// FutexWait is a handler's futex wait on its segment's event: it sleeps
// unless the event was set meanwhile.
func (d *Simulated) FutexWait(_, seg int32) bool {
	ev := &d.ev[seg]
	if ev.Ready(d.hs[seg].sigSeen) {
		return false
	}
	ev.Waiting = true
	return true
}

// FutexWake is a submitter's futex wake of segment seg's handler.
func (d *Simulated) FutexWake(seg int32) {
	ev := &d.ev[seg]
	if ev.Waiting {
		ev.Waiting = false
		d.m.Wake(d.handler[seg])
	}
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
			// event was set already (see docs/sim-model.md, known departures)
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

// simCleaner is the page cleaner's state in the simulated-AIO write array
// (bufpool.WriteArray): the wakes its round owes, and its wait for a free
// slot.
type simCleaner struct {
	wake     aio.SegmentSet // WakeTargeted: the segments the round's writes named
	sw       simWake        // WakeAll: os_aio_simulated_wake_handler_threads
	free     freeWaitStage  // its wait for a free slot
	waitFull bool           // blocked on the write array's not_full
}

// freeWaitStage is how far the cleaner has got in waiting for a free slot of
// a full simulated-AIO write array.
type freeWaitStage uint8

const (
	fsWake    freeWaitStage = iota // reserve_slot on a full array wakes the handlers before it waits
	fsSyscall                      // os_event_wait(m_not_full): the futex call's entry charged
	fsBlocked                      // asleep until a write handler's free_slot sets not_full
)

// Attach is bufpool.WriteArray's.
func (d *Simulated) Attach(s bufpool.PageSink, cleaner int32) int {
	d.sink, d.cleaner = s, cleaner
	_, n := d.core.ArraySegments(aio.ArrayWrite)
	return n
}

// WriteMutex is bufpool.WriteArray's.
func (d *Simulated) WriteMutex() int32 { return d.arrayMu[aio.ArrayWrite] }

// Reserve is the cleaner's AIO::reserve_slot of an aio.Write request at an
// offset drawn over the tablespace; the slot's segment joins the round's
// wakes.
func (d *Simulated) Reserve(id int32) bool {
	m := d.m
	off := m.Rand().Int64N(d.pages) * d.core.Config().PageSize
	res, err := d.core.Reserve(aio.SlotRequest{Op: aio.Write, Kind: aio.KindNormal, File: 1,
		Offset: off, Length: d.core.Config().PageSize, Hint: -2}, m.Clock())
	if err == nil {
		d.cw.wake = d.cw.wake.Union(res.Wake)
	}
	m.Burst(id, int64(reserveWork), machine.CatUser)
	return err == nil
}

// Submit has nothing to do: a simulated-AIO write waits in its slot for a
// handler.
func (d *Simulated) Submit(int32) bool { return true }

// Wake is the round's wake of the handlers: under WakeAll MySQL 8.0's wake
// of every segment (simWake); under WakeTargeted an event set of each
// segment the round's writes went to; under WakeDeferred the write array's
// Flush.
func (d *Simulated) Wake(id int32, first bool) bool {
	if first {
		d.cw.sw = simWake{left: d.allSegments(), seg: -1}
	}
	if d.core.Config().Wake == aio.WakeAll {
		return d.wakeScan(id, &d.cw.sw)
	}
	if d.core.Config().Wake == aio.WakeDeferred {
		d.cw.wake = d.cw.wake.Union(d.core.Flush(aio.ArrayWrite))
	}
	return d.setEvents(id, &d.cw.wake)
}

// WaitFree is reserve_slot's wait on a full array: it wakes the handlers
// (Wake), then os_event_wait(m_not_full): the futex call, asleep unless a
// slot was freed meanwhile; a write handler's free_slot wakes it (handle).
func (d *Simulated) WaitFree(id int32, first bool) bool {
	m, c := d.m, &d.cw
	if first {
		c.free = fsWake
	}
	switch c.free {
	case fsWake:
		if !d.Wake(id, first) {
			return false
		}
		c.free = fsSyscall
		m.Syscall(id, int64(m.Costs().Syscall))
		return false
	case fsSyscall:
		c.free = fsBlocked
		if d.core.Full(aio.ArrayWrite) {
			c.waitFull = true
			m.Block(id) // a write handler's free_slot wakes it
			return false
		}
	}
	return true
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
