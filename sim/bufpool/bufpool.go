package bufpool

import (
	"fmt"
	"math"
	"time"

	"github.com/innosim/innosim/sim/device"
	"github.com/innosim/innosim/sim/machine"
)

// DefaultBufferPool is innodb_buffer_pool_size's default, 128 MiB: what
// Cell.BufferPool = 0 means.
const DefaultBufferPool int64 = 128 << 20

// Pool is the buffer pool as a bulk insert's sibling prefetch sees it.
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
type Pool struct {
	frames  int64   // pages the pool holds: innodb_buffer_pool_size / page size
	touched int64   // pages brought in so far, machine-wide
	last    []int64 // by thread id: touched at the thread's previous split, -1 before it
	Misses  uint64  // siblings not resident: read through the AIO array
	Hits    uint64  // siblings resident: no read
}

// New returns a buffer pool of bytes of pages of pageSize bytes.
func New(bytes, pageSize int64) (*Pool, error) {
	if bytes < 5<<20 || pageSize <= 0 {
		return nil, fmt.Errorf("sim: BufferPool = %d, want ≥ 5 MiB (innodb_buffer_pool_size) or 0 for %d: %w",
			bytes, DefaultBufferPool, machine.ErrInvalidConfig)
	}
	return &Pool{frames: bytes / pageSize}, nil
}

// Stats returns the siblings found resident and those read.
func (b *Pool) Stats() (hits, misses uint64) { return b.Hits, b.Misses }

// split is thread id's leaf split: it reports whether the split leaf's
// sibling must be read (not resident), then counts the new leaf.
func (b *Pool) Split(id int32) (miss bool) {
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
const pageFlushWork = 2 * time.Microsecond

// freeWaitSleep is buf_LRU_get_free_block's sleep from its third
// iteration on (n_iterations > 1: 10 ms in MySQL 5.7 and 8.0).
const freeWaitSleep = 10 * time.Millisecond

// FlushList is the buffer pool as the load's page writes see it: its frames,
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
type FlushList struct {
	m        *machine.Machine
	dev      *device.Device // the device of the synchronous writes, or nil
	array    WriteArray     // the AIO write array the cleaner queues its writes in
	cl       cleaner        // the page cleaner's progress through its round
	cleaner  int32          // the page cleaner's thread id
	dirty    int64          // pages dirtied, their writes not yet queued
	avail    int64          // frames free or clean: taken without waiting
	dblwr    int32          // innodb_doublewrite_pages: the cleaner's batch
	sleeping bool           // the cleaner waits on buf_flush_event
	round    int32          // pages left to take in the current round
	dblwrIO  int8           // the cleaner's doublewrite I/Os done (syncIO)
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

// Frames is where a pool's frames are, for a check that none is lost: free
// or clean (replaceable at once), dirty with no write queued, in the
// cleaner's doublewrite batch not yet queued, and being flushed by a user
// thread itself; the rest are being written through the AIO array.
type Frames struct {
	Avail, Dirty, Batch, Flushing int64
}

// Frames returns where the pool's frames are now.
func (f *FlushList) Frames() Frames {
	fr := Frames{Avail: f.avail, Dirty: f.dirty, Batch: int64(f.cl.pending)}
	for _, w := range f.fw {
		if w.stage == fwFlushSys {
			fr.Flushing++
		}
	}
	return fr
}

// AddFlushList installs a flush list of frames frames, all free, with no
// page cleaner: OpDirty takes a frame for each page it dirties and, with
// none replaceable, the thread flushes a dirty page itself (a single-page
// flush, its I/Os on dev, the profile's IOService without one) or, with
// none dirty either, sleeps as buf_LRU_get_free_block does. A pool whose
// cleaner is added by AddCleaner is the same list with the cleaner writing.
func AddFlushList(m *machine.Machine, frames int64, dev *device.Device) *FlushList {
	f := &FlushList{m: m, dev: dev, cleaner: -1, avail: frames, dblwr: 1}
	m.Handle(machine.OpDirty, f)
	return f
}

// AddCleaner adds the page cleaner thread (hint Background) that writes the
// pages OpDirty dirties through array, and the flush list it takes them
// from: the frames of pool (DefaultBufferPool's without one), all free; the
// doublewrite's and the single-page flushes' synchronous I/Os go to dev
// (the profile's IOService without one). Without a page cleaner OpDirty
// costs nothing.
func AddCleaner(m *machine.Machine, pool *Pool, array WriteArray, dev *device.Device) (*FlushList, error) {
	frames := DefaultBufferPool / (16 << 10)
	if pool != nil {
		frames = pool.frames
	}
	f := &FlushList{m: m, dev: dev, array: array, cleaner: int32(m.Threads()), avail: frames}
	// innodb_doublewrite_pages defaults to innodb_write_io_threads
	f.dblwr = int32(max(array.Attach(f, f.cleaner), 1))
	m.Handle(machine.OpDirty, f)
	m.Handle(machine.OpPageCleaner, f)
	if err := m.AddThread([]machine.Op{{Kind: machine.OpPageCleaner}}, -2); err != nil {
		return nil, err
	}
	return f, nil
}

// Step runs OpDirty and the page cleaner's loop, OpPageCleaner.
func (f *FlushList) Step(id int32, op *machine.Op) bool {
	if op.Kind == machine.OpPageCleaner {
		f.clean(id)
		return false
	}
	return f.markDirty(id, op.Arg)
}

// markDirty runs OpDirty: for each of pages pages a frame (see FlushList),
// then the page waits for the cleaner; a sleeping cleaner is woken
// (os_event_set(buf_flush_event): a futex wake charged to thread id). It
// reports whether the thread goes on; false means it stopped and markDirty
// is called again when it runs.
func (f *FlushList) markDirty(id int32, pages int32) bool {
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
func (f *FlushList) wakeCleaner(id int32) {
	f.sleeping = false
	f.m.Wake(f.cleaner)
	f.m.Syscall(id, int64(f.m.Costs().Syscall))
}

// nextRound starts a round of the page cleaner: it reports false, with the
// cleaner marked sleeping, when nothing is dirty.
func (f *FlushList) nextRound() bool {
	if f.dirty == 0 {
		f.sleeping = true
		return false
	}
	f.round = int32(min(f.dirty, LRUScanDepth))
	return true
}

// takePage takes the round's next page off the flush list: false when the
// round is over (its pages taken, or none left to take).
func (f *FlushList) takePage() bool {
	if f.round == 0 || f.dirty == 0 {
		f.round = 0
		return false
	}
	f.round--
	f.dirty--
	return true
}

// written makes n pages whose writes completed replaceable.
func (f *FlushList) Written(n int) {
	f.avail += int64(n)
}

// dblwrBatch starts the page cleaner's write of its batch to the doublewrite
// file (Double_write::write_pages: one pwrite of the batch, then an fsync):
// the two system calls charged to the cleaner, thread id; dblwrWait then
// waits for the I/Os.
func (f *FlushList) dblwrBatch(id int32) {
	f.DblwrBatches++
	f.m.Syscalls(id, 2, 2*int64(f.m.Costs().Syscall))
}

// The synchronous I/Os of a single-page flush (Double_write::sync_page_flush:
// the doublewrite file's pwrite and fsync, the data file's pwrite and the
// tablespace's fsync) and of the cleaner's doublewrite batch (its pwrite and
// fsync).
var (
	singlePageIOs = [...]machine.IOKind{machine.IOWrite, machine.IOFsync, machine.IOWrite, machine.IOFsync}
	dblwrIOs      = [...]machine.IOKind{machine.IOWrite, machine.IOFsync}
)

// dblwrWait waits for the doublewrite batch's pwrite and fsync (syncIO): it
// reports whether they are done; false means the cleaner blocked.
func (f *FlushList) dblwrWait(id int32) bool {
	return f.syncIO(id, dblwrIOs[:], &f.dblwrIO)
}

// syncIO blocks thread id for the I/Os of seq in turn, their system calls
// already charged: on the machine's device one after another, each in its
// queue; without one, for IOService each (jittered), in one wait. *done
// counts the I/Os issued so far. It reports whether they are all done; false
// means the thread blocked and syncIO is called again when it runs.
func (f *FlushList) syncIO(id int32, seq []machine.IOKind, done *int8) bool {
	m := f.m
	if int(*done) == len(seq) {
		*done = 0
		return true
	}
	if f.dev != nil {
		f.dev.IO(id, seq[*done])
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
