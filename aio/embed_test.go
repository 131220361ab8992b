package aio_test

import (
	"context"
	"errors"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"github.com/innosim/innosim/aio"
	"github.com/stretchr/testify/require"
)

// A Request submitted again while the Array still holds it was accepted a
// second time, and its one Done ran twice. Submit refuses it with
// ErrInFlight and counts nothing; once Done has been called the Request may
// be submitted again, from its own Done too.
func TestSubmitRefusesARequestInFlight(t *testing.T) {
	for _, d := range drivers(t) {
		t.Run(d.String(), func(t *testing.T) {
			a := newDriverArray(t, d, func(c *aio.Config) { c.Wake = aio.WakeDeferred })
			var calls atomic.Int32
			resubmitted := make(chan error, 1)
			again := make(chan error, 1)
			r := &aio.Request{File: d.File, Buf: make([]byte, 8)}
			r.Done = func(r *aio.Request, err error) {
				switch calls.Add(1) {
				case 1:
					resubmitted <- a.Submit(context.Background(), r) // from its own Done
					a.Flush()
				case 2:
					again <- err
				default:
					t.Error("Done ran a third time")
				}
			}
			require.NoError(t, a.Submit(context.Background(), r))
			err := a.Submit(context.Background(), r)
			require.ErrorIs(t, err, aio.ErrInFlight)
			require.Equal(t, uint64(1), a.Stats().Submitted, "the refused submission is not counted")
			a.Flush()
			require.NoError(t, <-resubmitted, "a Request may be submitted again from its own Done")
			require.NoError(t, <-again)
			require.NoError(t, a.Close())
			st := a.Stats()
			require.Equal(t, int32(2), calls.Load())
			require.Equal(t, uint64(2), st.Completed)
			requireBalanced(t, st)
		})
	}
}

// Submit after Close returns ErrClosed whatever its context: with a
// canceled one it returned the context's error (and counted a canceled
// request), which hid that the Array was closed.
func TestSubmitAfterCloseIsErrClosedEvenWithACanceledContext(t *testing.T) {
	for _, d := range drivers(t) {
		t.Run(d.String(), func(t *testing.T) {
			a := newDriverArray(t, d, func(c *aio.Config) { c.Wake = aio.WakeTargeted })
			require.NoError(t, a.Close())
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			err := a.Submit(ctx, &aio.Request{File: d.File, Buf: make([]byte, 8), Done: func(*aio.Request, error) {}})
			require.ErrorIs(t, err, aio.ErrClosed)
			require.False(t, errors.Is(err, context.Canceled))
			_, err = a.ReadAt(ctx, d.File, make([]byte, 8), 0)
			require.ErrorIs(t, err, aio.ErrClosed)
			require.Zero(t, a.Stats().Submitted)
		})
	}
}

// A synchronous call from a Done would wait for the handler thread running
// the Done: it returns ErrCallFromDone at once and submits nothing.
func TestSynchronousCallFromDoneIsRefused(t *testing.T) {
	for _, d := range drivers(t) {
		t.Run(d.String(), func(t *testing.T) {
			a := newDriverArray(t, d, func(c *aio.Config) { c.Wake = aio.WakeTargeted })
			got := make(chan error, 1)
			require.NoError(t, a.Submit(context.Background(), &aio.Request{File: d.File, Buf: make([]byte, 8),
				Done: func(*aio.Request, error) {
					_, err := a.ReadAt(context.Background(), d.File, make([]byte, 8), page)
					got <- err
				}}))
			select {
			case err := <-got:
				require.ErrorIs(t, err, aio.ErrCallFromDone)
			case <-time.After(hangLimit):
				t.Fatal("ReadAt from a Done never returned")
			}
			require.NoError(t, a.Close())
			st := a.Stats()
			require.Equal(t, uint64(1), st.Submitted)
			requireBalanced(t, st)
		})
	}
}

// Stats.Syscalls counts a simulated Array's Backend calls: one per batch
// (a merged batch is one call), so it sits beside Batches.
func TestSimulatedSyscallsCountBackendCalls(t *testing.T) {
	a := newArray(t, func(c *aio.Config) { c.Wake, c.Handlers = aio.WakeDeferred, aio.HandlerGoroutine })
	done := make(chan error, 8)
	for i := range 8 { // consecutive: one merged batch
		require.NoError(t, a.Submit(context.Background(), &aio.Request{Offset: int64(i) * page, Buf: make([]byte, page),
			Done: func(_ *aio.Request, err error) { done <- err }}))
	}
	a.Flush()
	for range 8 {
		require.NoError(t, <-done)
	}
	require.NoError(t, a.Close())
	st := a.Stats()
	require.Equal(t, uint64(1), st.Batches)
	require.Equal(t, uint64(1), st.Syscalls)
	require.InDelta(t, 1.0/8, st.SyscallsPerRequest(), 1e-9)
}

// EmbedConfig is valid, builds an Array, and chose native AIO exactly where
// NativeAvailable says io_uring works.
func TestEmbedConfig(t *testing.T) {
	cfg, opts := aio.EmbedConfig()
	require.NoError(t, cfg.Validate())
	require.Equal(t, aio.WakeTargeted, cfg.Wake)
	require.False(t, cfg.IbufSegment || cfg.LogSegment)
	require.Equal(t, aio.NativeAvailable() == nil, cfg.IO == aio.IONative)
	a, err := aio.New(cfg, opts...)
	require.NoError(t, err)
	f := sparseFile(t)
	buf := alignedBuffer(t, page, page)
	n, err := a.WriteAt(context.Background(), f, buf, page)
	require.NoError(t, err)
	require.Equal(t, page, n)
	require.NoError(t, a.Sync(context.Background(), f))
	require.NoError(t, a.Close())
}

// WithPlug is for native AIO with targeted wake, and New says so where it
// means nothing; a nil Option is refused, not a crash.
func TestOptionsAreRefusedWhereTheyMeanNothing(t *testing.T) {
	for _, c := range []struct {
		io   aio.IOMode
		wake aio.WakePolicy
	}{{aio.IOSimulated, aio.WakeTargeted}, {aio.IONative, aio.WakeDeferred}} {
		cfg := aio.DefaultConfig()
		cfg.IO, cfg.Wake = c.io, c.wake
		_, err := aio.New(cfg, aio.WithPlug())
		require.ErrorIs(t, err, aio.ErrInvalidConfig)
		require.ErrorContains(t, err, "WithPlug")
	}
	_, err := aio.New(aio.DefaultConfig(), nil)
	require.ErrorIs(t, err, aio.ErrInvalidConfig)
}

// The options stay out of Config, which is InnoDB's and which the simulator
// hashes into its cells' seeds: adding fields to it changed every simulated
// figure. Config's fields are these and no others.
func TestConfigHasInnoDBsFieldsOnly(t *testing.T) {
	var names []string
	typ := reflect.TypeOf(aio.Config{})
	for i := range typ.NumField() {
		names = append(names, typ.Field(i).Name)
	}
	require.Equal(t, []string{"ReadSegments", "WriteSegments", "IbufSegment", "LogSegment", "SlotsPerSegment",
		"PageSize", "MergeLimit", "OldAge", "Wake", "Handlers", "Backend", "IO"}, names)
}

// The documented range of SegmentSet is the global segments, 0..129 (2 +
// 2 × MaxSegments): its doc said so while Add's said 0..191.
func TestSegmentSetHoldsEveryGlobalSegment(t *testing.T) {
	var s aio.SegmentSet
	last := 2 + 2*aio.MaxSegments - 1
	for g := 0; g <= last; g += 3 {
		s.Add(g)
	}
	s.Add(last)
	for g := 0; g <= last; g++ {
		require.Equal(t, g%3 == 0 || g == last, s.Has(g), "segment %d", g)
	}
	require.Equal(t, last, s.Next(last))
	require.Equal(t, -1, s.Next(last+1))
}

// Under WakeDeferred nothing is issued before a Flush; a synchronous call,
// which waits, is its own batch and flushes its own segment, where it
// waited for a Flush that nobody would call. Requests submitted to other
// segments still wait for theirs.
func TestSynchronousCallsUnderWakeDeferredFlushTheirSegment(t *testing.T) {
	for _, d := range drivers(t) {
		t.Run(d.String(), func(t *testing.T) {
			a := newDriverArray(t, d, func(c *aio.Config) { c.Wake, c.ReadSegments = aio.WakeDeferred, 2 })
			other := make(chan error, 1)
			require.NoError(t, a.Submit(context.Background(), &aio.Request{File: d.File, Offset: 64 * page, Buf: make([]byte, 8),
				Done: func(_ *aio.Request, err error) { other <- err }})) // the second read segment
			done := make(chan error, 1)
			go func() {
				_, err := a.ReadAt(context.Background(), d.File, make([]byte, 8), 0) // the first
				done <- err
			}()
			select {
			case err := <-done:
				require.NoError(t, err)
			case <-time.After(hangLimit):
				t.Fatal("ReadAt under WakeDeferred waited for a Flush")
			}
			select {
			case err := <-other:
				t.Fatalf("the other segment's request was issued without its Flush: %v", err)
			case <-time.After(20 * time.Millisecond):
			}
			a.Flush()
			require.NoError(t, <-other)
		})
	}
}
