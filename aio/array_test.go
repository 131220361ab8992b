package aio_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/innosim/innosim/aio"
	"github.com/innosim/innosim/internal/futex"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func modes() []aio.HandlerMode {
	if futex.Supported() {
		return []aio.HandlerMode{aio.HandlerGoroutine, aio.HandlerFutex}
	}
	return []aio.HandlerMode{aio.HandlerGoroutine}
}

func newArray(t testing.TB, change func(*aio.Config), opts ...aio.Option) *aio.Array {
	t.Helper()
	cfg := aio.DefaultConfig()
	cfg.Backend = &aio.Latency{}
	if change != nil {
		change(&cfg)
	}
	a, err := aio.New(cfg, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, a.Close()) })
	return a
}

// requireBalanced checks the counter identity of a snapshot.
func requireBalanced(t testing.TB, st aio.Stats) {
	t.Helper()
	require.Equal(t, st.Submitted, st.Completed+st.Failed+st.Canceled+st.InFlight, "counters must balance: %+v", st)
}

// TestEveryAcceptedRequestCompletesOnce runs concurrent submitters of reads and
// writes of every kind through each handler mode and wake policy, and checks
// that each Done runs exactly once and the counters balance.
func TestEveryAcceptedRequestCompletesOnce(t *testing.T) {
	for _, d := range drivers(t) {
		for _, policy := range d.policies(aio.WakeAll, aio.WakeTargeted, aio.WakeDeferred) {
			t.Run(d.String()+"/"+policy.String(), func(t *testing.T) {
				a := newDriverArray(t, d, func(c *aio.Config) {
					c.Wake, c.SlotsPerSegment = policy, 8
				})
				const submitters, each = 4, 300
				done := make([]atomic.Int32, submitters*each)
				var wg sync.WaitGroup
				for s := range submitters {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for i := range each {
							k := s*each + i
							r := &aio.Request{
								Op: aio.Op(k % 2), Kind: aio.Kind(k % 3), File: d.File, Offset: int64(k) * page,
								Buf: make([]byte, 512),
								Done: func(_ *aio.Request, err error) {
									if err == nil {
										done[k].Add(1)
									}
								},
							}
							require.NoError(t, a.Submit(context.Background(), r))
							if k%7 == 0 {
								a.Flush()
							}
						}
						a.Flush()
					}()
				}
				wg.Wait()
				requireBalanced(t, a.Stats())
				require.NoError(t, a.Close())
				for k := range done {
					require.Equal(t, int32(1), done[k].Load(), "request %d", k)
				}
				st := a.Stats()
				requireBalanced(t, st)
				require.Equal(t, uint64(submitters*each), st.Submitted)
				require.Equal(t, uint64(submitters*each), st.Completed)
				require.Zero(t, st.InFlight)
				require.LessOrEqual(t, st.MaxPending, 8)
				if d.handlers == aio.HandlerFutex && !d.native {
					require.NotZero(t, st.FutexSyscalls)
				} else {
					require.Zero(t, st.FutexSyscalls)
				}
				if d.native {
					require.NotZero(t, st.RingSyscalls)
				} else {
					require.Zero(t, st.RingSyscalls)
				}
			})
		}
	}
}

func writeFile(t testing.TB, size int) (string, []byte) {
	t.Helper()
	data := make([]byte, size)
	for i := range data {
		data[i] = byte(i*7 + i/page)
	}
	path := filepath.Join(t.TempDir(), "data")
	require.NoError(t, os.WriteFile(path, data, 0o600))
	return path, data
}

// TestFileBackendReadsMergedPagesCorrectly reads a file page by page through
// WakeDeferred, so each 64-page stripe is merged into one pread, and checks
// every byte.
// plainBackend hides FileBackend's vectored methods, so the driver takes the
// combined-buffer path of InnoDB.
type plainBackend struct{ aio.Backend }

// fileBackends are the two merge paths: preadv/pwritev into the requests'
// buffers, and one combined buffer copied in or out.
var fileBackends = []struct {
	name    string
	backend aio.Backend
}{
	{"vectored", aio.FileBackend{}},
	{"combined buffer", plainBackend{aio.FileBackend{}}},
}

func TestFileBackendReadsMergedPagesCorrectly(t *testing.T) {
	for _, fb := range fileBackends {
		t.Run(fb.name, func(t *testing.T) { testMergedRead(t, driver{}, fb.backend) })
	}
	t.Run("native readv", func(t *testing.T) { requireNative(t); testMergedRead(t, driver{native: true}, nil) })
}

func testMergedRead(t *testing.T, d driver, backend aio.Backend) {
	const pages = 256
	path, data := writeFile(t, pages*page)
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	a := newDriverArray(t, d, func(c *aio.Config) { c.Wake = aio.WakeDeferred; c.Backend = backend })
	got := make([]byte, len(data))
	var wg sync.WaitGroup
	var failures atomic.Int32
	wg.Add(pages)
	for p := range pages {
		r := &aio.Request{File: f, Offset: int64(p) * page, Buf: got[p*page : (p+1)*page],
			Done: func(_ *aio.Request, err error) {
				if err != nil {
					failures.Add(1)
				}
				wg.Done()
			}}
		require.NoError(t, a.Submit(context.Background(), r))
	}
	a.Flush()
	wg.Wait()
	require.Zero(t, failures.Load())
	require.True(t, bytes.Equal(data, got), "merged reads must deliver every page's own bytes")
	st := a.Stats()
	require.Equal(t, uint64(pages), st.Batches+st.Merges)
	require.Greater(t, st.Merges, uint64(pages/2), "a flushed stripe of consecutive pages must merge")
}

func TestFileBackendWritesMergedPagesCorrectly(t *testing.T) {
	for _, fb := range fileBackends {
		t.Run(fb.name, func(t *testing.T) { testMergedWrite(t, driver{}, fb.backend) })
	}
	t.Run("native writev", func(t *testing.T) { requireNative(t); testMergedWrite(t, driver{native: true}, nil) })
}

func testMergedWrite(t *testing.T, d driver, backend aio.Backend) {
	const pages = 128
	path, _ := writeFile(t, pages*page)
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	require.NoError(t, err)
	defer f.Close()
	a := newDriverArray(t, d, func(c *aio.Config) { c.Wake = aio.WakeDeferred; c.Backend = backend })
	want := bytes.Repeat([]byte("innosim!"), pages*page/8)
	var wg sync.WaitGroup
	wg.Add(pages)
	for p := range pages {
		r := &aio.Request{Op: aio.Write, File: f, Offset: int64(p) * page, Buf: want[p*page : (p+1)*page],
			Done: func(_ *aio.Request, err error) { require.NoError(t, err); wg.Done() }}
		require.NoError(t, a.Submit(context.Background(), r))
	}
	a.Flush()
	wg.Wait()
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	require.True(t, bytes.Equal(want, got))
	require.NotZero(t, a.Stats().Merges)
}

func TestShortReadFailsWithUnexpectedEOF(t *testing.T) {
	path, _ := writeFile(t, 3*page/2) // a page and a half
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	cases := append(fileBackends[:len(fileBackends):len(fileBackends)], struct {
		name    string
		backend aio.Backend
	}{"native", nil})
	for _, fb := range cases {
		d := driver{native: fb.name == "native"}
		for _, merged := range []bool{false, true} {
			name := fb.name + "/" + map[bool]string{false: "single", true: "merged"}[merged]
			t.Run(name, func(t *testing.T) {
				if d.native {
					requireNative(t)
				}
				testShortRead(t, f, d, fb.backend, merged)
			})
		}
	}
}

func testShortRead(t *testing.T, f *os.File, d driver, backend aio.Backend, merged bool) {
	a := newDriverArray(t, d, func(c *aio.Config) { c.Wake = aio.WakeDeferred; c.Backend = backend })
	errs := make([]error, 3)
	var wg sync.WaitGroup
	n := 1
	if merged {
		n = 3
	}
	wg.Add(n)
	for p := range n {
		off := int64(p) * page
		if !merged {
			off = page
		}
		r := &aio.Request{File: f, Offset: off, Buf: make([]byte, page),
			Done: func(_ *aio.Request, err error) { errs[p] = err; wg.Done() }}
		require.NoError(t, a.Submit(context.Background(), r))
	}
	a.Flush()
	wg.Wait()
	if merged {
		require.NoError(t, errs[0], "the first page was read in full")
		require.ErrorIs(t, errs[1], io.ErrUnexpectedEOF)
		require.ErrorIs(t, errs[2], io.ErrUnexpectedEOF)
		require.Equal(t, uint64(2), a.Stats().Failed)
		require.Equal(t, uint64(2), a.Stats().Merges, "the three pages went as one I/O")
	} else {
		require.ErrorIs(t, errs[0], io.ErrUnexpectedEOF)
		require.Equal(t, uint64(1), a.Stats().Failed)
	}
	requireBalanced(t, a.Stats())
}

// failing is a Backend whose every call fails.
type failing struct{ err error }

func (b failing) ReadAt(aio.File, []byte, int64) (int, error)  { return 0, b.err }
func (b failing) WriteAt(aio.File, []byte, int64) (int, error) { return 0, b.err }

func TestBackendErrorReachesTheCompletion(t *testing.T) {
	for _, d := range drivers(t) {
		t.Run(d.String(), func(t *testing.T) {
			boom := errors.New("device on fire")
			a := newDriverArray(t, d, func(c *aio.Config) { c.Backend = failing{boom}; c.Wake = aio.WakeTargeted })
			got := make(chan error, 1)
			require.NoError(t, a.Submit(context.Background(), &aio.Request{File: d.File, Buf: make([]byte, 10),
				Done: func(_ *aio.Request, err error) { got <- err }}))
			err := <-got
			require.ErrorIs(t, err, boom)
			require.Contains(t, err.Error(), "read of 10 bytes at offset 0")
			require.NoError(t, a.Close())
			st := a.Stats()
			require.Equal(t, uint64(1), st.Failed)
			requireBalanced(t, st)
		})
	}
}

// gate is a Backend that holds every I/O until released.
type gate struct{ open chan struct{} }

func (g gate) ReadAt(_ aio.File, p []byte, _ int64) (int, error)  { <-g.open; return len(p), nil }
func (g gate) WriteAt(_ aio.File, p []byte, _ int64) (int, error) { <-g.open; return len(p), nil }

func TestFullArrayWaitsAndHonoursTheContext(t *testing.T) {
	for _, d := range drivers(t) {
		t.Run(d.String(), func(t *testing.T) { testFullArrayWaits(t, d) })
	}
}

func testFullArrayWaits(t *testing.T, d driver) {
	g := gate{make(chan struct{})}
	a := newDriverArray(t, d, func(c *aio.Config) {
		c.ReadSegments, c.SlotsPerSegment, c.Backend, c.Wake = 1, 2, g, aio.WakeTargeted
	})
	var done atomic.Int32
	req := func() *aio.Request {
		return &aio.Request{File: d.File, Buf: make([]byte, 8), Done: func(*aio.Request, error) { done.Add(1) }}
	}
	require.NoError(t, a.Submit(context.Background(), req()))
	require.NoError(t, a.Submit(context.Background(), req()))

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	err := a.Submit(ctx, req())
	require.ErrorIs(t, err, context.DeadlineExceeded)
	st := a.Stats()
	require.Equal(t, uint64(1), st.Canceled)
	require.GreaterOrEqual(t, st.ArrayFullWaits, uint64(1))
	requireBalanced(t, st)

	blocked := make(chan error, 1)
	go func() { blocked <- a.Submit(context.Background(), req()) }()
	require.Eventually(t, func() bool { return a.Stats().ArrayFullWaits >= 2 }, 5*time.Second, time.Millisecond)
	close(g.open) // slots free: the blocked submitter gets one
	require.NoError(t, <-blocked)
	require.NoError(t, a.Close())
	require.Equal(t, int32(3), done.Load())
	st = a.Stats()
	require.Equal(t, uint64(4), st.Submitted)
	require.Equal(t, uint64(3), st.Completed)
	requireBalanced(t, st)
}

func TestCloseDrainsAndRefusesNewRequests(t *testing.T) {
	for _, d := range drivers(t) {
		t.Run(d.String(), func(t *testing.T) {
			cfg := aio.DefaultConfig()
			cfg.Wake = aio.WakeDeferred
			cfg.Backend = &aio.Latency{Service: time.Millisecond}
			a, err := d.New(cfg)
			require.NoError(t, err)
			var done atomic.Int32
			for p := range 50 {
				// Never flushed: only Close wakes the handlers (native: submits them).
				require.NoError(t, a.Submit(context.Background(), &aio.Request{File: d.File, Offset: int64(p) * stripe,
					Buf: make([]byte, 8), Done: func(*aio.Request, error) { done.Add(1) }}))
			}
			require.NoError(t, a.Close())
			require.Equal(t, int32(50), done.Load(), "Close drains every accepted request")
			err = a.Submit(context.Background(), &aio.Request{Buf: make([]byte, 8), Done: func(*aio.Request, error) {}})
			require.ErrorIs(t, err, aio.ErrClosed)
			require.NoError(t, a.Close(), "a second Close is harmless")
			st := a.Stats()
			require.Equal(t, uint64(50), st.Completed)
			require.Zero(t, st.WastedWakeups, "Close's wakes are not counted as wasted")
			requireBalanced(t, st)
		})
	}
}

func TestCloseReleasesSubmittersWaitingOnAFullArray(t *testing.T) {
	for _, d := range drivers(t) {
		t.Run(d.String(), func(t *testing.T) { testCloseReleases(t, d) })
	}
}

func testCloseReleases(t *testing.T, d driver) {
	g := gate{make(chan struct{})}
	cfg := aio.DefaultConfig()
	cfg.ReadSegments, cfg.SlotsPerSegment, cfg.Backend = 1, 1, g
	if d.native {
		cfg.Wake = aio.WakeTargeted
	}
	a, err := d.New(cfg)
	require.NoError(t, err)
	var done atomic.Int32
	req := &aio.Request{File: d.File, Buf: make([]byte, 8), Done: func(*aio.Request, error) { done.Add(1) }}
	require.NoError(t, a.Submit(context.Background(), req))
	blocked := make(chan error, 1)
	go func() {
		blocked <- a.Submit(context.Background(), &aio.Request{File: d.File, Buf: make([]byte, 8), Done: func(*aio.Request, error) {}})
	}()
	require.Eventually(t, func() bool { return a.Stats().ArrayFullWaits >= 1 }, 5*time.Second, time.Millisecond)
	closed := make(chan struct{})
	go func() { _ = a.Close(); close(closed) }()
	require.ErrorIs(t, <-blocked, aio.ErrClosed)
	close(g.open)
	<-closed
	require.Equal(t, int32(1), done.Load())
	requireBalanced(t, a.Stats())
}

func TestSubmitRejectsInvalidRequests(t *testing.T) {
	a := newArray(t, nil)
	ok := func(*aio.Request, error) {}
	tests := []struct {
		name string
		req  *aio.Request
	}{
		{"nil request", nil},
		{"no Done", &aio.Request{Buf: make([]byte, 8)}},
		{"empty buffer", &aio.Request{Done: ok}},
		{"negative offset", &aio.Request{Offset: -page, Buf: make([]byte, 8), Done: ok}},
		{"unknown op", &aio.Request{Op: 5, Buf: make([]byte, 8), Done: ok}},
		{"unknown hint", &aio.Request{Hint: 100, Buf: make([]byte, 8), Done: ok}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.ErrorIs(t, a.Submit(context.Background(), tt.req), aio.ErrInvalidRequest)
		})
	}
	require.Zero(t, a.Stats().Submitted)
}

// TestWakeAllWastesWakeupsAndTargetedDoesNot submits one request at a time,
// waiting for each, so every other handler is asleep when the next arrives.
func TestWakeAllWastesWakeupsAndTargetedDoesNot(t *testing.T) {
	for _, mode := range modes() {
		for _, policy := range []aio.WakePolicy{aio.WakeAll, aio.WakeTargeted} {
			t.Run(mode.String()+"/"+policy.String(), func(t *testing.T) {
				a := newArray(t, func(c *aio.Config) { c.Handlers, c.Wake = mode, policy })
				const n = 40
				done := make(chan struct{}, 1)
				for k := range n {
					require.NoError(t, a.Submit(context.Background(), &aio.Request{Offset: int64(k) * stripe,
						Buf: make([]byte, 8), Done: func(*aio.Request, error) { done <- struct{}{} }}))
					<-done
				}
				st := a.Stats()
				if policy == aio.WakeAll {
					require.Equal(t, uint64(n*10), st.Signals, "wake-all signals all 10 handlers per request")
					require.Greater(t, st.WastedWakeups, uint64(n), "most of those wakes find nothing")
				} else {
					require.Equal(t, uint64(n), st.Signals)
					require.LessOrEqual(t, st.WastedWakeups, uint64(n/10), "a targeted wake almost always finds work")
				}
			})
		}
	}
}

// TestWakeAllReachesEveryHandler: with 64 read and 64 write segments the
// array has 130 handlers, past two words of a SegmentSet; one request under
// WakeAll must wake every one of them.
func TestWakeAllReachesEveryHandler(t *testing.T) {
	a := newArray(t, func(c *aio.Config) { c.ReadSegments, c.WriteSegments, c.Wake = 64, 64, aio.WakeAll })
	done := make(chan struct{}, 1)
	require.NoError(t, a.Submit(context.Background(), &aio.Request{Buf: make([]byte, 8),
		Done: func(*aio.Request, error) { done <- struct{}{} }}))
	<-done
	require.Equal(t, uint64(130), a.Stats().Signals)
	require.Eventually(t, func() bool { return a.Stats().Wakeups == 130 }, 10*time.Second, time.Millisecond,
		"every handler wakes once")
}

func TestAlignedBuffer(t *testing.T) {
	for _, align := range []int{1, 512, 4096, 16384} {
		b := alignedBuffer(t, 3*align, align)
		require.Len(t, b, 3*align)
		require.Zero(t, uintptrOf(b)%uintptr(align))
	}
}

// Bad arguments used to be clamped in silence (an align of 3 or 0 gave an
// unaligned buffer, n = 0 gave nil) or to panic in make (n near MaxInt).
func TestAlignedBufferRefusesBadArguments(t *testing.T) {
	tests := []struct {
		name     string
		n, align int
		want     string
	}{
		{"zero align", 4096, 0, "align = 0, want a power of two in 1..1073741824"},
		{"negative align", 4096, -4096, "align = -4096, want a power of two"},
		{"align not a power of two", 3000, 3000, "align = 3000, want a power of two"},
		{"align above MaxAlignment", 1 << 31, 1 << 31, "align = 2147483648, want a power of two in 1..1073741824"},
		{"zero size", 0, 4096, "n = 0, want 1..2147479552 bytes (MaxBufferSize)"},
		{"negative size", -1, 4096, "n = -1, want 1..2147479552"},
		{"size near MaxInt", math.MaxInt, 1, "n = 9223372036854775807, want 1..2147479552"},
		{"size not a multiple of align", 1000, 4096, "n = 1000, want a multiple of align (4096)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			buf, err := aio.AlignedBuffer(tt.n, tt.align)
			require.ErrorIs(t, err, aio.ErrInvalidConfig)
			require.ErrorContains(t, err, "aio: AlignedBuffer: "+tt.want)
			require.Nil(t, buf)
		})
	}
}

// alignedBuffer is aio.AlignedBuffer for arguments known to be valid.
func alignedBuffer(tb testing.TB, n, align int) []byte {
	tb.Helper()
	buf, err := aio.AlignedBuffer(n, align)
	require.NoError(tb, err)
	return buf
}

// TestDeferredRequestWaitsForFlushEvenBeforeHandlersRun: under WakeDeferred a
// request waits for Flush, also one reserved before its handler goroutine has
// first run. With one P the handlers New starts cannot run before Submit; a
// handler that looked at its segment before waiting for its first wake served
// such a request unflushed (and a merge test flaked when it caught the first of
// three requests alone).
func TestDeferredRequestWaitsForFlushEvenBeforeHandlersRun(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	a := newArray(t, func(c *aio.Config) { c.Wake = aio.WakeDeferred })
	done := make(chan error, 1)
	r := &aio.Request{Buf: make([]byte, 8), Done: func(_ *aio.Request, err error) { done <- err }}
	require.NoError(t, a.Submit(context.Background(), r))
	time.Sleep(20 * time.Millisecond) // the handlers run and park
	select {
	case <-done:
		t.Fatal("a deferred request was served before Flush")
	default:
	}
	a.Flush()
	require.NoError(t, <-done)
}
