package aio_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/innosim/innosim/aio"
	"github.com/stretchr/testify/require"
)

// Every error that a context's end causes wraps both the context's error
// and ErrCanceled, wherever it ended (package doc, "Cancellation"). Submit
// and the synchronous calls refused with the context's error alone when the
// context had ended on entry or ended while they waited for a free slot,
// while a request canceled in its slot wrapped ErrCanceled too: a caller
// testing errors.Is(err, ErrCanceled) missed the first two.
func TestEveryContextEndWrapsErrCanceled(t *testing.T) {
	for _, d := range drivers(t) {
		t.Run(d.String(), func(t *testing.T) {
			g := gate{make(chan struct{})}
			a := newDriverArray(t, d, func(c *aio.Config) {
				c.ReadSegments, c.WriteSegments, c.SlotsPerSegment = 1, 1, 2
				c.Backend, c.Wake = g, aio.WakeTargeted
			})
			release := sync.OnceFunc(func() { close(g.open) })
			defer release() // before newDriverArray's Close, should a check fail
			var done atomic.Int32
			req := func(op aio.Op) *aio.Request {
				return &aio.Request{Op: op, File: d.File, Buf: make([]byte, 8), Done: func(*aio.Request, error) { done.Add(1) }}
			}
			bg := context.Background()
			for range 2 { // the read and write arrays full, their I/O held
				require.NoError(t, a.Submit(bg, req(aio.Read)))
				require.NoError(t, a.Submit(bg, req(aio.Write)))
			}
			ended, cancel := context.WithCancel(bg)
			cancel()
			soon := func() context.Context {
				ctx, cancel := context.WithTimeout(bg, 20*time.Millisecond)
				t.Cleanup(cancel)
				return ctx
			}
			requireCanceled := func(what string, err error, cause error) {
				t.Helper()
				require.ErrorIs(t, err, aio.ErrCanceled, what)
				require.ErrorIs(t, err, cause, what)
			}
			canceled := 0
			for _, op := range []aio.Op{aio.Read, aio.Write} {
				requireCanceled("Submit, ctx ended on entry", a.Submit(ended, req(op)), context.Canceled)
				r := req(op)
				r.Context = ended
				requireCanceled("Submit, Request.Context ended on entry", a.Submit(bg, r), context.Canceled)
				requireCanceled("Submit, ctx ends while it waits for a slot", a.Submit(soon(), req(op)), context.DeadlineExceeded)
				r = req(op)
				r.Context = soon()
				requireCanceled("Submit, Request.Context ends while it waits for a slot", a.Submit(bg, r), context.DeadlineExceeded)
				canceled += 4
			}
			n, err := a.WriteAt(ended, d.File, make([]byte, 8), 0)
			require.Zero(t, n)
			requireCanceled("WriteAt, ctx ended on entry", err, context.Canceled)
			n, err = a.WriteAt(soon(), d.File, make([]byte, 8), 0)
			require.Zero(t, n)
			requireCanceled("WriteAt, ctx ends while it waits for a slot", err, context.DeadlineExceeded)
			n, err = a.ReadAt(ended, d.File, make([]byte, 8), 0)
			require.Zero(t, n)
			requireCanceled("ReadAt, ctx ended on entry", err, context.Canceled)
			canceled += 3
			if !d.native { // native: the sparse file's holes are read from the page cache, with no slot
				n, err = a.ReadAt(soon(), d.File, make([]byte, 8), 0)
				require.Zero(t, n)
				requireCanceled("ReadAt, ctx ends while it waits for a slot", err, context.DeadlineExceeded)
				canceled++
			}
			release()
			require.NoError(t, a.Close())
			require.Equal(t, int32(4), done.Load(), "no refused request's Done ran")
			st := a.Stats()
			require.Equal(t, uint64(canceled), st.Canceled)
			require.Equal(t, uint64(4), st.Completed)
			requireBalanced(t, st)
			require.False(t, errors.Is(aio.ErrClosed, aio.ErrCanceled))
		})
	}
}
