package aio_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/innosim/innosim/aio"
	"github.com/stretchr/testify/require"
)

// hangLimit turns a deadlock into a failure: far longer than any of these
// calls takes on a loaded machine, so it fires only when the call never
// returns.
const hangLimit = 30 * time.Second

// TestCloseFromDoneIsRefused: Close waits for every handler to exit, so Close
// called from a Done (on a handler thread) waited for itself forever. It must
// return ErrCloseFromDone at once and change nothing: the array still serves
// requests, and Close from another goroutine closes it.
func TestCloseFromDoneIsRefused(t *testing.T) {
	for _, d := range drivers(t) {
		t.Run(d.String(), func(t *testing.T) {
			cfg := aio.DefaultConfig()
			cfg.Wake, cfg.Backend = aio.WakeTargeted, &aio.Latency{}
			a, err := d.New(cfg)
			require.NoError(t, err)
			closeErr := make(chan error, 1)
			require.NoError(t, a.Submit(context.Background(), &aio.Request{File: d.File, Buf: make([]byte, 8),
				Done: func(*aio.Request, error) { closeErr <- a.Close() }}))
			select {
			case err := <-closeErr:
				require.ErrorIs(t, err, aio.ErrCloseFromDone)
			case <-time.After(hangLimit):
				t.Fatal("Close called from a Done never returned")
			}
			done := make(chan error, 1)
			require.NoError(t, a.Submit(context.Background(), &aio.Request{File: d.File, Buf: make([]byte, 8),
				Done: func(_ *aio.Request, err error) { done <- err }}), "the refused Close closed nothing")
			require.NoError(t, <-done)
			require.NoError(t, a.Close())
			st := a.Stats()
			require.Equal(t, uint64(2), st.Completed)
			requireBalanced(t, st)
		})
	}
}

// TestSubmitFromDoneOnAFullArrayIsAccepted: a read array of one segment of
// one slot; the first request's Done submits twice. The first fits in the slot
// its own request freed; the second finds the array full, and the only handler
// that could free a slot is the one running the Done. Submit used to wait for
// it until Close; then it returned ErrArrayFull, which a native Array gave
// where a simulated one, by the timing of its handler, often had a slot. Now
// the request is accepted into the array's overflow queue under every driver,
// Submit returns at once, and it completes once when the slot frees.
func TestSubmitFromDoneOnAFullArrayIsAccepted(t *testing.T) {
	for _, d := range drivers(t) {
		for _, policy := range d.policies(aio.WakeAll, aio.WakeTargeted, aio.WakeDeferred) {
			t.Run(d.String()+"/"+policy.String(), func(t *testing.T) {
				a := newDriverArray(t, d, func(c *aio.Config) {
					c.Wake, c.ReadSegments, c.SlotsPerSegment = policy, 1, 1
				})
				chained, second := make(chan error, 1), make(chan error, 1)
				submitted := make(chan [2]error, 1)
				first := func(*aio.Request, error) {
					var errs [2]error
					errs[0] = a.Submit(context.Background(), &aio.Request{File: d.File, Offset: page, Buf: make([]byte, 8),
						Done: func(_ *aio.Request, err error) { chained <- err }})
					errs[1] = a.Submit(context.Background(), &aio.Request{File: d.File, Offset: 2 * page, Buf: make([]byte, 8),
						Done: func(_ *aio.Request, err error) { second <- err }})
					a.Flush()
					submitted <- errs
				}
				require.NoError(t, a.Submit(context.Background(), &aio.Request{File: d.File, Buf: make([]byte, 8), Done: first}))
				a.Flush()
				var errs [2]error
				select {
				case errs = <-submitted:
				case <-time.After(hangLimit):
					t.Fatal("Submit from a Done waited for a slot only its own handler could free")
				}
				require.NoError(t, errs[0], "a slot was free")
				require.NoError(t, errs[1], "the full array's request is accepted, to wait in the overflow queue")
				require.NoError(t, <-chained)
				select {
				case err := <-second:
					require.NoError(t, err)
				case <-time.After(hangLimit):
					t.Fatal("the overflowed request never completed")
				}
				require.NoError(t, a.Close())
				st := a.Stats()
				require.Equal(t, uint64(3), st.Submitted)
				require.Equal(t, uint64(3), st.Completed)
				require.Equal(t, uint64(1), st.ArrayFullWaits)
				requireBalanced(t, st)
			})
		}
	}
}

// TestSubmitFromAnotherGoroutineStillWaitsOnAFullArray: the refusal above is
// for a Done alone; a submitter on any other goroutine that finds the array
// full still waits for a slot, also while a Done is running.
func TestSubmitFromAnotherGoroutineStillWaitsOnAFullArray(t *testing.T) {
	g := gate{make(chan struct{})}
	a := newArray(t, func(c *aio.Config) {
		c.Wake, c.ReadSegments, c.SlotsPerSegment, c.Backend = aio.WakeTargeted, 1, 1, g
	})
	release := make(chan struct{})
	inDone := make(chan struct{})
	require.NoError(t, a.Submit(context.Background(), &aio.Request{Buf: make([]byte, 8),
		Done: func(*aio.Request, error) { close(inDone); <-release }}))
	close(g.open)
	<-inDone // the handler runs the first Done and holds it there
	require.NoError(t, a.Submit(context.Background(), &aio.Request{Offset: page, Buf: make([]byte, 8),
		Done: func(*aio.Request, error) {}}), "the first request's slot is free")
	blocked := make(chan error, 1)
	go func() {
		blocked <- a.Submit(context.Background(), &aio.Request{Offset: 2 * page, Buf: make([]byte, 8),
			Done: func(*aio.Request, error) {}})
	}()
	require.Eventually(t, func() bool { return a.Stats().ArrayFullWaits >= 1 }, hangLimit, time.Millisecond)
	close(release)
	select {
	case err := <-blocked:
		require.NoError(t, err, "the waiting submitter got a slot, not an error")
	case <-time.After(hangLimit):
		t.Fatal("the waiting submitter never got a slot")
	}
	require.False(t, errors.Is(a.Close(), aio.ErrCloseFromDone))
	requireBalanced(t, a.Stats())
}
