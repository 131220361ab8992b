package aio_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/innosim/innosim/aio"
	"github.com/stretchr/testify/require"
)

// TestFullArrayOfAnySegmentCount fills a read array of 1..7 segments of 1 or
// 2 slots, every request routed to its last segment so that the scan must
// wrap, with the I/O held: all segments×slots requests are accepted at once,
// the next waits and honours a canceled context (several at a time), and once
// the I/O is released every accepted request completes exactly once. Run for
// each handler mode and wake policy: it holds route, the scan's wrap, the
// handler's skipped Pick and the array-full wake to what they did before they
// lost their divisions and returned structs.
func TestFullArrayOfAnySegmentCount(t *testing.T) {
	for _, d := range drivers(t) {
		for _, policy := range d.policies(aio.WakeAll, aio.WakeTargeted, aio.WakeDeferred) {
			for segs := 1; segs <= 7; segs++ {
				for _, slots := range []int{1, 2} {
					name := fmt.Sprintf("%s/%s/segments=%d/slots=%d", d, policy, segs, slots)
					t.Run(name, func(t *testing.T) { testFullArray(t, d, policy, segs, slots) })
				}
			}
		}
	}
}

func testFullArray(t *testing.T, d driver, policy aio.WakePolicy, segs, slots int) {
	g := gate{make(chan struct{})}
	cfg := aio.DefaultConfig()
	cfg.Wake, cfg.Backend = policy, g
	cfg.ReadSegments, cfg.WriteSegments, cfg.SlotsPerSegment = segs, 1, slots
	a, err := d.New(cfg)
	require.NoError(t, err)
	released := false
	defer func() {
		if !released {
			close(g.open)
		}
		require.NoError(t, a.Close())
	}()

	capacity := segs * slots
	done := make([]atomic.Int32, capacity)
	last := int64(segs-1) * stripe // the array's last segment: the scan wraps from there
	for k := range capacity {
		// A full array below capacity would make this wait; the deadline
		// turns that into a failure instead of a hang.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err := a.Submit(ctx, &aio.Request{File: d.File, Offset: last + int64(k%2)*page, Buf: make([]byte, 8),
			Done: func(_ *aio.Request, err error) {
				if err == nil {
					done[k].Add(1)
				}
			}})
		cancel()
		require.NoError(t, err, "request %d of %d", k, capacity)
	}
	require.Zero(t, a.Stats().ArrayFullWaits, "the array had room for every one")

	// Full: every further submitter waits until its context ends.
	const waiters = 5
	ctx, cancel := context.WithCancel(context.Background())
	errs := make(chan error, waiters)
	for range waiters {
		go func() {
			errs <- a.Submit(ctx, &aio.Request{File: d.File, Buf: make([]byte, 8), Done: func(*aio.Request, error) {
				t.Error("a canceled request completed")
			}})
		}()
	}
	require.Eventually(t, func() bool { return a.Stats().ArrayFullWaits >= waiters }, 10*time.Second, time.Millisecond)
	cancel()
	for range waiters {
		require.ErrorIs(t, <-errs, context.Canceled)
	}
	st := a.Stats()
	require.Equal(t, uint64(waiters), st.Canceled)
	require.Equal(t, uint64(capacity+waiters), st.Submitted)
	require.Zero(t, st.Completed)
	requireBalanced(t, st)

	close(g.open)
	released = true
	a.Flush()
	require.NoError(t, a.Close())
	for k := range done {
		require.Equal(t, int32(1), done[k].Load(), "request %d", k)
	}
	st = a.Stats()
	require.Equal(t, uint64(capacity), st.Completed)
	require.Zero(t, st.InFlight)
	require.Equal(t, slots, st.MaxPending, "every segment filled (MaxPending is per segment)")
	requireBalanced(t, st)
}

// TestFullArrayUnderLoadOfAnySegmentCount: many submitters against an array of
// 1..7 one-slot segments, so that it is full most of the time, with some
// submitters' contexts canceled while they wait; every accepted request
// completes once and the counters balance.
func TestFullArrayUnderLoadOfAnySegmentCount(t *testing.T) {
	for _, d := range drivers(t) {
		for _, policy := range d.policies(aio.WakeAll, aio.WakeTargeted, aio.WakeDeferred) {
			for _, segs := range []int{1, 3, 5, 6, 7} {
				t.Run(fmt.Sprintf("%s/%s/segments=%d", d, policy, segs), func(t *testing.T) {
					cfg := aio.DefaultConfig()
					cfg.Wake, cfg.Backend = policy, &aio.Latency{}
					cfg.ReadSegments, cfg.WriteSegments, cfg.SlotsPerSegment = segs, segs, 1
					a, err := d.New(cfg)
					require.NoError(t, err)
					var (
						wg                         sync.WaitGroup
						accepted, canceled, served atomic.Int64
					)
					for s := range 8 {
						wg.Add(1)
						go func() {
							defer wg.Done()
							for i := range 100 {
								ctx, cancel := context.Background(), context.CancelFunc(func() {})
								if (s+i)%5 == 0 {
									ctx, cancel = context.WithCancel(ctx)
									cancel() // at once: refused if it must wait
								}
								r := &aio.Request{Op: aio.Op(i % 2), File: d.File, Offset: int64(s*100+i) * stripe / 3,
									Buf: make([]byte, 8), Done: func(*aio.Request, error) { served.Add(1) }}
								switch err := a.Submit(ctx, r); {
								case err == nil:
									accepted.Add(1)
								case errors.Is(err, context.Canceled):
									canceled.Add(1)
								default:
									t.Errorf("Submit: %v", err)
								}
								cancel()
								if i%3 == 0 {
									a.Flush()
								}
							}
							a.Flush()
						}()
					}
					wg.Wait()
					require.NoError(t, a.Close())
					require.Equal(t, int64(800), accepted.Load()+canceled.Load())
					require.Equal(t, accepted.Load(), served.Load(), "every accepted request completed once")
					st := a.Stats()
					require.Equal(t, uint64(accepted.Load()), st.Completed)
					require.Equal(t, uint64(canceled.Load()), st.Canceled)
					require.LessOrEqual(t, st.MaxPending, 1)
					requireBalanced(t, st)
				})
			}
		}
	}
}

// TestWakeAllReachesEveryHandlerInEachMode: a 64+64 array under WakeAll, many
// requests from several submitters, in each handler mode: every handler wakes
// for every request's wake, none is lost (each Done once), and the counts of
// signals match InnoDB's all-segments wake.
func TestWakeAllReachesEveryHandlerInEachMode(t *testing.T) {
	for _, mode := range modes() {
		t.Run(mode.String(), func(t *testing.T) {
			a := newArray(t, func(c *aio.Config) {
				c.Handlers, c.ReadSegments, c.WriteSegments, c.Wake, c.SlotsPerSegment = mode, 64, 64, aio.WakeAll, 2
			})
			const submitters, each = 4, 40
			var served atomic.Int64
			var wg sync.WaitGroup
			for s := range submitters {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range each {
						k := s*each + i
						require.NoError(t, a.Submit(context.Background(), &aio.Request{Op: aio.Op(k % 2),
							Offset: int64(k) * stripe, Buf: make([]byte, 8),
							Done: func(*aio.Request, error) { served.Add(1) }}))
					}
				}()
			}
			wg.Wait()
			require.NoError(t, a.Close())
			require.Equal(t, int64(submitters*each), served.Load())
			st := a.Stats()
			require.Equal(t, uint64(submitters*each), st.Completed)
			// 130 signals per reservation, more if an array-full wait woke all.
			require.GreaterOrEqual(t, st.Signals, uint64(130*submitters*each))
			requireBalanced(t, st)
		})
	}
}

// TestDeferredWaitsForFlushInEverySegment: under WakeDeferred requests spread
// over 7 read and 5 write segments wait until Flush, and one Flush serves them
// all; a Flush with nothing pending signals nothing.
func TestDeferredWaitsForFlushInEverySegment(t *testing.T) {
	for _, d := range drivers(t) {
		t.Run(d.String(), func(t *testing.T) {
			a := newDriverArray(t, d, func(c *aio.Config) {
				c.Wake, c.ReadSegments, c.WriteSegments = aio.WakeDeferred, 7, 5
			})
			a.Flush()
			require.Zero(t, a.Stats().Signals, "Flush with nothing pending")
			const n = 24
			done := make(chan struct{}, n)
			for k := range n {
				require.NoError(t, a.Submit(context.Background(), &aio.Request{Op: aio.Op(k % 2),
					File: d.File, Offset: int64(k) * stripe, Buf: make([]byte, 8),
					Done: func(*aio.Request, error) { done <- struct{}{} }}))
			}
			time.Sleep(20 * time.Millisecond) // handlers that would wrongly serve unflushed requests have had time
			require.Zero(t, a.Stats().Completed, "served before Flush")
			a.Flush()
			for range n {
				<-done
			}
			st := a.Stats()
			require.Equal(t, uint64(n), st.Completed)
			require.Equal(t, uint64(12), st.Signals, "one signal per segment that received requests: 7 read + 5 write")
			a.Flush()
			require.Equal(t, uint64(12), a.Stats().Signals, "a second Flush has nothing to wake")
			requireBalanced(t, st)
		})
	}
}

// TestCloseRacesSubmittersOnAFullArray: Close while many submitters contend for
// a tiny array (3 and 5 one-slot segments), many of them waiting on it full:
// each Submit either is refused with ErrClosed or its request completes once,
// and Close returns only after the last one.
func TestCloseRacesSubmittersOnAFullArray(t *testing.T) {
	for _, d := range drivers(t) {
		for _, policy := range d.policies(aio.WakeAll, aio.WakeTargeted, aio.WakeDeferred) {
			t.Run(d.String()+"/"+policy.String(), func(t *testing.T) {
				for range 10 {
					cfg := aio.DefaultConfig()
					cfg.Wake, cfg.Backend = policy, &aio.Latency{}
					cfg.ReadSegments, cfg.WriteSegments, cfg.SlotsPerSegment = 3, 5, 1
					a, err := d.New(cfg)
					require.NoError(t, err)
					var (
						wg                      sync.WaitGroup
						accepted, refused, done atomic.Int64
					)
					for s := range 8 {
						wg.Add(1)
						go func() {
							defer wg.Done()
							for i := range 40 {
								r := &aio.Request{Op: aio.Op((s + i) % 2), File: d.File, Offset: int64(i) * stripe,
									Buf: make([]byte, 8), Done: func(*aio.Request, error) { done.Add(1) }}
								switch err := a.Submit(context.Background(), r); {
								case err == nil:
									accepted.Add(1)
								case errors.Is(err, aio.ErrClosed):
									refused.Add(1)
								default:
									t.Errorf("Submit: %v", err)
								}
							}
						}()
					}
					for range 20 {
						runtime.Gosched()
					}
					require.NoError(t, a.Close())
					drained := done.Load() // a submitter may not have counted its acceptance yet
					wg.Wait()
					require.Equal(t, int64(320), accepted.Load()+refused.Load())
					require.Equal(t, accepted.Load(), done.Load(), "every accepted request completed once")
					require.Equal(t, drained, done.Load(), "a request completed after Close returned")
					st := a.Stats()
					require.Equal(t, uint64(accepted.Load()), st.Completed)
					requireBalanced(t, st)
				}
			})
		}
	}
}
