package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/innosim/innosim/concurrency"
	"github.com/innosim/innosim/prio"
)

// ErrPageRange is wrapped by the error of a Read or Update of a page outside
// 0..Pages-1.
var ErrPageRange = errors.New("pagestore: page out of range")

// Session is one client thread of the store, as a connection's THD and trx in
// MySQL: it owns a concurrency.Thread, so its Reads and Updates are admitted
// through the gate with tickets, and it remembers its last page to detect a
// linear scan for read-ahead. A Session belongs to one goroutine at a time;
// Close it when done, before Store.Close.
type Session struct {
	s      *Store
	thread concurrency.Thread
	last   int64 // the page of the previous access, -2 at first
	run    int   // length of the run of consecutive pages ending at last
}

// Session returns a new session whose admission hint is h (concurrency's
// ByHint and Auto modes queue hints above prio.Normal first).
func (s *Store) Session(h prio.Hint) *Session {
	ss := &Session{s: s, last: -2}
	ss.thread.Hint = h
	return ss
}

// Read calls fn with the payload of page n and its version (the number of
// Updates it has had), under the page's shared latch. fn must not keep the
// slice. Errors: ErrPageRange, ctx's error while waiting for a seat, a frame
// or the read, or the read's error (an I/O error or a bad checksum).
func (ss *Session) Read(ctx context.Context, n int64, fn func(payload []byte, version uint64)) error {
	return ss.access(ctx, n, false, fn)
}

// Update calls fn to change the payload of page n under the page's exclusive
// latch; version is the page's new version (one more than before). The page
// is then dirty until the flusher or a Checkpoint writes it. Errors as Read.
func (ss *Session) Update(ctx context.Context, n int64, fn func(payload []byte, version uint64)) error {
	return ss.access(ctx, n, true, fn)
}

func (ss *Session) access(ctx context.Context, n int64, update bool, fn func([]byte, uint64)) error {
	s := ss.s
	if n < 0 || n >= s.cfg.Pages {
		return fmt.Errorf("pagestore: page %d, want 0..%d: %w", n, s.cfg.Pages-1, ErrPageRange)
	}
	if err := s.gate.Enter(ctx, &ss.thread); err != nil {
		return fmt.Errorf("pagestore: entering: %w", err)
	}
	defer s.gate.Exit(&ss.thread)
	f, err := s.fetch(ctx, n)
	if err != nil {
		return err
	}
	if update {
		f.latch.Lock()
		v := pageVersion(f.buf) + 1
		fn(f.buf[offPayload:offChecksum], v)
		setHeader(f.buf, n, v)
		s.pool.mu.Lock()
		f.dirty = true
		f.gen++
		s.pool.mu.Unlock()
		f.latch.Unlock()
	} else {
		f.latch.RLock()
		fn(f.buf[offPayload:offChecksum], pageVersion(f.buf))
		f.latch.RUnlock()
	}
	s.pool.unpin(f)
	ss.track(n)
	return nil
}

// track follows the session's run of consecutive pages. When the run covers
// at least ReadAheadThreshold pages of an extent and reaches its last page,
// the next extent is read ahead (buf_read_ahead_linear, which looks at the
// access pattern of the whole extent rather than one session's).
func (ss *Session) track(n int64) {
	if n == ss.last+1 {
		ss.run++
	} else {
		ss.run = 1
	}
	ss.last = n
	th := ss.s.cfg.ReadAheadThreshold
	inExtent := int(n%ExtentPages) + 1
	if th > 0 && inExtent == ExtentPages && min(ss.run, inExtent) >= th {
		ss.s.readAhead(n + 1)
	}
}

// EndStatement gives the session's seat back whatever its tickets, as InnoDB
// does at the end of each statement (srv_conc_force_exit_innodb): tickets
// speed up the many page accesses of one statement, such as a scan, without
// letting one client keep a seat while it is between statements. The session
// may go on.
func (ss *Session) EndStatement() { ss.s.gate.ForceExit(&ss.thread) }

// Close ends the session's statement, giving its seat back. Close every
// Session before Store.Close.
func (ss *Session) Close() { ss.EndStatement() }
