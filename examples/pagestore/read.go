package main

import (
	"context"
	"fmt"

	"github.com/innosim/innosim/aio"
	"github.com/innosim/innosim/prio"
)

// fetch returns page n's frame pinned and loaded, reading the page on a miss
// (buf_page_get_gen). If no frame is evictable it asks the flusher for clean
// frames and waits. On error the frame is not pinned.
func (s *Store) fetch(ctx context.Context, n int64) (*frame, error) {
	p := s.pool
	for {
		p.mu.Lock()
		if f, ok := p.table[n]; ok {
			f.pins++
			if f.elem != p.lru.Front() {
				p.lru.MoveToFront(f.elem)
			}
			p.hits++
			ready := f.ready
			p.mu.Unlock()
			return f, s.awaitLoad(ctx, f, ready)
		}
		f := p.victim()
		if f == nil {
			p.victimWaits++
			freed := p.wait()
			p.mu.Unlock()
			s.kickFlusher()
			select {
			case <-freed:
				continue
			case <-ctx.Done():
				return nil, fmt.Errorf("pagestore: waiting for a free frame for page %d: %w", n, ctx.Err())
			}
		}
		p.assign(f, n, true)
		f.pins = 1
		p.misses++
		ready := f.ready
		p.mu.Unlock()
		s.submitRead(f, prio.High)
		s.arr.Flush() // a batch of one: wake the segment that got it
		return f, s.awaitLoad(ctx, f, ready)
	}
}

// awaitLoad waits until f's load, signalled by ready, is done. If the load
// failed or ctx ends first, it unpins f and returns the error; the load itself
// carries on and completes.
func (s *Store) awaitLoad(ctx context.Context, f *frame, ready <-chan struct{}) error {
	select {
	case <-ready:
	default: // not loaded yet: wait, unless ctx ends first
		select {
		case <-ready:
		case <-ctx.Done():
			s.pool.unpin(f)
			return fmt.Errorf("pagestore: waiting for a page read: %w", ctx.Err())
		}
	}
	if err := f.loadErr; err != nil {
		s.pool.unpin(f)
		return err
	}
	return nil
}

// submitRead queues the read of f's page at hint h. Under WakeDeferred nothing
// is woken until the caller's Flush.
func (s *Store) submitRead(f *frame, h prio.Hint) {
	f.read.Op, f.read.Hint, f.read.File = aio.Read, h, s.file
	f.read.Offset, f.read.Buf = f.page*PageSize, f.buf
	if err := s.arr.Submit(context.Background(), &f.read); err != nil {
		s.loaded(f, err)
	}
}

// loaded completes the load of f: on a handler thread from the read's Done,
// or on the submitter if Submit refused it. A page that fails its checksum
// is an error, as buf_page_io_complete reports a corrupt page. A failed load
// frees the frame; its waiters see the error.
func (s *Store) loaded(f *frame, err error) {
	n := f.page
	if err == nil {
		err = checkPage(f.buf, n)
	}
	if err != nil {
		err = fmt.Errorf("pagestore: read of page %d: %w", n, err)
	}
	p := s.pool
	p.mu.Lock()
	f.loading = false
	if err != nil {
		p.loadErrors++
		delete(p.table, n)
		f.page = -1
		p.lru.MoveToBack(f.elem)
	}
	f.loadErr = err
	close(f.ready)
	p.signal()
	p.mu.Unlock()
}

// readAhead reads the extent that starts at page first into frames no one
// needs, at prio.Background, as buf_read_ahead_linear: one Submit per page the
// pool does not hold and then one Flush, which wakes each segment that got
// work once. It stops early rather than wait for a frame, and returns the
// number of pages it submitted.
func (s *Store) readAhead(first int64) int {
	last := min(first+ExtentPages, s.cfg.Pages)
	batch := make([]*frame, 0, ExtentPages)
	p := s.pool
	p.mu.Lock()
	for n := first; n < last; n++ {
		if _, ok := p.table[n]; ok {
			continue
		}
		f := p.victim()
		if f == nil {
			break
		}
		p.assign(f, n, false)
		batch = append(batch, f)
	}
	p.readAheads += uint64(len(batch))
	p.mu.Unlock()
	for _, f := range batch {
		s.submitRead(f, prio.Background)
	}
	s.arr.Flush()
	return len(batch)
}
