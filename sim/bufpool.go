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
