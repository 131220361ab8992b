package aio_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/innosim/innosim/aio"
	"github.com/innosim/innosim/prio"
	"github.com/stretchr/testify/require"
)

// stressLong reports whether INNOSIM_STRESS=long asks for the long stress runs
// (a million requests per configuration) instead of the short default.
func stressLong() bool { return os.Getenv("INNOSIM_STRESS") == "long" }

var errInjected = errors.New("injected backend error")

// faultyBackend does no I/O and fails one call in a hundred (1%), chosen by a
// hash of the call's number, returning no bytes so that every request of the
// batch fails. It counts the bytes of the failed calls: with equal-length
// requests that is the number of requests that must fail.
type faultyBackend struct {
	calls       atomic.Uint64
	injected    atomic.Uint64 // calls failed
	failedBytes atomic.Uint64
}

func (b *faultyBackend) serve(n int) (int, error) {
	k := b.calls.Add(1)
	if (k*0x9E3779B97F4A7C15)>>32%100 == 0 {
		b.injected.Add(1)
		b.failedBytes.Add(uint64(n))
		return 0, errInjected
	}
	return n, nil
}

func (b *faultyBackend) ReadAt(_ aio.File, p []byte, _ int64) (int, error)  { return b.serve(len(p)) }
func (b *faultyBackend) WriteAt(_ aio.File, p []byte, _ int64) (int, error) { return b.serve(len(p)) }

// osThreads returns the process's thread count from /proc/self/status, or -1
// where there is none.
func osThreads() int {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if v, ok := bytes.CutPrefix(sc.Bytes(), []byte("Threads:")); ok {
			n, err := strconv.Atoi(string(bytes.TrimSpace(v)))
			if err != nil {
				return -1
			}
			return n
		}
	}
	return -1
}

// canceler keeps a shared context that it cancels and replaces every 50 µs,
// so that submitters using it are canceled at random points: before Submit,
// or while waiting for a slot in a full array.
type canceler struct {
	cur  atomic.Pointer[context.Context]
	stop chan struct{}
	done chan struct{}
}

func startCanceler() *canceler {
	c := &canceler{stop: make(chan struct{}), done: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	c.cur.Store(&ctx)
	go func() {
		defer close(c.done)
		for {
			select {
			case <-c.stop:
				cancel()
				return
			case <-time.After(50 * time.Microsecond):
			}
			next, nextCancel := context.WithCancel(context.Background())
			c.cur.Store(&next)
			cancel()
			cancel = nextCancel
		}
	}()
	return c
}

func (c *canceler) ctx() context.Context { return *c.cur.Load() }

func (c *canceler) close() { close(c.stop); <-c.done }

// TestStressNothingLost submits requests from many goroutines into small
// arrays (so they fill and submitters wait) through every wake policy and
// handler mode, with 10% of submissions under a context that is canceled at
// random, 0.5% under one already canceled, 1% of backend calls failing, and
// Close called while the submitters are still at it. Then, exactly:
//
//   - every request Submit accepted had Done called once, none other had it;
//   - completed + failed + canceled = submitted, in the Array's Stats and in
//     the test's own counts, and they agree; nothing is in flight;
//   - the requests that failed are exactly those of the failed backend calls;
//   - when Close returns every accepted request is done (Close drains);
//   - no goroutine is left (goleak in TestMain) and, with futex handler
//     threads, no OS thread.
//
// INNOSIM_STRESS=long submits a million requests per configuration.
func TestStressNothingLost(t *testing.T) {
	perConfig := 12_000
	if stressLong() {
		perConfig = 1_000_000
	}
	for _, d := range drivers(t) {
		for _, policy := range d.policies(aio.WakeAll, aio.WakeTargeted, aio.WakeDeferred) {
			t.Run("handlers="+d.String()+"/wake="+policy.String(), func(t *testing.T) {
				stressArray(t, d, policy, perConfig)
			})
		}
	}
}

func stressArray(t *testing.T, d driver, policy aio.WakePolicy, total int) {
	const (
		submitters = 8
		reqLen     = 512
	)
	threadsBefore := osThreads()
	backend := &faultyBackend{}
	cfg := aio.DefaultConfig()
	cfg.ReadSegments, cfg.WriteSegments, cfg.SlotsPerSegment = 8, 8, 2
	cfg.Wake, cfg.Backend = policy, backend
	a, err := d.New(cfg)
	require.NoError(t, err)
	cancels := startCanceler()
	defer cancels.close()

	var (
		done                 = make([]atomic.Int32, total)
		accepted             = make([]bool, total) // by request; each index written by one submitter
		attempts             atomic.Int64
		nAccepted, nCanceled atomic.Uint64
		nClosed              atomic.Uint64
		doneOK, doneFailed   atomic.Uint64
		wrongErr             atomic.Pointer[error]
		closeAt              = int64(total) * 95 / 100
		closing              = make(chan struct{})
		closeOnce            sync.Once
	)
	preCanceled, cancel := context.WithCancel(context.Background())
	cancel()
	var wg sync.WaitGroup
	for s := range submitters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(s), uint64(policy)<<8|uint64(d.handlers)))
			for {
				k := attempts.Add(1) - 1
				if k >= int64(total) {
					return
				}
				if k == closeAt {
					closeOnce.Do(func() { close(closing) })
				}
				ctx := context.Background()
				switch x := rng.IntN(1000); {
				case x < 5:
					ctx = preCanceled
				case x < 105:
					ctx = cancels.ctx()
				}
				r := &aio.Request{
					Op: aio.Op(rng.IntN(2)), Kind: aio.Kind(rng.IntN(3)),
					Hint:   prio.Hint(rng.IntN(9) - 4),
					File:   d.File,
					Offset: rng.Int64N(256) * reqLen, // close together, so batches merge
					Buf:    make([]byte, reqLen),
					Done: func(_ *aio.Request, err error) {
						done[k].Add(1)
						switch {
						case err == nil:
							doneOK.Add(1)
						case errors.Is(err, errInjected):
							doneFailed.Add(1)
						default:
							wrongErr.Store(&err)
						}
					},
				}
				err := a.Submit(ctx, r)
				switch {
				case err == nil:
					accepted[k] = true
					nAccepted.Add(1)
				case errors.Is(err, aio.ErrClosed):
					nClosed.Add(1)
				case errors.Is(err, context.Canceled):
					nCanceled.Add(1)
				default:
					wrongErr.Store(&err)
				}
				if rng.IntN(8) == 0 {
					a.Flush()
				}
			}
		}()
	}

	<-closing
	require.NoError(t, a.Close())
	drained := a.Stats()
	require.Zero(t, drained.InFlight, "Close returned with requests in flight")
	require.Equal(t, drained.Completed+drained.Failed, doneOK.Load()+doneFailed.Load(),
		"when Close returns, every accepted request is done")
	wg.Wait()

	if p := wrongErr.Load(); p != nil {
		t.Fatalf("unexpected error: %v", *p)
	}
	for k := range done {
		want := int32(0)
		if accepted[k] {
			want = 1
		}
		if got := done[k].Load(); got != want {
			t.Fatalf("request %d (accepted %v): Done called %d times", k, accepted[k], got)
		}
	}
	st := a.Stats()
	require.Equal(t, st.Submitted, st.Completed+st.Failed+st.Canceled, "completed + failed + canceled = submitted: %+v", st)
	require.Zero(t, st.InFlight)
	require.Equal(t, nAccepted.Load()+nCanceled.Load(), st.Submitted)
	require.Equal(t, doneOK.Load(), st.Completed)
	require.Equal(t, doneFailed.Load(), st.Failed)
	require.Equal(t, nCanceled.Load(), st.Canceled)
	require.Equal(t, uint64(total), nAccepted.Load()+nCanceled.Load()+nClosed.Load(), "every attempt has one outcome")
	require.Equal(t, backend.failedBytes.Load()/reqLen, st.Failed, "exactly the requests of failed calls failed")
	require.Positive(t, st.Canceled, "some submissions were canceled")
	require.Positive(t, backend.injected.Load(), "some backend calls failed")
	t.Logf("requests %d: accepted %d (completed %d, failed %d), canceled %d, refused after Close %d; "+
		"backend calls %d, injected errors %d; array-full waits %d",
		total, nAccepted.Load(), st.Completed, st.Failed, st.Canceled, nClosed.Load(),
		backend.calls.Load(), backend.injected.Load(), st.ArrayFullWaits)

	if d.handlers == aio.HandlerFutex && threadsBefore > 0 {
		// Each futex handler ran on its own locked OS thread, which ends with
		// its goroutine. The runtime may keep a few idle threads it made
		// meanwhile, but fewer than the handlers (18 here). A native
		// handler's thread is the runtime's, kept for reuse after its
		// io_uring_enter: TestNativeLeavesNoThreadBehind checks that those
		// do not grow with the Arrays.
		require.Eventually(t, func() bool { return osThreads()-threadsBefore < cfg.Segments() },
			5*time.Second, 10*time.Millisecond, "handler threads left: %d before, %d now", threadsBefore, osThreads())
	}
	runtime.GC()
}

// Requests racing with Close from many goroutines, with no other load: each
// is either refused with ErrClosed or completes once, for every handler mode.
func TestStressCloseRacesSubmit(t *testing.T) {
	rounds := 20
	if stressLong() {
		rounds = 500
	}
	for _, d := range drivers(t) {
		t.Run("handlers="+d.String(), func(t *testing.T) {
			for range rounds {
				a := newArrayNoCleanup(t, d)
				var (
					wg                sync.WaitGroup
					accepted, refused atomic.Int64
					done              atomic.Int64
				)
				for range 4 {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for range 50 {
							r := &aio.Request{File: d.File, Buf: make([]byte, 64), Done: func(*aio.Request, error) { done.Add(1) }}
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
				runtime.Gosched()
				require.NoError(t, a.Close())
				wg.Wait()
				require.Equal(t, int64(200), accepted.Load()+refused.Load())
				require.Equal(t, accepted.Load(), done.Load(), "every accepted request completed once")
				st := a.Stats()
				require.Equal(t, uint64(accepted.Load()), st.Submitted)
				require.Equal(t, st.Submitted, st.Completed)
			}
		})
	}
}

func newArrayNoCleanup(t *testing.T, d driver) *aio.Array {
	t.Helper()
	cfg := aio.DefaultConfig()
	cfg.Wake, cfg.SlotsPerSegment, cfg.Backend = aio.WakeTargeted, 4, &aio.Latency{}
	a, err := d.New(cfg)
	require.NoError(t, err)
	return a
}
