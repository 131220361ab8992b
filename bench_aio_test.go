package innosim_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/innosim/innosim/aio"
	"github.com/innosim/innosim/internal/aiobench"
	"github.com/innosim/innosim/internal/futex"
	"github.com/innosim/innosim/internal/futexfloor"
)

const (
	aioPage   = aiobench.Page   // InnoDB's default page size
	aioStripe = aiobench.Stripe // the 64-page stripe that maps to one segment
)

var aioWakeHandlers = []int{4, 8, 16, 32, 64}

// BenchmarkAIOWake is study D on real cores (its body is internal/aiobench.Wake,
// which innosim calibrate --check also runs): 4 submitter goroutines each issue
// one read at a time through the Latency backend at zero service time, and wait
// for its completion, so the cost per op is the wake path alone. Each request
// lands in one read segment, submitter j's i-th in segment (j + 4i) mod
// handlers, at pages two apart so that nothing merges. handlers is the number
// of read segments; the write array has as many (study D's 4 + 4 and 16 + 16),
// and wake-all wakes ibuf, log, read and write handlers alike.
//
// Metrics: wakeups/op and wasted/op (handler wakeups, and those that found
// nothing), futex/op (FUTEX_WAIT + FUTEX_WAKE calls on the handlers' events,
// futex mode) and futex-share (share of CPU profile samples in futex or
// runtime-lock code, as bench_test.go). mode=baseline is what a Go programmer
// would write instead: one worker goroutine per segment fed by a channel.
func BenchmarkAIOWake(b *testing.B) {
	modes := []aio.HandlerMode{aio.HandlerGoroutine}
	if futex.Supported() {
		modes = append(modes, aio.HandlerFutex)
	}
	for _, mode := range modes {
		b.Run("mode="+mode.String(), func(b *testing.B) {
			for _, policy := range []aio.WakePolicy{aio.WakeAll, aio.WakeTargeted, aio.WakeDeferred} {
				b.Run("policy="+policy.String(), func(b *testing.B) {
					for _, h := range aioWakeHandlers {
						b.Run(fmt.Sprintf("handlers=%d", h), func(b *testing.B) { aiobench.Wake(b, mode, policy, h, reportFutexShare) })
					}
				})
			}
		})
	}
	b.Run("mode=baseline", func(b *testing.B) {
		for _, h := range aioWakeHandlers {
			b.Run(fmt.Sprintf("handlers=%d", h), func(b *testing.B) { benchAIOWakeBaseline(b, h) })
		}
	})
}

// BenchmarkAIOWakeFloor is BenchmarkAIOWake's futex-mode targeted load with no
// Go and no aio: C threads on raw futex words (internal/futexfloor), submitter j's
// i-th request to handler (j + 4i) mod handlers, each handler on its own futex.
// It is the kernel's part of mode=futex/policy=targeted on this machine, at
// each handler count, before any Go code runs (at 4 handlers each submitter
// only ever talks to one handler). futex/op counts the calls on the handlers'
// futexes, as BenchmarkAIOWake's. Skipped without Linux and cgo.
func BenchmarkAIOWakeFloor(b *testing.B) {
	if !futexfloor.Supported() {
		b.Skip("needs Linux and cgo")
	}
	for _, h := range aioWakeHandlers {
		b.Run(fmt.Sprintf("handlers=%d", h), func(b *testing.B) {
			p, err := futexfloor.Start(aiobench.Submitters, h)
			if err != nil {
				b.Fatal(err)
			}
			defer p.Close()
			b.ResetTimer()
			r, err := p.Run(b.N)
			b.StopTimer()
			if err != nil {
				b.Fatal(err)
			}
			if r.Completed != uint64(b.N) {
				b.Fatalf("served %d requests, want %d", r.Completed, b.N)
			}
			b.ReportMetric(float64(r.HandlerFutexCalls)/float64(b.N), "futex/op")
		})
	}
}

// benchAIOWakeBaseline is the same load on a plain worker pool: one goroutine
// per segment, each fed by its own channel, doing the same Latency read.
func benchAIOWakeBaseline(b *testing.B, handlers int) {
	type job struct {
		off  int64
		buf  []byte
		done chan error
	}
	backend := &aio.Latency{}
	queues := make([]chan job, handlers)
	var workers sync.WaitGroup
	for s := range queues {
		queues[s] = make(chan job, 256)
		workers.Add(1)
		go func() {
			defer workers.Done()
			for jb := range queues[s] {
				_, err := backend.ReadAt(nil, jb.buf, jb.off)
				jb.done <- err
			}
		}()
	}
	defer func() {
		for _, q := range queues {
			close(q)
		}
		workers.Wait()
	}()
	b.ResetTimer()
	reportFutexShare(b, func() {
		aiobench.Split(b, func(j, n int) {
			jb := job{buf: make([]byte, aioPage), done: make(chan error, 1)}
			for i := range n {
				jb.off = aiobench.Offset(j, i, handlers)
				queues[(jb.off/aioStripe)%int64(handlers)] <- jb
				if err := <-jb.done; err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}

const aioFileSize = 256 << 20

// BenchmarkAIOFile reads a 256 MiB file (from the page cache: it was just
// written) in 16 KiB pages through aio, submitted in 64-page batches with
// WakeDeferred so that each batch merges into one 1 MiB pread, against a plain
// sequential loop of 1 MiB ReadAt calls on the same file. MB/s is the figure to
// compare.
func BenchmarkAIOFile(b *testing.B) {
	path := filepath.Join(b.TempDir(), "aiofile")
	if err := writeAIOFile(path); err != nil {
		b.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	b.Run("reader=aio", func(b *testing.B) { benchAIOFileAIO(b, f) })
	b.Run("reader=plain", func(b *testing.B) { benchAIOFilePlain(b, f) })
}

func writeAIOFile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	chunk := make([]byte, 1<<20)
	for i := range chunk {
		chunk[i] = byte(i)
	}
	for range aioFileSize / len(chunk) {
		if _, err := f.Write(chunk); err != nil {
			f.Close()
			return err
		}
	}
	return f.Close()
}

func benchAIOFileAIO(b *testing.B, f *os.File) {
	cfg := aio.DefaultConfig()
	cfg.Wake = aio.WakeDeferred
	cfg.Backend = aio.FileBackend{}
	a, err := aio.New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer func() {
		if err := a.Close(); err != nil {
			b.Fatal(err)
		}
	}()
	// A free list of requests as large as the read array: a request returns to
	// it from its completion, so the submitter never waits for a slot.
	inFlight := cfg.ReadSegments * cfg.SlotsPerSegment
	free := make(chan *aio.Request, inFlight)
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		ioErr  error
		bufs   = mustAlignedBuffer(b, inFlight*aioPage, aioPage)
		onDone = func(r *aio.Request, err error) {
			if err != nil {
				mu.Lock()
				ioErr = err
				mu.Unlock()
			}
			free <- r
			wg.Done()
		}
	)
	for i := range inFlight {
		free <- &aio.Request{File: f, Buf: bufs[i*aioPage : (i+1)*aioPage], Done: onDone}
	}
	b.SetBytes(aioFileSize)
	b.ResetTimer()
	for range b.N {
		for p := range aioFileSize / aioPage {
			r := <-free
			r.Offset = int64(p) * aioPage
			wg.Add(1)
			if err := a.Submit(context.Background(), r); err != nil {
				b.Fatal(err)
			}
			if p%64 == 63 {
				a.Flush()
			}
		}
		a.Flush()
		wg.Wait()
	}
	b.StopTimer()
	if ioErr != nil {
		b.Fatal(ioErr)
	}
	st := a.Stats()
	b.ReportMetric(float64(st.Merges+st.Batches)/float64(st.Batches), "pages/io")
}

func benchAIOFilePlain(b *testing.B, f *os.File) {
	buf := make([]byte, 1<<20)
	b.SetBytes(aioFileSize)
	b.ResetTimer()
	for range b.N {
		for off := int64(0); off < aioFileSize; off += int64(len(buf)) {
			if _, err := f.ReadAt(buf, off); err != nil && err != io.EOF {
				b.Fatal(err)
			}
		}
	}
}

// Native AIO beside simulated AIO (issue: native AIO), in two loads:
//
//   - pattern=random: 16 KiB reads at random pages of a 256 MiB file opened
//     O_DIRECT (on the disk the test's temporary directory is on; the page
//     cache is bypassed), aioNativeDepth of them in flight at all times: each
//     of aioNativeDepth goroutines submits one read, waits for it and
//     submits the next. Through a native Array, through simulated AIO with
//     targeted wake (each handler does one pread at a time, so at most one
//     read per read segment is in flight), and io=pread: the same goroutines
//     each calling pread themselves, the plain Go loop to beat, whose rate is
//     what the device allows at this depth. io=native-plugged is native AIO
//     with aio.WithPlug.
//   - pattern=studyD: aiowake's clients (examples/aiowake): each inserts a
//     leaf page's worth of rows, then splits it: it writes the full leaf and
//     prefetches one or two sibling pages, waiting for that I/O only at its
//     next split. The file is in the page cache, so the cost is the path
//     between submitter and handler: native, simulated targeted, simulated
//     wake-all (futex handler threads, as InnoDB's).
//
// One op is one request (read or write). Metrics: reads/s; syscalls/op, the
// system calls aio makes per request (Stats.Syscalls: native, io_uring_enter
// and io_uring_register; simulated, the preads or pwrites plus
// FUTEX_WAIT/FUTEX_WAKE on the handlers' events with futex handlers;
// goroutine handlers' channel wakes are the runtime's and not counted), one
// pread (io=pread); and wakeups/op and wasted/op.
func BenchmarkAIONative(b *testing.B) {
	if err := nativeAvailable(); err != nil {
		b.Skipf("native AIO unavailable: %v", err)
	}
	b.Run("pattern=random", benchAIONativeRandom)
	b.Run("pattern=studyD", benchAIONativeStudyD)
}

// aioNativeDepth is the queue depth of pattern=random.
const aioNativeDepth = 32

func nativeAvailable() error {
	cfg := aio.DefaultConfig()
	cfg.IO, cfg.Wake = aio.IONative, aio.WakeTargeted
	a, err := aio.New(cfg)
	if err != nil {
		return err
	}
	return a.Close()
}

func benchAIONativeRandom(b *testing.B) {
	path := filepath.Join(b.TempDir(), "aionative")
	if err := writeAIOFile(path); err != nil {
		b.Fatal(err)
	}
	f, err := aio.OpenDirect(path, os.O_RDONLY, 0)
	if err != nil {
		b.Skipf("O_DIRECT: %v", err)
	}
	defer f.Close()
	for _, segs := range []int{4, 16} {
		b.Run(fmt.Sprintf("io=native/segments=%d", segs), func(b *testing.B) {
			cfg := aio.DefaultConfig()
			cfg.ReadSegments, cfg.WriteSegments = segs, segs
			cfg.IO, cfg.Wake = aio.IONative, aio.WakeTargeted
			benchRandomArray(b, f, cfg)
		})
		b.Run(fmt.Sprintf("io=native-plugged/segments=%d", segs), func(b *testing.B) {
			cfg := aio.DefaultConfig()
			cfg.ReadSegments, cfg.WriteSegments = segs, segs
			cfg.IO, cfg.Wake = aio.IONative, aio.WakeTargeted
			benchRandomArray(b, f, cfg, aio.WithPlug())
		})
		for _, mode := range []aio.HandlerMode{aio.HandlerGoroutine, aio.HandlerFutex} {
			if mode == aio.HandlerFutex && !futex.Supported() {
				continue
			}
			b.Run(fmt.Sprintf("io=simulated/handlers=%s/wake=targeted/segments=%d", mode, segs), func(b *testing.B) {
				cfg := aio.DefaultConfig()
				cfg.ReadSegments, cfg.WriteSegments = segs, segs
				cfg.Handlers, cfg.Wake, cfg.Backend = mode, aio.WakeTargeted, aio.FileBackend{}
				benchRandomArray(b, f, cfg)
			})
		}
	}
	// The device's own curve: a plain pread loop per goroutine, at the
	// benchmark's depth and around it.
	for _, g := range []int{1, 4, 16, aioNativeDepth, 2 * aioNativeDepth} {
		b.Run(fmt.Sprintf("io=pread/goroutines=%d", g), func(b *testing.B) {
			start := time.Now()
			runDepth(b, g, func() func(*rand.Rand, []byte) error {
				return func(rng *rand.Rand, buf []byte) error {
					_, err := f.ReadAt(buf, randomPage(rng))
					return err
				}
			})
			reportReads(b, start)
			b.ReportMetric(1, "syscalls/op")
		})
	}
}

// randomPage returns the offset of a random page of the 256 MiB file.
func randomPage(rng *rand.Rand) int64 { return rng.Int64N(aioFileSize/aioPage) * aioPage }

// runDepth runs b.N reads, depth at a time: each of depth goroutines gets its own read function from newRead and an aligned page
// buffer, and calls it until b.N are done. It fails b on an error.
func runDepth(b *testing.B, depth int, newRead func() func(rng *rand.Rand, buf []byte) error) {
	var (
		next sync.WaitGroup
		left atomic.Int64
	)
	left.Store(int64(b.N))
	b.ResetTimer()
	for g := range depth {
		next.Add(1)
		buf := mustAlignedBuffer(b, aioPage, aioPage)
		go func() {
			defer next.Done()
			rng := rand.New(rand.NewPCG(uint64(g), 0x5eed))
			read := newRead()
			for left.Add(-1) >= 0 {
				if err := read(rng, buf); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	next.Wait()
	b.StopTimer()
}

func reportReads(b *testing.B, start time.Time) {
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "reads/s")
}

func benchRandomArray(b *testing.B, f *os.File, cfg aio.Config, opts ...aio.Option) {
	a, err := aio.New(cfg, opts...)
	if err != nil {
		b.Fatal(err)
	}
	defer func() {
		if err := a.Close(); err != nil {
			b.Fatal(err)
		}
	}()
	before := a.Stats()
	start := time.Now()
	runDepth(b, aioNativeDepth, func() func(*rand.Rand, []byte) error {
		done := make(chan error, 1)
		r := &aio.Request{File: f, Done: func(_ *aio.Request, err error) { done <- err }}
		return func(rng *rand.Rand, buf []byte) error {
			r.Offset, r.Buf = randomPage(rng), buf
			if err := a.Submit(context.Background(), r); err != nil {
				return err
			}
			return <-done
		}
	})
	reportReads(b, start)
	reportAIOStats(b, a.Stats(), before)
}

// reportAIOStats reports syscalls/op, wakeups/op and wasted/op between two
// snapshots of one Array's counters.
func reportAIOStats(b *testing.B, st, before aio.Stats) {
	ops := float64(st.Submitted - before.Submitted)
	if ops == 0 {
		return
	}
	b.ReportMetric(float64(st.Syscalls-before.Syscalls)/ops, "syscalls/op")
	b.ReportMetric(float64(st.Wakeups-before.Wakeups)/ops, "wakeups/op")
	b.ReportMetric(float64(st.WastedWakeups-before.WastedWakeups)/ops, "wasted/op")
}

// Study D's pattern (examples/aiowake): rows of 160 bytes into 16 KiB leaves.
const (
	studyDClients = 8
	studyDRow     = 160
	studyDPages   = 8192
)

func benchAIONativeStudyD(b *testing.B) {
	path := filepath.Join(b.TempDir(), "ibdata")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(studyDPages * aioPage); err != nil {
		b.Fatal(err)
	}
	for _, segs := range []int{4, 16} {
		b.Run(fmt.Sprintf("io=native/segments=%d", segs), func(b *testing.B) {
			cfg := aio.DefaultConfig()
			cfg.ReadSegments, cfg.WriteSegments = segs, segs
			cfg.IO, cfg.Wake = aio.IONative, aio.WakeTargeted
			benchStudyD(b, f, cfg)
		})
		for _, policy := range []aio.WakePolicy{aio.WakeTargeted, aio.WakeAll} {
			mode := aio.HandlerGoroutine
			if futex.Supported() {
				mode = aio.HandlerFutex // InnoDB's handler threads are OS threads on events
			}
			b.Run(fmt.Sprintf("io=simulated/handlers=%s/wake=%s/segments=%d", mode, policy, segs), func(b *testing.B) {
				cfg := aio.DefaultConfig()
				cfg.ReadSegments, cfg.WriteSegments = segs, segs
				cfg.Handlers, cfg.Wake, cfg.Backend = mode, policy, aio.FileBackend{}
				benchStudyD(b, f, cfg)
			})
		}
	}
}

// benchStudyD runs studyDClients clients until they have submitted b.N
// requests between them.
func benchStudyD(b *testing.B, f *os.File, cfg aio.Config) {
	a, err := aio.New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer func() {
		if err := a.Close(); err != nil {
			b.Fatal(err)
		}
	}()
	var (
		left   atomic.Int64
		nextPg atomic.Int64
		reads  atomic.Int64
		wg     sync.WaitGroup
	)
	left.Store(int64(b.N))
	before := a.Stats()
	start := time.Now()
	b.ResetTimer()
	for c := range studyDClients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := studyDClient(a, f, uint64(c), &left, &nextPg, &reads); err != nil {
				b.Error(err)
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
	b.ReportMetric(float64(reads.Load())/time.Since(start).Seconds(), "reads/s")
	reportAIOStats(b, a.Stats(), before)
}

// studyDClient inserts rows into its leaf; at each split it waits for its
// previous split's I/O, writes the full leaf and prefetches one or two
// siblings of the new one, until left runs out.
func studyDClient(a *aio.Array, f *os.File, seed uint64, left, nextPg, reads *atomic.Int64) error {
	rng := rand.New(rand.NewPCG(seed, 0xD))
	leaf, row := make([]byte, aioPage), make([]byte, studyDRow)
	var (
		reqs  [3]aio.Request
		bufs  [3][]byte
		out   sync.WaitGroup
		mu    sync.Mutex
		ioErr error
	)
	for i := range bufs {
		bufs[i] = make([]byte, aioPage)
	}
	done := func(_ *aio.Request, err error) {
		if err != nil {
			mu.Lock()
			ioErr = errors.Join(ioErr, err)
			mu.Unlock()
		}
		out.Done()
	}
	leafPage := nextPg.Add(1) % studyDPages
	for left.Load() > 0 {
		for slot := range aioPage / studyDRow {
			for i := range row {
				row[i] = byte(rng.Uint32())
			}
			copy(leaf[slot*studyDRow:], row)
		}
		out.Wait()
		copy(bufs[0], leaf)
		reqs[0] = aio.Request{Op: aio.Write, File: f, Offset: leafPage * aioPage, Buf: bufs[0], Done: done}
		leafPage = nextPg.Add(1) % studyDPages
		siblings := 1 + rng.IntN(2)
		for s := 1; s <= siblings; s++ {
			sib := (leafPage + int64(s)*(studyDPages/3)) % studyDPages
			reqs[s] = aio.Request{File: f, Offset: sib * aioPage, Buf: bufs[s], Done: done}
		}
		for s := 0; s <= siblings; s++ {
			out.Add(1)
			if err := a.Submit(context.Background(), &reqs[s]); err != nil {
				out.Done()
				out.Wait()
				return err
			}
		}
		reads.Add(int64(siblings))
		left.Add(-int64(siblings + 1))
	}
	out.Wait()
	mu.Lock()
	defer mu.Unlock()
	return ioErr
}

// mustAlignedBuffer is aio.AlignedBuffer for arguments known to be valid.
func mustAlignedBuffer(tb testing.TB, n, align int) []byte {
	tb.Helper()
	buf, err := aio.AlignedBuffer(n, align)
	if err != nil {
		tb.Fatal(err)
	}
	return buf
}
