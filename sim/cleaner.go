package sim

// A writeArray is the AIO write array the page cleaner queues its page
// writes in: simulated AIO (aioDriver) or native AIO (nativeDriver). The
// cleaner's round is one stage machine (flushList.clean); what differs
// between the two is behind these methods. A method that reports a bool is
// resumable: false means the cleaner stopped (a burst, a futex call, a
// block), and the method is called again when it runs.
type writeArray interface {
	// writers is the write array's segments (innodb_write_io_threads).
	writers() int
	// attach tells the array which flush list its completed writes clean
	// and which thread is the page cleaner.
	attach(sink pageSink, cleaner int32)
	// writeMutex is the write array's mutex (s_writes).
	writeMutex() int32
	// roundStart begins a round of the cleaner's writes.
	roundStart()
	// reserve reserves a slot for one page write at an offset drawn over the
	// tablespace, the write mutex held (AIO::reserve_slot): false when every
	// slot is reserved.
	reserve(id int32) bool
	// submit hands the write reserved last to the kernel once the mutex is
	// released (native AIO's io_submit; simulated AIO has nothing to do).
	submit(id int32) bool
	// beginWake starts the round's wake of the write array's handlers
	// (os_aio_simulated_wake_handler_threads; native AIO wakes nobody), and
	// wake runs it.
	beginWake()
	wake(id int32) bool
	// beginWaitFree starts a wait, the mutex released, until a slot of the
	// write array is free, and waitFree runs it.
	beginWaitFree()
	waitFree(id int32) bool
}

// A pageSink is told of page writes the AIO handlers completed: the pages
// are clean, their frames replaceable.
type pageSink interface {
	written(pages int)
}

// cleaner is the page cleaner's progress through its round (flushList).
type cleaner struct {
	stage   cleanerStage
	pending int32 // pages of the doublewrite batch not yet queued
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
func (f *flushList) clean(id int32) {
	m, a, c := f.m, f.array, &f.cl
	for {
		switch c.stage {
		case clIdle:
			if !f.nextRound() {
				m.Block(id) // os_event_wait on buf_flush_event: OpDirty wakes it
				return
			}
			a.roundStart()
			c.stage = clPage
		case clPage:
			if c.pending < f.dblwr && f.takePage() {
				c.pending++
				m.Burst(id, m.Jitter(pageFlushWork), CatUser)
				return
			}
			if c.pending == 0 { // the round is over
				c.stage = clWake
				a.beginWake()
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
			if !m.Lock(id, a.writeMutex()) {
				return
			}
			c.stage = clFullUnlock
			if a.reserve(id) {
				f.Flushed++
				c.pending--
				c.stage = clUnlock
			}
			m.Burst(id, int64(reserveWork), CatUser)
			return
		case clUnlock:
			if !m.Unlock(id, a.writeMutex()) {
				return
			}
			c.stage = clSubmit
		case clSubmit:
			if !a.submit(id) {
				return
			}
			c.stage = clPage
			if c.pending > 0 {
				c.stage = clReserve
			}
		case clFullUnlock:
			if !m.Unlock(id, a.writeMutex()) {
				return
			}
			c.stage = clFullWait
			a.beginWaitFree()
		case clFullWait:
			if !a.waitFree(id) {
				return
			}
			c.stage = clReserve // retry the page
		case clWake:
			if !a.wake(id) {
				return
			}
			c.stage = clIdle
		}
	}
}
