package aiobench

import (
	"context"
	"runtime"
	"sync"
	"testing"

	"github.com/innosim/innosim/aio"
	"github.com/innosim/innosim/internal/futex"
)

// Page is the request size in bytes (InnoDB's default page size), and Stripe
// the 64-page stripe of the file that maps to one segment.
const (
	Page   = 16 << 10
	Stripe = 64 * Page
)

// Submitters is the number of submitting goroutines of every case (study D's
// load: a few query threads issuing reads one at a time).
const Submitters = 4

// Split runs body(j, n) on Submitters goroutines that share b.N between them
// (n is submitter j's share) and returns when all have.
func Split(b *testing.B, body func(j, n int)) {
	var wg sync.WaitGroup
	for j := range Submitters {
		n := b.N / Submitters
		if j < b.N%Submitters {
			n++
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			body(j, n)
		}()
	}
	wg.Wait()
}

// Offset is the byte offset of submitter j's i-th request: a page of segment
// (j + Submitters×i) mod handlers, two pages from any other submitter's.
func Offset(j, i, handlers int) int64 { return offset(j, i, handlers, Submitters) }

// offset is Offset with submitters submitters (Predict's Config.Submitters).
func offset(j, i, handlers, submitters int) int64 {
	seg := (j + submitters*i) % handlers
	return int64(seg)*Stripe + int64(2*j)*Page
}

// Wake is one case of BenchmarkAIOWake: an aio.Array with handlers read and
// handlers write segments, handler mode mode and wake policy policy, loaded as the
// package comment says. around, if not nil, runs the timed body (it must call
// body exactly once, with the timer running): the benchmark passes its
// futex-share profiler; nil runs the body as it is.
//
// Metrics: wakeups/op and wasted/op (handler wakeups, and those that found
// nothing) and, in futex mode, futex/op (FUTEX_WAIT + FUTEX_WAKE calls on the
// handlers' events). It fails b if a request fails or the completions do not
// balance b.N.
func Wake(b *testing.B, mode aio.HandlerMode, policy aio.WakePolicy, handlers int, around func(b *testing.B, body func())) {
	cfg := aio.DefaultConfig()
	cfg.ReadSegments, cfg.WriteSegments = handlers, handlers
	cfg.Handlers, cfg.Wake = mode, policy
	cfg.Backend = &aio.Latency{}
	a, err := aio.New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer func() {
		if err := a.Close(); err != nil {
			b.Fatal(err)
		}
	}()
	if around == nil {
		around = func(_ *testing.B, body func()) { body() }
	}
	before := a.Stats()
	b.ResetTimer()
	around(b, func() {
		Split(b, func(j, n int) {
			w := newWaiter(mode)
			defer w.close()
			r := &aio.Request{Buf: make([]byte, Page), Done: w.done}
			for i := range n {
				r.Offset = Offset(j, i, handlers)
				if err := a.Submit(context.Background(), r); err != nil {
					b.Error(err)
					return
				}
				a.Flush()
				if err := w.wait(); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
	b.StopTimer()
	st := a.Stats()
	ops := float64(b.N)
	b.ReportMetric(float64(st.Wakeups-before.Wakeups)/ops, "wakeups/op")
	b.ReportMetric(float64(st.WastedWakeups-before.WastedWakeups)/ops, "wasted/op")
	if mode == aio.HandlerFutex {
		b.ReportMetric(float64(st.FutexSyscalls-before.FutexSyscalls)/ops, "futex/op")
	}
	if got := st.Completed - before.Completed; got != uint64(b.N) {
		b.Fatalf("completed %d requests, want %d", got, b.N)
	}
}

// waiter is how a submitter waits for its request's completion: in futex mode an
// OS thread (locked) sleeping on a futex event, like the InnoDB query thread that
// waits for its read; otherwise a goroutine receiving from a channel.
type waiter struct {
	ev     *futex.Event
	ch     chan error
	err    error
	locked bool
}

func newWaiter(mode aio.HandlerMode) *waiter {
	if mode == aio.HandlerFutex {
		runtime.LockOSThread()
		return &waiter{ev: new(futex.Event), locked: true}
	}
	return &waiter{ch: make(chan error, 1)}
}

func (w *waiter) done(_ *aio.Request, err error) {
	if w.ev == nil {
		w.ch <- err
		return
	}
	w.err = err // published by the event's Set
	w.ev.Set()
}

func (w *waiter) wait() error {
	if w.ev == nil {
		return <-w.ch
	}
	for !w.ev.IsSet() {
		w.ev.Wait(w.ev.SignalCount())
	}
	w.ev.Reset()
	return w.err
}

func (w *waiter) close() {
	if w.locked {
		runtime.UnlockOSThread()
	}
}
