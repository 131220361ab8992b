package aio_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/innosim/innosim/aio"
	"github.com/stretchr/testify/require"
)

// recorder is a Backend that counts the I/O calls it serves, and holds each
// until open is closed when hold is set: which requests were issued.
type recorder struct {
	calls atomic.Int64
	open  chan struct{}
	in    chan struct{} // one token per call that reached the backend, if not nil
}

func (b *recorder) serve(n int) (int, error) {
	b.calls.Add(1)
	if b.in != nil {
		b.in <- struct{}{}
	}
	if b.open != nil {
		<-b.open
	}
	return n, nil
}

func (b *recorder) ReadAt(_ aio.File, p []byte, _ int64) (int, error)  { return b.serve(len(p)) }
func (b *recorder) WriteAt(_ aio.File, p []byte, _ int64) (int, error) { return b.serve(len(p)) }
func (b *recorder) nativeFault(int32) error {
	_, err := b.serve(0)
	return err
}

const queued = 1000

// A thousand requests wait in their slots (under WakeDeferred, nothing is
// issued before a Flush); each has a Context of its own, and all are
// canceled. Each Done runs once, with an error wrapping ErrCanceled and
// context.Canceled; nothing is issued, not even by the Flush after; the
// counters balance with all of them canceled. Before the request's Context
// existed, Submit's context covered only the wait for a slot and a queued
// request could not be canceled at all.
func TestCancelingQueuedRequestsCompletesEachOnceUnissued(t *testing.T) {
	for _, d := range drivers(t) {
		t.Run(d.String(), func(t *testing.T) {
			rec := &recorder{}
			a := newDriverArray(t, d, func(c *aio.Config) {
				c.Wake, c.Backend = aio.WakeDeferred, rec
				c.ReadSegments, c.SlotsPerSegment = 4, 256
			})
			runQueuedCancel(t, a, d, func() { a.Flush() })
			st := a.Stats()
			require.Equal(t, uint64(queued), st.Canceled)
			require.Zero(t, st.Completed)
			require.Zero(t, st.Batches, "no canceled request was issued")
			require.Zero(t, rec.calls.Load(), "no canceled request reached the I/O")
			requireBalanced(t, st)
		})
	}
}

// The same with the requests queued behind a handler busy with another
// request's I/O (WakeTargeted; native AIO with WithPlug, its handler held in the
// fault hook, so that the queued requests wait in their slots): canceled,
// they complete once each, and when the handler is released it serves only
// the request it held.
func TestCancelingRequestsQueuedBehindABusyHandler(t *testing.T) {
	for _, d := range drivers(t) {
		t.Run(d.String(), func(t *testing.T) {
			rec := &recorder{open: make(chan struct{}), in: make(chan struct{}, 1)}
			a := newDriverArray(t, d, func(c *aio.Config) {
				c.Wake, c.Backend = aio.WakeTargeted, rec
				c.ReadSegments, c.SlotsPerSegment = 1, 2*queued
			}, plugIfNative(d)...)
			held := make(chan error, 1)
			require.NoError(t, a.Submit(context.Background(), &aio.Request{File: d.File, Offset: 1 << 20, Buf: make([]byte, 8),
				Done: func(_ *aio.Request, err error) { held <- err }}))
			<-rec.in // the handler is in the held request's I/O (native: its completion)
			rec.in = nil
			runQueuedCancel(t, a, d, func() { close(rec.open) })
			require.NoError(t, <-held)
			require.NoError(t, a.Close())
			st := a.Stats()
			require.Equal(t, uint64(queued), st.Canceled)
			require.Equal(t, uint64(1), st.Completed)
			require.Equal(t, uint64(1), st.Batches, "only the held request was issued")
			require.Equal(t, int64(1), rec.calls.Load())
			requireBalanced(t, st)
		})
	}
}

// runQueuedCancel submits queued requests, each with its own Context, cancels
// them all from other goroutines, checks that each Done runs once with the
// context's error, then calls after.
func runQueuedCancel(t *testing.T, a *aio.Array, d driver, after func()) {
	t.Helper()
	var (
		calls   [queued]atomic.Int32
		errs    [queued]error
		cancels [queued]context.CancelFunc
		done    sync.WaitGroup
	)
	for i := range queued {
		ctx, cancel := context.WithCancel(context.Background())
		cancels[i] = cancel
		done.Add(1)
		r := &aio.Request{File: d.File, Offset: int64(i) * page, Buf: make([]byte, 8), Context: ctx,
			Done: func(_ *aio.Request, err error) {
				if calls[i].Add(1) == 1 {
					errs[i] = err
					done.Done()
				}
			}}
		require.NoError(t, a.Submit(context.Background(), r), "request %d", i)
	}
	require.Equal(t, uint64(queued), a.Stats().InFlight-uint64(a.Stats().Batches), "all queued")
	var cancelers sync.WaitGroup
	for w := range 4 {
		cancelers.Add(1)
		go func() {
			defer cancelers.Done()
			for i := w; i < queued; i += 4 {
				cancels[i]()
			}
		}()
	}
	cancelers.Wait()
	waitGroup(t, &done, "the canceled requests' Done calls")
	after()
	for i := range queued {
		require.Equal(t, int32(1), calls[i].Load(), "request %d: Done calls", i)
		require.ErrorIs(t, errs[i], aio.ErrCanceled, "request %d", i)
		require.ErrorIs(t, errs[i], context.Canceled, "request %d", i)
	}
}

// plugIfNative is WithPlug for the native driver, nothing for the others.
func plugIfNative(d driver) []aio.Option {
	if d.native {
		return []aio.Option{aio.WithPlug()}
	}
	return nil
}

// waitGroup waits for wg, failing t after hangLimit.
func waitGroup(t *testing.T, wg *sync.WaitGroup, what string) {
	t.Helper()
	ch := make(chan struct{})
	go func() { wg.Wait(); close(ch) }()
	select {
	case <-ch:
	case <-time.After(hangLimit):
		t.Fatalf("%s never came", what)
	}
}

// A request whose Context has a deadline is canceled by it, as by a cancel.
func TestARequestsDeadlineCancelsItWhileQueued(t *testing.T) {
	for _, d := range drivers(t) {
		t.Run(d.String(), func(t *testing.T) {
			a := newDriverArray(t, d, func(c *aio.Config) { c.Wake = aio.WakeDeferred })
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
			defer cancel()
			got := make(chan error, 1)
			require.NoError(t, a.Submit(context.Background(), &aio.Request{File: d.File, Buf: make([]byte, 8), Context: ctx,
				Done: func(_ *aio.Request, err error) { got <- err }}))
			select {
			case err := <-got:
				require.ErrorIs(t, err, context.DeadlineExceeded)
				require.ErrorIs(t, err, aio.ErrCanceled)
			case <-time.After(hangLimit):
				t.Fatal("the deadline never canceled the request")
			}
			a.Flush()
			require.NoError(t, a.Close())
			st := a.Stats()
			require.Equal(t, uint64(1), st.Canceled)
			require.Zero(t, st.Batches)
			requireBalanced(t, st)
		})
	}
}

// A request's Context that has already ended refuses it at Submit, as an
// ended ctx does: counted as submitted and canceled, Done never called.
func TestSubmitRefusesARequestWhoseContextEnded(t *testing.T) {
	a := newArray(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := a.Submit(context.Background(), &aio.Request{Buf: make([]byte, 8), Context: ctx,
		Done: func(*aio.Request, error) { t.Error("Done of a refused request") }})
	require.ErrorIs(t, err, context.Canceled)
	st := a.Stats()
	require.Equal(t, uint64(1), st.Canceled)
	requireBalanced(t, st)
}

// A synchronous read whose ctx ends while it waits in its slot returns at
// once with 0 bytes and ErrCanceled; it was never issued.
func TestReadAtCanceledWhileQueuedReturnsErrCanceled(t *testing.T) {
	for _, d := range drivers(t) {
		t.Run(d.String(), func(t *testing.T) {
			rec := &recorder{open: make(chan struct{}), in: make(chan struct{}, 1)}
			a := newDriverArray(t, d, func(c *aio.Config) {
				c.Wake, c.Backend, c.ReadSegments = aio.WakeTargeted, rec, 1
			}, plugIfNative(d)...)
			held := make(chan error, 1)
			require.NoError(t, a.Submit(context.Background(), &aio.Request{File: d.File, Buf: make([]byte, 8),
				Done: func(_ *aio.Request, err error) { held <- err }}))
			<-rec.in
			rec.in = nil
			ctx, cancel := context.WithCancel(context.Background())
			type result struct {
				n   int
				err error
			}
			got := make(chan result, 1)
			var file aio.File // the recorder's reads ignore it; native reads need one
			if d.native {
				file = uncachedFile(t, 4*page) // else ReadAt reads it on this goroutine, never queued
			}
			go func() {
				n, err := a.ReadAt(ctx, file, make([]byte, 8), page)
				got <- result{n, err}
			}()
			require.Eventually(t, func() bool { return a.Stats().InFlight == 2 }, hangLimit, time.Millisecond)
			cancel()
			select {
			case r := <-got:
				require.Zero(t, r.n)
				require.ErrorIs(t, r.err, aio.ErrCanceled)
				require.ErrorIs(t, r.err, context.Canceled)
			case <-time.After(hangLimit):
				t.Fatal("ReadAt did not return when its context ended")
			}
			close(rec.open)
			require.NoError(t, <-held)
			require.NoError(t, a.Close())
			st := a.Stats()
			require.Equal(t, uint64(1), st.Canceled)
			require.Equal(t, int64(1), rec.calls.Load(), "the canceled read was never issued")
			requireBalanced(t, st)
		})
	}
}

// ExampleRequest_context cancels a queued request through its Context.
func ExampleRequest_context() {
	cfg := aio.DefaultConfig()
	cfg.Wake, cfg.Backend = aio.WakeDeferred, &aio.Latency{} // nothing is issued before Flush
	a, err := aio.New(cfg)
	if err != nil {
		panic(err)
	}
	defer a.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	r := &aio.Request{Buf: make([]byte, 4096), Context: ctx, Done: func(_ *aio.Request, err error) { done <- err }}
	if err := a.Submit(context.Background(), r); err != nil {
		panic(err)
	}
	cancel() // the request still waits for its Flush: it leaves without being issued
	err = <-done
	fmt.Println(errors.Is(err, aio.ErrCanceled), errors.Is(err, context.Canceled), a.Stats().Canceled)
	// Output: true true 1
}
