package aiosim

import (
	"time"

	"github.com/innosim/innosim/sim/bufpool"
	"github.com/innosim/innosim/sim/device"
	"github.com/innosim/innosim/sim/machine"

	"github.com/innosim/innosim/sim/engine"

	"github.com/innosim/innosim/aio"
)

// Native runs an aio.Core in native mode (aio.Config.IO = aio.IONative,
// innodb_use_native_aio=1) for the simulated server, as InnoDB's Linux native
// AIO in os0file.cc: one handler thread per global segment, one pthread mutex
// per array (array->mutex), one kernel I/O context per segment. The core
// reserves the slots and frees them; the driver charges the mutexes, the
// system calls (io_submit to the submitter, io_getevents to the handler), the
// device time and the kernel's wake of a handler whose I/O completed. No
// submitter wakes a handler, so there is no futex herd to form.
type Native struct {
	m        *machine.Machine
	core     *aio.Core
	arrayMu  [4]int32 // mutex index by aio.ArrayID, -1 for an absent array
	handler  []int32  // thread id by global segment
	hs       []nativeHandler
	sub      []nativeSubmitter // by thread id, grown on demand
	ios      []nativeIO        // I/Os in the kernel, by id
	freeIO   []int32           // ids of ios free for reuse
	full     [4]notFull        // array->not_full, by aio.ArrayID
	evDone   engine.Kind       // the device completing an I/O
	pages    int64             // pages in the simulated tablespace (offsets drawn below)
	cw       nativeCleaner     // the page cleaner's write and wait (bufpool.WriteArray)
	sink     bufpool.PageSink  // the flush list the write array's completions clean, or nil
	dev      *device.Device    // the device of the I/Os, or nil
	siblings Siblings          // the buffer pool a sibling prefetch looks in, or nil
	scratch  []int32           // the submitters a wake of not_full is waking

	Prefetch  uint64 // read-ahead pages submitted
	FullWaits uint64 // submissions that found their array full and waited
}

// nativeIO is one request in the kernel: the segment whose I/O context it was
// submitted to and the slots of its batch (the core's).
type nativeIO struct {
	seg   int32
	slots []int
}

// notFull is an array's not_full event (os_aio_array_reserve_slot waits on it
// when every slot is reserved; os_aio_array_free_slot sets it) and the
// submitters sleeping on it.
type notFull struct {
	bucket  int32
	waiters []int32
}

// nativeHandler is the state of a segment's handler thread in
// os_aio_linux_handle between its steps.
type nativeHandler struct {
	stage    nativeHandlerStage
	ring     []int32 // completed in the kernel, not yet reaped by io_getevents
	reaped   []int32 // reaped and marked io_already_done, not yet freed
	marked   int     // reaped events marked under the mutex so far
	sleeping bool    // blocked in io_getevents
	slept    bool    // this io_getevents blocked
}

// nativeSubmitter is a submitting thread's progress through OpPrefetch.
type nativeSubmitter struct {
	stage   nativeSubmitStage
	left    int32          // pages still to submit
	io      int32          // the I/O being submitted
	flush   aio.SegmentSet // WakeDeferred: segments still to submit
	batch   []int32        // WakeDeferred: the I/Os of the segment being submitted
	refused bool           // WakeDeferred: flushing because the array was full; wait after
}

// nativeHandlerStage is how far a native handler has got in its loop.
type nativeHandlerStage uint8

const (
	nhScanLock    nativeHandlerStage = iota // os_mutex_enter, scan the segment's slots for io_already_done
	nhScanUnlock                            // none done: os_mutex_exit, then collect
	nhCollect                               // os_aio_linux_collect: io_getevents, a system call
	nhGetevents                             // inside io_getevents: reap, or sleep until the kernel wakes it
	nhMarkLock                              // per reaped event: os_mutex_enter, io_already_done = TRUE
	nhMarkUnlock                            // os_mutex_exit
	nhFoundUnlock                           // a done slot found: os_mutex_exit
	nhFreeLock                              // os_aio_array_free_slot: os_mutex_enter, free the slot
	nhFreeUnlock                            // os_mutex_exit
)

// nativeSubmitStage is how far a submitter has got in os_aio for one page.
type nativeSubmitStage uint8

const (
	nsReserve        nativeSubmitStage = iota // os_aio_array_reserve_slot: os_mutex_enter, reserve
	nsUnlock                                  // os_mutex_exit
	nsSubmit                                  // os_aio_linux_dispatch: io_submit, a system call
	nsSubmitted                               // the request is in the kernel: the device's time starts
	nsFullUnlock                              // array full: os_mutex_exit
	nsFullWait                                // os_event_wait(array->not_full)
	nsFlush                                   // WakeDeferred: os_aio_dispatch_read_array_submit
	nsFlushLock                               // per segment: os_mutex_enter, take its buffered requests
	nsFlushUnlock                             // os_mutex_exit
	nsFlushSubmit                             // one io_submit of the segment's requests
	nsFlushSubmitted                          // they are in the kernel
)

// installNative is Install for cfg.IO = aio.IONative.
func installNative(m *machine.Machine, cfg aio.Config, pages int64, dev *device.Device, siblings Siblings) (*Native, error) {
	core, err := aio.NewCore(cfg)
	if err != nil {
		return nil, err
	}
	d := &Native{m: m, core: core, pages: pages, dev: dev, siblings: siblings}
	for a := range d.arrayMu {
		d.arrayMu[a] = -1
		if _, n := core.ArraySegments(aio.ArrayID(a)); n > 0 {
			d.arrayMu[a] = m.AddMutex(machine.Mutex{Name: "aio." + aio.ArrayID(a).String()})
			d.full[a].bucket = m.AddBucket()
		}
	}
	d.evDone = m.Engine().On(d.done)
	for _, k := range []machine.OpKind{machine.OpPrefetch, machine.OpPrefetchSiblings, machine.OpAIOHandler} {
		m.Handle(k, d)
	}
	for s := range core.Segments() {
		d.handler = append(d.handler, int32(m.Threads()))
		d.hs = append(d.hs, nativeHandler{})
		if err := m.AddThread([]machine.Op{{Kind: machine.OpAIOHandler, Arg: int32(s)}}, -2); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// CheckOp refuses a handler's loop of a segment the array lacks.
func (d *Native) CheckOp(op machine.Op) error { return checkSegment(op, len(d.hs)) }

// Stats returns the AIO core's counters.
func (d *Native) Stats() aio.Stats { return d.core.Stats() }

// Counters returns the driver's read-ahead pages submitted and the
// submissions that found their array full and waited.
func (d *Native) Counters() (prefetch, fullWaits uint64) { return d.Prefetch, d.FullWaits }

// Step runs OpPrefetch, OpPrefetchSiblings and a handler thread's loop,
// OpAIOHandler.
func (d *Native) Step(id int32, op *machine.Op) bool {
	switch op.Kind {
	case machine.OpPrefetch:
		return d.prefetch(id, op.Arg)
	case machine.OpPrefetchSiblings:
		return d.prefetch(id, -1-op.Arg)
	}
	d.handle(id, int(op.Arg))
	return false
}

// prefetchNative runs OpPrefetch under native AIO: for each page, os_aio with
// native AIO — os_aio_array_reserve_slot under the read array's mutex (waiting
// on the array's not_full event while every slot is reserved), then
// os_aio_linux_dispatch's io_submit of the one request to its segment's I/O
// context: a system call charged to the submitter, which wakes nobody. The
// device completes the request (nativeIO). Under
// aio.WakeDeferred the requests are buffered in their slots instead
// (os_aio_func with should_buffer) and submitted when the read-ahead's last
// page is reserved, or before waiting for a full array: the segments the core's
// Flush names, each under the array mutex with one io_submit
// (os_aio_dispatch_read_array_submit, Percona Server and WebScaleSQL 5.6). It
// reports whether the op is done; false means thread id stopped and prefetch
// is called again when it runs. A negative pages is OpPrefetchSiblings: -1
// one page, read only when the buffer pool does not hold it (bufPool.split);
// -2 a sibling known to be resident, which reads nothing and, under native
// AIO, wakes nobody.
func (d *Native) prefetch(id int32, pages int32) bool {
	if pages < -1 {
		return true
	}
	m := d.m
	for int(id) >= len(d.sub) {
		d.sub = append(d.sub, nativeSubmitter{})
	}
	p := &d.sub[id]
	a := aio.ArrayRead
	mu := d.arrayMu[a]
	deferred := d.core.Config().Wake == aio.WakeDeferred
	for {
		switch p.stage {
		case nsReserve:
			if p.left == 0 {
				p.left = pages
				if pages < 0 { // OpPrefetchSiblings: read the sibling only if it is not resident
					p.left = 1
					if d.siblings != nil && !d.siblings.Split(id) {
						p.left = 0
						return true
					}
				}
			}
			if !m.Lock(id, mu) {
				return false
			}
			cfg := d.core.Config()
			off := m.Rand().Int64N(d.pages) * cfg.PageSize
			res, err := d.core.Reserve(aio.SlotRequest{Op: aio.Read, Kind: aio.KindNormal, File: 1,
				Offset: off, Length: cfg.PageSize, Hint: -2}, m.Clock())
			if err != nil {
				// every slot reserved: os_aio_array_reserve_slot releases the
				// mutex and waits for not_full (a native array wakes no handler)
				d.FullWaits++
				if deferred {
					// the array-full path stands for the pending Flush: its
					// wake set is the segments whose requests are buffered
					p.flush = p.flush.Union(res.Wake)
				}
				p.stage = nsFullUnlock
			} else {
				if !deferred {
					p.io = d.issue(res.Segment, m.Clock())
				}
				d.Prefetch++
				p.stage = nsUnlock
			}
			m.Burst(id, int64(reserveWork), machine.CatUser)
			return false
		case nsUnlock:
			if !m.Unlock(id, mu) {
				return false
			}
			if deferred {
				p.stage = nsReserve
				if p.left--; p.left > 0 {
					continue
				}
				p.stage = nsFlush
				continue
			}
			p.stage = nsSubmit
		case nsSubmit:
			p.stage = nsSubmitted
			m.Syscall(id, int64(m.Costs().Syscall))
			return false
		case nsSubmitted:
			d.submitIO(p.io)
			p.stage = nsReserve
			p.left--
			if p.left > 0 {
				continue
			}
			return true
		case nsFullUnlock:
			if !m.Unlock(id, mu) {
				return false
			}
			if deferred {
				// submit what is buffered first: those slots free only once
				// the kernel has them
				p.refused = true
				p.stage = nsFlush
				continue
			}
			p.stage = nsFullWait
			m.FutexWait(id, d, int32(a), d.full[a].bucket)
			return false
		case nsFullWait: // woken by os_aio_array_free_slot, or not full any more: retry
			p.stage = nsReserve
		case nsFlush:
			p.flush = p.flush.Union(d.core.Flush(a))
			s := p.flush.Next(0)
			if s < 0 {
				if p.refused { // flushed before waiting for the full array
					p.refused = false
					p.stage = nsFullWait
					m.FutexWait(id, d, int32(a), d.full[a].bucket)
					return false
				}
				p.stage = nsReserve
				return true
			}
			p.stage = nsFlushLock
		case nsFlushLock:
			if !m.Lock(id, mu) {
				return false
			}
			s := p.flush.Next(0)
			p.flush = withoutSeg(p.flush, s)
			p.batch = p.batch[:0]
			for d.core.Waiting(s) > 0 {
				p.batch = append(p.batch, d.issue(s, m.Clock()))
			}
			p.stage = nsFlushUnlock
		case nsFlushUnlock:
			if !m.Unlock(id, mu) {
				return false
			}
			p.stage = nsFlushSubmit
			if len(p.batch) == 0 { // another submitter's flush took them
				p.stage = nsFlush
			}
		case nsFlushSubmit:
			p.stage = nsFlushSubmitted
			m.Syscall(id, int64(m.Costs().Syscall))
			return false
		case nsFlushSubmitted:
			for _, io := range p.batch {
				d.submitIO(io)
			}
			p.batch = p.batch[:0]
			p.stage = nsFlush
		}
	}
}

// issue takes segment seg's waiting request (the one just reserved) into an
// I/O for the kernel and returns its id.
func (d *Native) issue(seg int, now time.Duration) int32 {
	var io int32
	if n := len(d.freeIO); n > 0 {
		io = d.freeIO[n-1]
		d.freeIO = d.freeIO[:n-1]
	} else {
		io = int32(len(d.ios))
		d.ios = append(d.ios, nativeIO{slots: make([]int, 0, d.core.Config().MergeLimit)})
	}
	b, _ := d.core.IssueNative(seg, now, d.ios[io].slots)
	d.ios[io].seg, d.ios[io].slots = int32(seg), b.Slots
	return io
}

// submitIO puts I/O io in the kernel: on the machine's device when one is
// installed (device.Install), else completing the profile's IOService (jittered)
// later.
func (d *Native) submitIO(io int32) {
	m := d.m
	if d.dev != nil {
		k := machine.IORead
		if d.core.ArrayOfSegment(int(d.ios[io].seg)) == aio.ArrayWrite {
			k = machine.IOWrite
		}
		d.dev.Submit(k, d.evDone, io)
		return
	}
	if d.core.ArrayOfSegment(int(d.ios[io].seg)) == aio.ArrayWrite {
		m.CountIO(machine.IOWrite, 1)
	} else {
		m.CountIO(machine.IORead, 1)
	}
	m.Engine().At(m.Now()+m.Jitter(m.Costs().IOService), d.evDone, io, 0)
}

// done is the device completing I/O io: the kernel puts the event on its
// segment's completion ring and, if the segment's handler sleeps in
// io_getevents, wakes that one thread (aio_complete's wake of the context's
// waiter: no futex bucket, no other handler).
func (d *Native) done(_ int64, io int32, _ uint32) {
	seg := d.ios[io].seg
	h := &d.hs[seg]
	h.ring = append(h.ring, io)
	if h.sleeping {
		h.sleeping = false
		d.m.Wake(d.handler[seg])
	}
}

// FutexWait is a submitter's futex wait on array a's not_full event: it
// sleeps unless a slot was freed meanwhile (the futex word check).
func (d *Native) FutexWait(id, a int32) bool {
	if !d.core.Full(aio.ArrayID(a)) {
		return false
	}
	d.full[a].waiters = append(d.full[a].waiters, id)
	return true
}

// FutexWake is os_event_set(array->not_full)'s futex wake: every submitter
// waiting on array a's not_full event is woken (a broadcast).
func (d *Native) FutexWake(a int32) {
	f := &d.full[a]
	d.scratch = append(d.scratch[:0], f.waiters...)
	f.waiters = f.waiters[:0]
	for _, w := range d.scratch {
		d.m.Wake(w)
	}
}

// nativeHandlerLoop runs os_aio_linux_handle for segment seg's handler thread t
// until it stops (a burst, a mutex, a system call, a sleep in io_getevents):
// under the array mutex, look for a slot of the segment whose I/O is done; if
// there is one, release the mutex and free the slot (os_aio_array_free_slot,
// setting not_full if the array was full); if not, release it and reap with
// os_aio_linux_collect (io_getevents, which sleeps until the kernel completes
// one of the segment's I/Os), marking each reaped slot done under the mutex.
// The completion's own work (fil_io_complete) is not charged, as under
// simulated AIO.
func (d *Native) handle(id int32, seg int) {
	m := d.m
	h := &d.hs[seg]
	a := d.core.ArrayOfSegment(seg)
	mu := d.arrayMu[a]
	for {
		switch h.stage {
		case nhScanLock:
			if !m.Lock(id, mu) {
				return
			}
			if len(h.reaped) > 0 {
				h.stage = nhFoundUnlock
			} else {
				h.stage = nhScanUnlock
			}
			// the loop over every slot of the segment
			m.Burst(id, int64(pickWork), machine.CatUser)
			return
		case nhScanUnlock:
			if !m.Unlock(id, mu) {
				return
			}
			h.stage = nhCollect
		case nhCollect:
			h.stage = nhGetevents
			h.slept = false
			m.Syscall(id, int64(m.Costs().Syscall))
			return
		case nhGetevents:
			if len(h.ring) == 0 {
				// min_nr = 1: sleep until the kernel completes one (the reap
				// timeout, OS_AIO_REAP_TIMEOUT, is not modelled)
				h.sleeping, h.slept = true, true
				m.Block(id)
				return
			}
			if h.slept {
				d.core.WokenNative(seg, true)
			}
			h.reaped = append(h.reaped, h.ring...)
			h.ring = h.ring[:0]
			h.marked = 0
			h.stage = nhMarkLock
		case nhMarkLock:
			if !m.Lock(id, mu) {
				return
			}
			h.stage = nhMarkUnlock
		case nhMarkUnlock:
			if !m.Unlock(id, mu) {
				return
			}
			h.marked++
			if h.marked < len(h.reaped) {
				h.stage = nhMarkLock
			} else {
				h.stage = nhScanLock
			}
		case nhFoundUnlock:
			if !m.Unlock(id, mu) {
				return
			}
			h.stage = nhFreeLock
		case nhFreeLock:
			if !m.Lock(id, mu) {
				return
			}
			io := h.reaped[0]
			h.reaped = append(h.reaped[:0], h.reaped[1:]...)
			wasFull := d.core.Full(a)
			if d.sink != nil && a == aio.ArrayWrite {
				d.sink.Written(len(d.ios[io].slots)) // clean: replaceable
			}
			d.core.CompleteNative(seg, d.ios[io].slots, 0)
			d.freeIO = append(d.freeIO, io)
			h.stage = nhFreeUnlock
			if wasFull && len(d.full[a].waiters) > 0 {
				// os_event_set(array->not_full), under the mutex
				m.FutexWake(id, d, int32(a), d.full[a].bucket)
				return
			}
		case nhFreeUnlock:
			if !m.Unlock(id, mu) {
				return
			}
			h.stage = nhScanLock
		}
	}
}
