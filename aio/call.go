package aio

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"

	"github.com/innosim/innosim/prio"
)

// ErrCallFromDone is returned by ReadAt, WriteAt, Sync and Datasync called
// from a Request's Done: the call would wait for a request that the handler
// thread running the Done may be the one to serve. Nothing is submitted;
// submit a Request with a Done of its own instead.
var ErrCallFromDone = errors.New("aio: synchronous call from a Done callback, which runs on a handler thread the call may wait for")

// ReadAt reads len(p) bytes from f at byte offset off through the array and
// returns when the read is done, with the number of bytes read and the
// error, as os.File.ReadAt: n < len(p) comes with a non-nil error, io.EOF
// when the file ended first. The read is a KindNormal request at the hint
// prio.FromContext(ctx) gives (Normal without one), picked, merged and
// counted as any other; p must stay untouched until ReadAt returns (with
// O_DIRECT, aligned as AlignedBuffer's).
//
// ctx covers the read until it is issued: if ctx has ended when ReadAt is
// called, or ends while the read waits for a slot or in its slot, ReadAt
// returns 0 and an error wrapping ctx.Err() and ErrCanceled, and the read
// never happens (but see the page cache below). If ctx ends after
// the read was issued, ReadAt still waits for it, since the kernel may be
// writing into p: under native AIO it first asks the kernel to cancel it
// (IORING_OP_ASYNC_CANCEL; a read merged with others is left to complete),
// and returns 0 and an error wrapping ctx.Err() and ErrCanceled if that
// stopped it before it began, n > 0 and an error wrapping ctx.Err() if it
// stopped part way, else the read's own result. So err == nil, or n, says
// what was read; errors.Is(err, ErrCanceled) that nothing was, n is 0 and
// p is untouched.
//
// An empty p (len 0) reads nothing and ReadAt returns 0, nil at once, as
// os.File.ReadAt does: no request is submitted or counted, and neither
// ctx, the Array's state (closed or not) nor the file is looked at, only
// the arguments Submit would refuse (a negative off, a File that is a nil
// pointer: ErrInvalidRequest). Submit itself refuses a Request with an
// empty Buf, which would take a slot for nothing.
//
// Errors are Submit's (ErrInvalidRequest for a negative off or an invalid
// File, ErrClosed, ...), the I/O's (an *os.PathError from the file), or
// ErrCallFromDone.
//
// On Linux a read of an *os.File not opened with O_DIRECT first tries the
// page cache on the caller's thread (preadv2 with RWF_NOWAIT, which never
// waits for a device): a read the cache holds whole is done there, with no
// handoff to a handler, as os.File.ReadAt would do it, and counted as a
// request submitted and completed (Stats; its preadv2 in Syscalls, the
// attempts that fall short too). Such a read never waits, so its ctx and
// hint change nothing. A read the cache holds only the first pages of has
// those copied into p there, and the rest goes through the array as a
// request; if ctx ends before that request is issued, ReadAt returns the
// count of the bytes copied, n > 0, and an error wrapping ctx.Err() but
// not ErrCanceled, as a read stopped part way. A read the cache holds none
// of goes through the array whole.
//
// Under WakeDeferred the read is a batch of its own: ReadAt
// wakes its segment (native AIO: submits it) at once, as a Flush of that
// segment alone. ReadAt is safe for concurrent use; a call costs one
// Request from a pool and no allocation of its own.
func (a *Array) ReadAt(ctx context.Context, f File, p []byte, off int64) (n int, err error) {
	n, err = a.call(ctx, Read, f, p, off)
	if err != nil && n < len(p) && errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, ErrCanceled) {
		err = io.EOF // the file ended: os.File.ReadAt's answer
	}
	return n, err
}

// WriteAt writes p to f at byte offset off through the array and returns
// when the write is done, with the number of bytes written and the error,
// as os.File.WriteAt (n < len(p) comes with a non-nil error). A write to
// a file opened with O_APPEND fails with ErrAppendMode, as os.File.WriteAt
// refuses it. Everything else is ReadAt's: the hint, what ctx covers, what
// n and the error say about a write whose ctx ended (errors.Is(err,
// ErrCanceled): nothing was written), and an empty p (0, nil; but a file
// os.File.WriteAt refuses for O_APPEND gives ErrAppendMode).
func (a *Array) WriteAt(ctx context.Context, f File, p []byte, off int64) (n int, err error) {
	return a.call(ctx, Write, f, p, off)
}

// Sync makes f durable through the array, as os.File.Sync (fsync(2)), and
// returns when it is done: every write to f that completed before Sync was
// called is on stable storage when it returns nil (see "Syncs" in the
// package doc for what it does not order). Syncs of f waiting together are
// served by one fsync. ctx covers it as ReadAt's read.
func (a *Array) Sync(ctx context.Context, f File) error {
	_, err := a.call(ctx, Fsync, f, nil, 0)
	return err
}

// Datasync is Sync with fdatasync(2): f's data, and the metadata needed to
// read it back, but not its timestamps.
func (a *Array) Datasync(ctx context.Context, f File) error {
	_, err := a.call(ctx, Fdatasync, f, nil, 0)
	return err
}

// call is one synchronous request: a Request and the channel its Done
// signals, reused through Array.calls.
type call struct {
	r      Request
	done   chan struct{}
	err    error
	cache  callCache // the page-cache attempt's scratch (cachedRead)
	stripe uint8     // the call's counter of page-cache reads (Array.cacheHits)
}

// newCall returns a call for the Array's pool; calls takes the stripes
// round.
func newCall(calls *atomic.Uint32) *call {
	c := &call{done: make(chan struct{}, 1), stripe: uint8(calls.Add(1) % cacheStripes)}
	c.cache.init()
	c.r.internal = true
	c.r.Done = func(_ *Request, err error) {
		c.err = err
		c.done <- struct{}{}
	}
	return c
}

// call submits one request and waits for it, watching ctx until it
// completes (see ReadAt).
func (a *Array) call(ctx context.Context, op Op, f File, p []byte, off int64) (int, error) {
	if a.inDone.Load() > 0 && a.calledFromDone() {
		return 0, ErrCallFromDone
	}
	if len(p) == 0 && !op.isSync() {
		return 0, emptyCall(op, f, off)
	}
	c := a.calls.Get().(*call)
	cached := 0 // bytes read from the page cache, at the front of p
	if op == Read && off >= 0 && !a.closing.Load() && ctx.Err() == nil {
		if cached = a.cachedRead(c, f, p, off); cached == len(p) {
			a.calls.Put(c)
			return cached, nil
		}
	}
	r := &c.r
	// The request reads the rest, past what the cache gave.
	length, start := len(p), off
	p, off = p[cached:], off+int64(cached)
	r.Op, r.Kind, r.File, r.Offset, r.Buf, r.Context = op, KindNormal, f, off, p, ctx
	r.Hint, _ = prio.FromContext(ctx)
	slot, gen, err := a.submit(ctx, r)
	if err == nil && a.cfg.Wake == WakeDeferred && slot >= 0 {
		// The call is a batch of one, and it waits: its Flush is now, for
		// its own segment alone.
		a.wake(a.core.flushSegment(a.core.SegmentOfSlot(slot)))
	}
	if err == nil {
		if d := ctx.Done(); d != nil {
			select {
			case <-c.done:
			case <-d:
				if slot >= 0 {
					a.cancel(r, slot, gen)
				}
				<-c.done
			}
		} else {
			<-c.done
		}
		err = c.err
	}
	n := cached + r.n
	if cached > 0 && errors.Is(err, ErrCanceled) {
		// p was written: the read stopped part way, which ErrCanceled
		// (no byte read) would deny.
		err = fmt.Errorf("aio: read of %d bytes at offset %d stopped after the %d bytes the page cache held: %w",
			length, start, cached, ctx.Err())
	}
	c.err, r.File, r.Buf, r.Context, r.n = nil, nil, nil, nil, 0
	a.calls.Put(c)
	return n, err
}

// emptyCall is the result of a ReadAt or WriteAt (op) of no bytes (see
// ReadAt): nil, unless Submit would refuse its File or Offset, or
// os.File.WriteAt the write (ErrAppendMode).
func emptyCall(op Op, f File, off int64) error {
	if off < 0 {
		return fmt.Errorf("aio: Offset = %d, want ≥ 0: %w", off, ErrInvalidRequest)
	}
	if err := checkFile(f); err != nil {
		return err
	}
	if op == Write {
		return refusesWrite(f)
	}
	return nil
}

// cacheStripes is how many counters ReadAt's page-cache reads are spread
// over (Array.cacheHits).
const cacheStripes = 16

// stripedCount is one of those counters, alone on its cache line.
type stripedCount struct {
	n atomic.Uint64
	_ [56]byte
}
