package main

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/innosim/innosim/aio"
	"github.com/innosim/innosim/prio"
)

// writeWaiter collects the completions of one batch of page writes.
type writeWaiter struct {
	wg  sync.WaitGroup
	mu  sync.Mutex
	err error
}

func (w *writeWaiter) done(err error) {
	if err != nil {
		w.mu.Lock()
		w.err = errors.Join(w.err, err)
		w.mu.Unlock()
	}
	w.wg.Done()
}

// writeBack writes the frames of batch (each marked writing by takeDirty) and
// waits for every write to complete: one Submit per page through the write
// segments at prio.Background, then one Flush. Each page is copied under its
// latch and sealed with its checksum in the frame's write buffer, so sessions
// may update the frame while the write is in flight (InnoDB copies into the
// doublewrite buffer for the same reason). It returns every write's error,
// joined.
func (s *Store) writeBack(ctx context.Context, batch []*frame) error {
	w := &writeWaiter{}
	for _, f := range batch {
		f.latch.RLock()
		copy(f.wbuf, f.buf)
		f.wgen = f.gen
		f.latch.RUnlock()
		seal(f.wbuf)
		f.batch = w
		w.wg.Add(1)
		f.write.Op, f.write.Hint, f.write.File = aio.Write, prio.Background, s.file
		f.write.Offset, f.write.Buf = f.page*PageSize, f.wbuf
		if err := s.arr.Submit(ctx, &f.write); err != nil {
			s.written(f, err)
		}
	}
	s.arr.Flush()
	w.wg.Wait()
	return w.err
}

// written completes the write of f: on a handler thread from the write's
// Done, or on the submitter if Submit refused it. The frame becomes clean
// only if the write succeeded and no Update changed it since it was copied; a
// page whose write failed stays dirty, and so stays in the pool until a later
// write succeeds.
func (s *Store) written(f *frame, err error) {
	n := f.page
	p := s.pool
	p.mu.Lock()
	f.writing = false
	if err == nil {
		p.writes++
		if f.gen == f.wgen {
			f.dirty = false
		}
	} else {
		p.writeErrors++
	}
	p.signal()
	p.mu.Unlock()
	if err != nil {
		err = fmt.Errorf("pagestore: write of page %d: %w", n, err)
	}
	f.batch.done(err)
}

// Checkpoint writes every dirty page and waits for the writes, including
// those the background flusher has in flight, then syncs the data file
// through the Array (aio.Array.Sync: fsync, as fil_flush after a flush
// batch): when it returns nil, every page written before it is durable. It
// returns the joined errors of the writes that failed (the pages stay dirty,
// so a later Checkpoint tries them again), the sync's error, or ctx's error.
// With sessions still updating pages it returns when it first catches up
// with them.
func (s *Store) Checkpoint(ctx context.Context) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		batch, busy, freed := s.pool.takeDirty(len(s.pool.frames))
		if len(batch) > 0 {
			if err := s.writeBack(ctx, batch); err != nil {
				return err
			}
			continue
		}
		if busy == 0 {
			// Every write above completed before this sync is submitted, so
			// it covers them (the aio package doc's "Syncs").
			return s.arr.Sync(ctx, s.file)
		}
		select {
		case <-freed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// kickFlusher asks the flusher for a round now, without waiting.
func (s *Store) kickFlusher() {
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// flusher is the background page cleaner (buf_flush_page_cleaner_coordinator):
// every FlushInterval, or when a session finds no evictable frame, it writes
// up to FlushBatch dirty pages, coldest first. Its OS thread runs under
// prio.Background when the Priority policy applies hints; a refusal is
// recorded and the flusher works on at the priority it has.
func (s *Store) flusher() {
	defer s.flushers.Done()
	th, err := s.applier.Lock()
	if err == nil {
		_, err = th.Apply(prio.Background)
		defer func() {
			// A failed restore leaves the goroutine locked, so its thread ends
			// with it and no other goroutine runs at the flusher's nice.
			if err := th.Unlock(); err != nil {
				s.notePriority(err)
			}
		}()
	}
	if err != nil {
		s.notePriority(err)
	}
	tick := time.NewTicker(s.cfg.FlushInterval)
	defer tick.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-s.kick:
		case <-tick.C:
		}
		batch, _, _ := s.pool.takeDirty(s.cfg.FlushBatch)
		if len(batch) == 0 {
			continue
		}
		s.pool.mu.Lock()
		s.pool.flushRounds++
		s.pool.mu.Unlock()
		if err := s.writeBack(context.Background(), batch); err != nil {
			s.noteFlush(err)
		}
	}
}
