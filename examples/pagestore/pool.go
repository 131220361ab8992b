package main

import (
	"container/list"
	"sync"

	"github.com/innosim/innosim/aio"
)

// frame is one buffer pool frame, as buf_block_t: a page-sized buffer and
// what the pool knows about the page in it.
type frame struct {
	// latch guards the content of buf (the page latch). Readers pin first, so
	// nobody holds the latch of an unpinned frame except the flusher copying it.
	latch sync.RWMutex
	buf   []byte // PageSize bytes, page aligned

	// Under pool.mu.
	page    int64         // the page in the frame; -1 for a free frame
	pins    int           // sessions using the frame (buf_fix_count)
	dirty   bool          // changed since it was last written successfully
	gen     uint64        // Updates since loaded; written under latch and pool.mu
	loading bool          // a read into buf is in flight
	writing bool          // a write from wbuf is in flight
	elem    *list.Element // the frame's place in pool.lru
	ready   chan struct{} // closed when the last load finished
	loadErr error         // the last load's error, set before ready is closed

	// Owned by the load or the write in flight.
	read  aio.Request
	write aio.Request
	wbuf  []byte       // the page image being written, sealed
	wgen  uint64       // gen when wbuf was copied
	batch *writeWaiter // the write's batch
}

// evictable reports whether the frame may take another page: nobody uses it,
// it holds no change that is not in the file, and no I/O is in flight.
func (f *frame) evictable() bool {
	return f.pins == 0 && !f.dirty && !f.loading && !f.writing
}

// pool is the buffer pool's bookkeeping: the page table, the LRU list and
// the counters, all under one mutex (buf_pool->mutex). It does no I/O.
type pool struct {
	mu      sync.Mutex
	frames  []*frame
	table   map[int64]*frame // page → frame (buf_pool->page_hash)
	lru     list.List        // front: most recently used; back: the next victims
	waiting bool             // someone waits on freed
	freed   chan struct{}    // closed when a frame may have become evictable

	hits, misses, readAheads, evictions uint64
	writes, writeErrors, loadErrors     uint64
	victimWaits, flushRounds            uint64
}

// newPool returns a pool of frames page frames, each with its two
// page-aligned buffers.
func newPool(frames int) (*pool, error) {
	p := &pool{table: make(map[int64]*frame, frames), freed: make(chan struct{})}
	closed := make(chan struct{})
	close(closed)
	for range frames {
		buf, err := aio.AlignedBuffer(PageSize, PageSize)
		if err != nil {
			return nil, err
		}
		wbuf, err := aio.AlignedBuffer(PageSize, PageSize)
		if err != nil {
			return nil, err
		}
		f := &frame{buf: buf, wbuf: wbuf, page: -1, ready: closed}
		f.elem = p.lru.PushBack(f)
		p.frames = append(p.frames, f)
	}
	return p, nil
}

// victim returns the coldest evictable frame, or nil if none is (every frame
// pinned, dirty or busy with I/O). Under mu.
func (p *pool) victim() *frame {
	for e := p.lru.Back(); e != nil; e = e.Prev() {
		if f := e.Value.(*frame); f.evictable() {
			return f
		}
	}
	return nil
}

// assign gives frame f (evictable) to page n and marks it loading. The frame
// goes to the front of the LRU list for a foreground read, to the back for a
// read-ahead, which becomes hot only if someone reads it. Under mu.
func (p *pool) assign(f *frame, n int64, hot bool) {
	if f.page >= 0 {
		delete(p.table, f.page)
		p.evictions++
	}
	f.page, f.loading, f.loadErr = n, true, nil
	f.ready = make(chan struct{})
	p.table[n] = f
	if hot {
		p.lru.MoveToFront(f.elem)
	} else {
		p.lru.MoveToBack(f.elem)
	}
}

// wait returns a channel closed when a frame may have become evictable. Under
// mu.
func (p *pool) wait() <-chan struct{} {
	p.waiting = true
	return p.freed
}

// signal wakes everyone waiting for a frame. Under mu.
func (p *pool) signal() {
	if p.waiting {
		close(p.freed)
		p.freed = make(chan struct{})
		p.waiting = false
	}
}

// unpin ends a session's use of f.
func (p *pool) unpin(f *frame) {
	p.mu.Lock()
	f.pins--
	if f.pins == 0 {
		p.signal()
	}
	p.mu.Unlock()
}

// takeDirty marks up to limit dirty frames without a write in flight as
// writing, coldest first, and returns them; busy counts dirty frames whose
// write is still in flight, and freed is the channel to wait on for them.
func (p *pool) takeDirty(limit int) (batch []*frame, busy int, freed <-chan struct{}) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for e := p.lru.Back(); e != nil; e = e.Prev() {
		f := e.Value.(*frame)
		switch {
		case !f.dirty:
		case f.writing:
			busy++
		case len(batch) < limit:
			f.writing = true
			batch = append(batch, f)
		}
	}
	if busy > 0 {
		freed = p.wait()
	}
	return batch, busy, freed
}

// dirtyPages returns the number of dirty frames.
func (p *pool) dirtyPages() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, f := range p.frames {
		if f.dirty {
			n++
		}
	}
	return n
}
