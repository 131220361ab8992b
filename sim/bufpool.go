package sim

import (
	"fmt"
	"math"
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

// flushList is the buffer pool's flush list as the page cleaner sees it: the
// pages the load dirtied (OpDirty) that no write has been queued for yet,
// and the one page cleaner thread that flushes them
// (buf_flush_page_coordinator_thread with innodb_page_cleaners clamped to
// the one buffer pool instance a pool under 1 GiB has). A round takes up to
// LRUScanDepth pages, queues each page's write as an asynchronous I/O of the
// write array (buf_flush_page → fil_io with IORequest::DO_NOT_WAKE →
// os_aio_func → AIO::reserve_slot, waiting on the array's not_full while it
// is full), then wakes the handlers once (buf_flush_end →
// dblwr::force_flush → os_aio_simulated_wake_handler_threads; nothing under
// native AIO). The doublewrite file's own synchronous write per batch is not
// modelled, and neither are user threads' single-page flushes when the free
// list runs dry: the cleaner's round is the pool's only writer.
type flushList struct {
	cleaner  int32 // the page cleaner's thread id
	dirty    int64 // pages dirtied, their writes not yet queued
	sleeping bool  // the cleaner waits on buf_flush_event
	round    int32 // pages left to queue in the current round

	Flushed uint64 // page writes queued in the write array
}

// addPageCleaner adds the page cleaner thread (hint Background) that writes
// the pages OpDirty dirties through the installed AIO array, once: a second
// call, or a machine without an AIO array (SetAIO), adds nothing, and
// OpDirty then costs nothing.
func (m *Machine) addPageCleaner() {
	if m.fl != nil || m.aio == nil && m.aion == nil {
		return
	}
	m.fl = &flushList{cleaner: int32(len(m.threads))}
	// SetAIO added its handlers with the same call, so it cannot fail here
	if m.AddThread([]Op{{Kind: OpPageCleaner}}, -2) != nil {
		m.fl = nil
	}
}

// markDirty runs OpDirty: pages more pages wait for the cleaner, and a
// sleeping cleaner is woken (os_event_set(buf_flush_event): a futex wake
// charged to t). It reports whether t goes on; false means t stops for the
// wake's system call and markDirty is called again when it runs.
func (m *Machine) markDirty(t *thread, id int32, pages int32) bool {
	f := m.fl
	if f == nil {
		return true
	}
	if t.step == opCharged {
		return true
	}
	f.dirty += int64(pages)
	if !f.sleeping {
		return true
	}
	f.sleeping = false
	m.wake(f.cleaner)
	t.step = opCharged
	m.syscalls++
	m.runBurst(t, id, int64(m.cfg.Costs.Syscall), catSys)
	return false
}

// nextRound starts a round of the page cleaner: it reports false, with the
// cleaner marked sleeping, when nothing is dirty.
func (f *flushList) nextRound() bool {
	if f.dirty == 0 {
		f.sleeping = true
		return false
	}
	f.round = int32(min(f.dirty, LRUScanDepth))
	f.dirty -= int64(f.round)
	return true
}
