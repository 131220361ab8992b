package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/innosim/innosim/aio"
	"github.com/innosim/innosim/concurrency"
	"github.com/innosim/innosim/prio"
)

// Store is the page store: a data file, a buffer pool, an aio.Array, an
// admission gate and a background flusher. Sessions are safe to use from
// many goroutines at once (one goroutine per Session).
type Store struct {
	cfg     Config
	file    *os.File
	arr     *aio.Array
	gate    concurrency.Gate
	applier *prio.Applier
	pool    *pool

	kick     chan struct{} // a session wants clean frames
	stop     chan struct{} // closed by Close
	flushers sync.WaitGroup

	errMu    sync.Mutex
	flushErr error // the background flusher's first write error
	prioErr  error // the first refusal of the flusher's priority
	closeErr error // Close's result

	closeOnce sync.Once
}

// Open creates (or truncates) the data file at cfg.Path, formats its
// cfg.Pages pages (version 0, zero payload, sealed), and starts the Array's
// handler threads and the flusher. Errors wrap ErrInvalidConfig for a field
// of cfg out of range (or aio's and concurrency's ErrInvalidConfig for theirs),
// or are the file's errors. The caller must Close the Store.
func Open(cfg Config) (*Store, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	gate, err := concurrency.New(cfg.Admission, concurrency.Config{Limit: cfg.Limit, Tickets: cfg.Tickets})
	if err != nil {
		return nil, fmt.Errorf("pagestore: %w", err)
	}
	applier, err := prio.New(prio.Config{Policy: cfg.Priority})
	if err != nil {
		return nil, fmt.Errorf("pagestore: %w", err)
	}
	acfg := cfg.AIO
	acfg.Wake = aio.WakeDeferred
	if err := acfg.Validate(); err != nil {
		return nil, fmt.Errorf("pagestore: AIO: %w", err)
	}
	pool, err := newPool(cfg.Frames)
	if err != nil {
		return nil, fmt.Errorf("pagestore: %w", err)
	}
	file, err := os.OpenFile(cfg.Path, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, err
	}
	if err := format(file, cfg.Pages); err != nil {
		return nil, errors.Join(err, file.Close())
	}
	arr, err := aio.New(acfg)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("pagestore: AIO: %w", err), file.Close())
	}
	s := &Store{cfg: cfg, file: file, arr: arr, gate: gate, applier: applier, pool: pool,
		kick: make(chan struct{}, 1), stop: make(chan struct{})}
	for _, f := range s.pool.frames {
		f.read.Done = func(_ *aio.Request, err error) { s.loaded(f, err) }
		f.write.Done = func(_ *aio.Request, err error) { s.written(f, err) }
	}
	s.flushers.Add(1)
	go s.flusher()
	return s, nil
}

// format writes every page of a new file: its number, version 0, a zero
// payload and its checksum, one extent per write.
func format(f *os.File, pages int64) error {
	buf := make([]byte, ExtentPages*PageSize)
	for first := int64(0); first < pages; first += ExtentPages {
		n := min(ExtentPages, pages-first)
		for i := range n {
			p := buf[i*PageSize : (i+1)*PageSize]
			setHeader(p, first+i, 0)
			seal(p)
		}
		if _, err := f.WriteAt(buf[:n*PageSize], first*PageSize); err != nil {
			return fmt.Errorf("pagestore: format: %w", err)
		}
	}
	return nil
}

// Close stops the flusher, writes every dirty page (Checkpoint), closes the
// Array (its handler threads finish every accepted request) and the file. It
// returns the first error of the background flusher joined with those of the
// final checkpoint and the file; a page whose write failed was never marked
// clean, so such an error means the file lacks that page's last Updates.
// Every Session must be closed first. Calling Close again returns the same.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		close(s.stop)
		s.flushers.Wait()
		cpErr := s.Checkpoint(context.Background())
		arrErr := s.arr.Close()
		fileErr := s.file.Close()
		s.errMu.Lock()
		s.closeErr = errors.Join(s.flushErr, cpErr, arrErr, fileErr)
		s.errMu.Unlock()
	})
	s.errMu.Lock()
	defer s.errMu.Unlock()
	return s.closeErr
}

func (s *Store) noteFlush(err error) {
	s.errMu.Lock()
	if s.flushErr == nil {
		s.flushErr = err
	}
	s.errMu.Unlock()
}

func (s *Store) notePriority(err error) {
	s.errMu.Lock()
	if s.prioErr == nil {
		s.prioErr = err
	}
	s.errMu.Unlock()
}

// Stats is a snapshot of what the store did.
type Stats struct {
	Hits        uint64 // page requests found in the pool
	Misses      uint64 // page requests that read the page (foreground, prio.High)
	ReadAheads  uint64 // pages read ahead (prio.Background)
	Evictions   uint64 // frames given to another page
	VictimWaits uint64 // misses that found no evictable frame and waited
	Writes      uint64 // page writes that succeeded
	WriteErrors uint64 // page writes that failed (the page stayed dirty)
	LoadErrors  uint64 // page reads that failed (I/O error or bad checksum)
	FlushRounds uint64 // background flusher rounds that wrote something
	Dirty       int    // dirty frames now
	// PriorityErr is the first refusal of the flusher's priority (nil under
	// PolicyOff, or when the OS accepted it).
	PriorityErr error
	AIO         aio.Stats
	Admission   concurrency.Stats
	Priority    prio.Stats
}

// Stats returns a snapshot of the counters.
func (s *Store) Stats() Stats {
	p := s.pool
	p.mu.Lock()
	st := Stats{Hits: p.hits, Misses: p.misses, ReadAheads: p.readAheads, Evictions: p.evictions,
		VictimWaits: p.victimWaits, Writes: p.writes, WriteErrors: p.writeErrors,
		LoadErrors: p.loadErrors, FlushRounds: p.flushRounds}
	p.mu.Unlock()
	st.Dirty = p.dirtyPages()
	s.errMu.Lock()
	st.PriorityErr = s.prioErr
	s.errMu.Unlock()
	st.AIO, st.Admission, st.Priority = s.arr.Stats(), s.gate.Stats(), s.applier.Stats()
	return st
}

// Dirty reports whether page n is in the pool with changes not yet written.
func (s *Store) Dirty(n int64) bool {
	s.pool.mu.Lock()
	defer s.pool.mu.Unlock()
	f, ok := s.pool.table[n]
	return ok && f.dirty
}
