package sim

import (
	"fmt"
	"math"
	"time"
)

// DefaultBufferPool is innodb_buffer_pool_size's default, 128 MiB: what
// Cell.BufferPool = 0 means.
const DefaultBufferPool int64 = 128 << 20

// bufPool is the buffer pool as a bulk insert's sibling prefetch sees it.
// btr_cur_prefetch_siblings (btr0cur.cc, MySQL 5.7 and 8.0) asks
// buf_read_page_background for the split leaf's FIL_PAGE_PREV and
// FIL_PAGE_NEXT; buf_read_page_low reads only a page that
// buf_page_init_for_read does not find in the page hash, so a resident
// sibling costs no I/O and no slot. sysbench prepare inserts each table in
// primary-key order (one table per client thread, the secondary index built
// after the load), so the split leaf is its table's rightmost: FIL_PAGE_NEXT
// is FIL_NULL and the one sibling is the leaf filled before it, last touched
// at the table's previous split. Every page touched since is a new leaf
// (buf_page_create puts it at the head of the LRU list) or a sibling read
// in, each a distinct page, so the sibling is still resident exactly when
// fewer than frames pages were brought in since its table's previous split:
// an LRU of frames pages, exact for this access pattern.
type bufPool struct {
	frames  int64   // pages the pool holds: innodb_buffer_pool_size / page size
	touched int64   // pages brought in so far, machine-wide
	last    []int64 // by thread id: touched at the thread's previous split, -1 before it
	Misses  uint64  // siblings not resident: read through the AIO array
	Hits    uint64  // siblings resident: no read
}

// setBufferPool sizes the buffer pool: bytes of pages of pageSize bytes.
func (m *Machine) setBufferPool(bytes, pageSize int64) error {
	if bytes < 5<<20 || pageSize <= 0 {
		return fmt.Errorf("sim: BufferPool = %d, want ≥ 5 MiB (innodb_buffer_pool_size) or 0 for %d: %w",
			bytes, DefaultBufferPool, ErrInvalidConfig)
	}
	m.pool = &bufPool{frames: bytes / pageSize}
	return nil
}

// split is thread id's leaf split: it reports whether the split leaf's
// sibling must be read (not resident), then counts the new leaf.
func (b *bufPool) split(id int32) (miss bool) {
	for int(id) >= len(b.last) {
		b.last = append(b.last, -1)
	}
	if prev := b.last[id]; prev >= 0 && b.touched-prev >= b.frames {
		miss = true
		b.Misses++
		b.touched++ // the sibling, read in
	} else {
		b.Hits++
	}
	b.last[id] = b.touched
	b.touched++ // the new leaf
	if b.touched == math.MaxInt64 {
		b.touched, b.last = 0, b.last[:0]
	}
	return miss
}

// LRUScanDepth is innodb_lru_scan_depth's default (MySQL 5.6 to 8.0): the
// most pages the page cleaner flushes from one buffer pool instance in one
// round (buf_flush_LRU_list).
const LRUScanDepth = 1024

// pageFlushWork is the page cleaner's CPU per page before the write is
// queued: buf_flush_write_block_low's checksum of the 16 KiB frame
// (buf_flush_init_for_writing, crc32c) and the copy into the doublewrite
// batch (about 1 µs each on a current core).
const pageFlushWork = 2 * us

// freeWaitSleep is buf_LRU_get_free_block's sleep from its third
// iteration on (n_iterations > 1: 10 ms in MySQL 5.7 and 8.0).
const freeWaitSleep = 10 * time.Millisecond

// flushList is the buffer pool as the load's page writes see it: its frames,
// the pages the load dirtied (OpDirty) that no write has been queued for yet,
// and the one page cleaner thread that flushes them
// (buf_flush_page_coordinator_thread with innodb_page_cleaners clamped to
// the one buffer pool instance a pool under 1 GiB has).
//
// Frames. Every page OpDirty dirties is brought into the pool first and takes
// a frame (buf_LRU_get_free_block): a free frame, or a clean one at the LRU
// tail (buf_LRU_get_free_only, then buf_LRU_scan_and_free_block); a page whose
// write has completed is replaceable at once, since the load dirties each page
// as it comes in, so the oldest dirty pages are the LRU's tail. With none, the
// thread sets buf_flush_event (waking the cleaner), sleeps freeWaitSleep from
// its third iteration on, and flushes one dirty page itself
// (buf_flush_single_page_from_LRU): synchronously, through a doublewrite
// single-page segment (Double_write::sync_page_flush in MySQL 8.0.20 and
// later: pwrite to the doublewrite file, fsync, pwrite to the data file,
// fsync of the tablespace), the same under either AIO; the frame it frees
// goes to the free list, where any thread may take it, and it loops.
//
// Rounds. A round takes up to LRUScanDepth pages from the flush list, one at
// a time as it reaches them (a page a user thread flushed meanwhile is gone;
// the round ends when none is left). Every dblwrPages pages (and at the
// round's end) the batch is written to the doublewrite file with one
// synchronous pwrite and an fsync (Double_write::write_pages), then each
// page's write is queued as an asynchronous I/O of the write array
// (write_to_datafile → fil_io → os_aio_func → AIO::reserve_slot, waiting on
// the array's not_full while it is full). The round ends with one wake of the
// handlers (os_aio_simulated_wake_handler_threads; nothing under native AIO).
// A page is replaceable once its write completes. Not modelled: the
// tablespace fsync at a batch's completion (Batch_segment::write_complete),
// the LRU list's mutex and the scan's CPU.
type flushList struct {
	m        *Machine
	array    writeArray // the AIO write array the cleaner queues its writes in
	cl       cleaner    // the page cleaner's progress through its round
	cleaner  int32      // the page cleaner's thread id
	dirty    int64      // pages dirtied, their writes not yet queued
	avail    int64      // frames free or clean: taken without waiting
	dblwr    int32      // innodb_doublewrite_pages: the cleaner's batch
	sleeping bool       // the cleaner waits on buf_flush_event
	round    int32      // pages left to take in the current round
	dblwrIO  int8       // the cleaner's doublewrite I/Os done (syncIO)
	fw       []freeWait

	Flushed       uint64 // page writes queued in the write array
	DblwrBatches  uint64 // the cleaner's batch writes to the doublewrite file
	SingleFlushes uint64 // pages user threads flushed themselves
	FreeWaits     uint64 // buf_LRU_get_free_block's 10 ms sleeps
}

// freeWait is a thread's progress through OpDirty's buf_LRU_get_free_block.
type freeWait struct {
	stage freeStage
	left  int32 // pages still to get a frame for
	iter  int32 // n_iterations of the current frame's search
	io    int8  // the single-page flush's I/Os done (syncIO)
}

// freeStage is how far a thread has got in getting its frames.
type freeStage uint8

const (
	fwStart    freeStage = iota // take Arg pages to do
	fwTake                      // a replaceable frame, or the slow path
	fwEvent                     // os_event_set(buf_flush_event) charged
	fwSlept                     // the 10 ms sleep over
	fwFlushSys                  // the single-page flush's four system calls charged: its I/Os (syncIO)
	fwWoke                      // the end-of-op wake of the cleaner charged
)

// addPageCleaner adds the page cleaner thread (hint Background) that writes
// the pages OpDirty dirties through the installed AIO array, once: a second
// call, or a machine without an AIO array (SetAIO), adds nothing, and
// OpDirty then costs nothing. The pool has the frames of Cell.BufferPool
// (DefaultBufferPool without a Cell), all free.
func (m *Machine) addPageCleaner() {
	if m.fl != nil || m.aio == nil && m.aion == nil {
		return
	}
	frames := DefaultBufferPool / (16 << 10)
	if m.pool != nil {
		frames = m.pool.frames
	}
	var array writeArray = m.aio
	if m.aion != nil {
		array = m.aion
	}
	// innodb_doublewrite_pages defaults to innodb_write_io_threads
	f := &flushList{m: m, array: array, cleaner: int32(len(m.threads)), avail: frames, dblwr: int32(max(array.writers(), 1))}
	// SetAIO added its handlers with the same call, so it cannot fail here
	if m.AddThread([]Op{{Kind: OpPageCleaner}}, -2) != nil {
		return
	}
	m.fl = f
	array.attach(f, f.cleaner)
	m.Handle(OpDirty, f)
	m.Handle(OpPageCleaner, f)
}

// Step runs OpDirty and the page cleaner's loop, OpPageCleaner.
func (f *flushList) Step(id int32, op *Op) bool {
	if op.Kind == OpPageCleaner {
		f.clean(id)
		return false
	}
	return f.markDirty(id, op.Arg)
}

// markDirty runs OpDirty: for each of pages pages a frame (see flushList),
// then the page waits for the cleaner; a sleeping cleaner is woken
// (os_event_set(buf_flush_event): a futex wake charged to thread id). It
// reports whether the thread goes on; false means it stopped and markDirty
// is called again when it runs.
func (f *flushList) markDirty(id int32, pages int32) bool {
	m := f.m
	for int(id) >= len(f.fw) {
		f.fw = append(f.fw, freeWait{})
	}
	w := &f.fw[id]
	for {
		switch w.stage {
		case fwStart:
			w.left, w.iter, w.stage = pages, 0, fwTake
		case fwTake:
			if w.left == 0 {
				w.stage = fwStart
				if !f.sleeping || f.dirty == 0 {
					return true
				}
				w.stage = fwWoke
				f.wakeCleaner(id)
				return false
			}
			if f.avail > 0 {
				f.avail--
				f.dirty++
				w.left, w.iter = w.left-1, 0
				continue
			}
			w.stage = fwEvent
			if f.sleeping { // os_event_set(buf_flush_event)
				f.wakeCleaner(id)
				return false
			}
		case fwEvent:
			w.stage = fwSlept
			if w.iter > 1 {
				f.FreeWaits++
				m.Sleep(id, int64(freeWaitSleep))
				return false
			}
		case fwSlept:
			w.iter++
			w.stage = fwTake
			if f.dirty == 0 {
				continue // every dirty page is being written: a failed flush
			}
			// buf_flush_single_page_from_LRU: the page's write is this thread's
			f.dirty--
			f.SingleFlushes++
			w.stage = fwFlushSys
			m.Syscalls(id, 4, 4*int64(m.Costs().Syscall))
			return false
		case fwFlushSys:
			if !f.syncIO(id, singlePageIOs[:], &w.io) {
				return false
			}
			f.avail++ // to the free list: up for grabs
			w.stage = fwTake
		case fwWoke:
			w.stage = fwStart
			return true
		}
	}
}

// wakeCleaner is os_event_set(buf_flush_event) with the cleaner asleep on
// it: a futex wake charged to thread id.
func (f *flushList) wakeCleaner(id int32) {
	f.sleeping = false
	f.m.Wake(f.cleaner)
	f.m.Syscall(id, int64(f.m.Costs().Syscall))
}

// nextRound starts a round of the page cleaner: it reports false, with the
// cleaner marked sleeping, when nothing is dirty.
func (f *flushList) nextRound() bool {
	if f.dirty == 0 {
		f.sleeping = true
		return false
	}
	f.round = int32(min(f.dirty, LRUScanDepth))
	return true
}

// takePage takes the round's next page off the flush list: false when the
// round is over (its pages taken, or none left to take).
func (f *flushList) takePage() bool {
	if f.round == 0 || f.dirty == 0 {
		f.round = 0
		return false
	}
	f.round--
	f.dirty--
	return true
}

// written makes n pages whose writes completed replaceable.
func (f *flushList) written(n int) {
	f.avail += int64(n)
}

// dblwrBatch starts the page cleaner's write of its batch to the doublewrite
// file (Double_write::write_pages: one pwrite of the batch, then an fsync):
// the two system calls charged to the cleaner, thread id; dblwrWait then
// waits for the I/Os.
func (f *flushList) dblwrBatch(id int32) {
	f.DblwrBatches++
	f.m.Syscalls(id, 2, 2*int64(f.m.Costs().Syscall))
}

// The synchronous I/Os of a single-page flush (Double_write::sync_page_flush:
// the doublewrite file's pwrite and fsync, the data file's pwrite and the
// tablespace's fsync) and of the cleaner's doublewrite batch (its pwrite and
// fsync).
var (
	singlePageIOs = [...]IOKind{IOWrite, IOFsync, IOWrite, IOFsync}
	dblwrIOs      = [...]IOKind{IOWrite, IOFsync}
)

// dblwrWait waits for the doublewrite batch's pwrite and fsync (syncIO): it
// reports whether they are done; false means the cleaner blocked.
func (f *flushList) dblwrWait(id int32) bool {
	return f.syncIO(id, dblwrIOs[:], &f.dblwrIO)
}

// syncIO blocks thread id for the I/Os of seq in turn, their system calls
// already charged: on the machine's device one after another, each in its
// queue; without one, for IOService each (jittered), in one wait. *done
// counts the I/Os issued so far. It reports whether they are all done; false
// means the thread blocked and syncIO is called again when it runs.
func (f *flushList) syncIO(id int32, seq []IOKind, done *int8) bool {
	m := f.m
	if int(*done) == len(seq) {
		*done = 0
		return true
	}
	if m.dev != nil {
		m.dev.IO(id, seq[*done])
		*done++
		return false
	}
	var io int64
	for _, k := range seq {
		io += m.Jitter(m.Costs().IOService)
		m.CountIO(k, 1)
	}
	*done = int8(len(seq))
	m.Sleep(id, io)
	return false
}
