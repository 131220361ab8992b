package bufpool

import "github.com/innosim/innosim/sim/machine"

// A WriteArray is the AIO write array the page cleaner queues its page
// writes in: simulated or native AIO (package aiosim). The cleaner's round is
// one stage machine (FlushList's clean); what differs between the two kinds
// of array is behind these methods. A method that reports a bool is
// resumable: false means the cleaner stopped (a burst, a futex call, a
// block), and the method is called again, with first false, when it runs.
type WriteArray interface {
	// Attach tells the array which flush list its completed writes clean and
	// which thread is the page cleaner, and returns the write array's
	// segments (innodb_write_io_threads).
	Attach(sink PageSink, cleaner int32) (writers int)
	// WriteMutex is the write array's mutex (s_writes).
	WriteMutex() int32
	// Reserve reserves a slot for one page write at an offset drawn over the
	// tablespace, the write mutex held (AIO::reserve_slot), and charges the
	// reservation's CPU (the cleaner stops for it): false when every slot is
	// reserved.
	Reserve(id int32) bool
	// Submit hands the write reserved last to the kernel once the mutex is
	// released (native AIO's io_submit; simulated AIO has nothing to do).
	Submit(id int32) bool
	// Wake is the round's wake of the array's handlers
	// (os_aio_simulated_wake_handler_threads; native AIO wakes nobody);
	// first starts it.
	Wake(id int32, first bool) bool
	// WaitFree waits, the mutex released, until a slot of the write array
	// is free (array->not_full); first starts it.
	WaitFree(id int32, first bool) bool
}

// A PageSink is told of page writes the AIO handlers completed: the pages
// are clean, their frames replaceable.
type PageSink interface {
	Written(pages int)
}

// cleaner is the page cleaner's progress through its round (FlushList).
type cleaner struct {
	stage   cleanerStage
	pending int32 // pages of the doublewrite batch not yet queued
	first   bool  // the stage's array call is its first (Wake, WaitFree)
}

// cleanerStage is how far the page cleaner has got in its round.
type cleanerStage uint8

const (
	clIdle       cleanerStage = iota // take a round's pages, or sleep on buf_flush_event
	clPage                           // buf_flush_write_block_low's CPU for one page, into the batch
	clDblwrIO                        // the batch's pwrite and fsync charged: wait for them (syncIO)
	clReserve                        // AIO::reserve_slot: mutex_enter(s_writes), take a slot
	clUnlock                         // mutex_exit
	clSubmit                         // hand the write to the kernel (native AIO)
	clFullUnlock                     // every slot reserved: mutex_exit, then wait for a free slot
	clFullWait                       // waiting for a free slot (array->not_full)
	clWake                           // the round's wake of the handlers
)

// clean runs the page cleaner, thread id, until it stops: per doublewrite
// batch, each page's CPU, the batch's synchronous write and fsync
// (dblwrBatch), then each page's write, queued in the write array (reserved
// under its mutex, waiting for a free slot while it is full, and handed to
// the kernel under native AIO); the array's handlers write and free it. A
// round ends with the array's wake of its handlers.
func (f *FlushList) clean(id int32) {
	m, a, c := f.m, f.array, &f.cl
	for {
		switch c.stage {
		case clIdle:
			if !f.nextRound() {
				m.Block(id) // os_event_wait on buf_flush_event: OpDirty wakes it
				return
			}
			c.stage = clPage
		case clPage:
			if c.pending < f.dblwr && f.takePage() {
				c.pending++
				m.Burst(id, m.Jitter(pageFlushWork), machine.CatUser)
				return
			}
			if c.pending == 0 { // the round is over
				c.stage, c.first = clWake, true
				continue
			}
			c.stage = clDblwrIO
			f.dblwrBatch(id)
			return
		case clDblwrIO:
			if !f.dblwrWait(id) {
				return
			}
			c.stage = clReserve
		case clReserve:
			if !m.Lock(id, a.WriteMutex()) {
				return
			}
			c.stage = clFullUnlock
			if a.Reserve(id) {
				f.Flushed++
				c.pending--
				c.stage = clUnlock
			}
			return
		case clUnlock:
			if !m.Unlock(id, a.WriteMutex()) {
				return
			}
			c.stage = clSubmit
		case clSubmit:
			if !a.Submit(id) {
				return
			}
			c.stage = clPage
			if c.pending > 0 {
				c.stage = clReserve
			}
		case clFullUnlock:
			if !m.Unlock(id, a.WriteMutex()) {
				return
			}
			c.stage, c.first = clFullWait, true
		case clFullWait:
			first := c.first
			c.first = false
			if !a.WaitFree(id, first) {
				return
			}
			c.stage = clReserve // retry the page
		case clWake:
			first := c.first
			c.first = false
			if !a.Wake(id, first) {
				return
			}
			c.stage = clIdle
		}
	}
}
