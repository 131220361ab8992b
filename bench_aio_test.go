package innosim_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"

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
		bufs   = aio.AlignedBuffer(inFlight*aioPage, aioPage)
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
