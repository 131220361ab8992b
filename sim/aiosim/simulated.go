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
