package concurrency

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/sync/semaphore"
)

// TestWeightedMatchesXSync runs randomized schedules of Acquire (weights
// 0..size+1, under a context that cannot end, one that is canceled later, or
// one already canceled), TryAcquire, Release of weight held, and cancels of
// waiting Acquire calls, against golang.org/x/sync/semaphore.Weighted and
// Weighted side by side, and requires the same observable outcome after
// every step: which Acquire calls returned and with what, what TryAcquire
// reported, which calls still wait. At the end every context is canceled and
// every weight released, and both must come back to an empty semaphore.
//
// To compare outcomes rather than timings, each step is followed by a settle:
// the test waits until every Acquire it started has either returned or is
// parked in its semaphore's select or receive (read from the goroutines'
// stacks), so a step's effects are complete on both sides before they are
// compared.
func TestWeightedMatchesXSync(t *testing.T) {
	schedules := 150
	if testing.Short() || raceBuild {
		schedules = 40
	}
	for seed := range uint64(schedules) {
		rng := rand.New(rand.NewPCG(seed, 99))
		size := int64(rng.IntN(5))
		d := newDiff(t, seed, size)
		for range 40 {
			d.step(rng)
			if t.Failed() {
				return
			}
		}
		d.finish()
		if t.Failed() {
			return
		}
	}
}

// diffSide is one semaphore of the comparison and the Acquire calls waiting
// on it.
type diffSide struct {
	name    string
	acquire func(ctx context.Context, n int64, res chan<- error) // starts an Acquire in a goroutine
	try     func(n int64) bool
	release func(n int64)
	frame   string // a function on the stack of that goroutine, and only of it
	results map[int]chan error
}

// acquireOnXSync and acquireOnWeighted run one Acquire each, in a goroutine
// the settle finds by their names.
func acquireOnXSync(s *semaphore.Weighted, ctx context.Context, n int64, res chan<- error) {
	res <- s.Acquire(ctx, n)
}

func acquireOnWeighted(s *Weighted, ctx context.Context, n int64, res chan<- error) {
	res <- s.Acquire(ctx, n)
}

type diffCall struct {
	n      int64
	cancel context.CancelFunc // nil: the context cannot end
}

type diff struct {
	t     *testing.T
	seed  uint64
	size  int64
	sides [2]*diffSide
	calls map[int]diffCall // started and not yet returned (the same on both sides)
	next  int
	held  []int64 // weights held, acquired on both sides
	log   []string
}

func newDiff(t *testing.T, seed uint64, size int64) *diff {
	x := semaphore.NewWeighted(size)
	w := NewWeighted(size)
	return &diff{t: t, seed: seed, size: size, calls: map[int]diffCall{}, sides: [2]*diffSide{
		{name: "x/sync", frame: "concurrency.acquireOnXSync", results: map[int]chan error{},
			acquire: func(ctx context.Context, n int64, res chan<- error) { go acquireOnXSync(x, ctx, n, res) },
			try:     x.TryAcquire, release: x.Release},
		{name: "Weighted", frame: "concurrency.acquireOnWeighted", results: map[int]chan error{},
			acquire: func(ctx context.Context, n int64, res chan<- error) { go acquireOnWeighted(w, ctx, n, res) },
			try:     w.TryAcquire, release: w.Release},
	}}
}

func (d *diff) fail(format string, args ...any) {
	d.t.Helper()
	d.t.Errorf("seed %d, size %d: %s\nsteps:\n\t%s", d.seed, d.size, fmt.Sprintf(format, args...), strings.Join(d.log, "\n\t"))
}

func (d *diff) step(rng *rand.Rand) {
	switch x := rng.IntN(10); {
	case x < 4:
		n := int64(rng.IntN(int(d.size) + 1))
		var ctx context.Context = context.Background()
		var cancel context.CancelFunc
		kind := "a context that cannot end"
		switch k := rng.IntN(10); {
		case k < 5:
			if rng.IntN(8) == 0 {
				n = d.size + 1 // never fits: waits for its context
			}
			ctx, cancel = context.WithCancel(ctx)
			kind = "a context canceled later"
		case k < 6:
			var c context.CancelFunc
			ctx, c = context.WithCancel(ctx)
			c()
			kind = "a context already canceled"
		}
		id := d.next
		d.next++
		d.calls[id] = diffCall{n: n, cancel: cancel}
		d.log = append(d.log, fmt.Sprintf("call %d: Acquire(%d) with %s", id, n, kind))
		for _, s := range d.sides {
			res := make(chan error, 1)
			s.results[id] = res
			s.acquire(ctx, n, res)
		}
	case x < 6:
		n := int64(rng.IntN(int(d.size) + 2))
		a, b := d.sides[0].try(n), d.sides[1].try(n)
		d.log = append(d.log, fmt.Sprintf("TryAcquire(%d): %v, %v", n, a, b))
		if a != b {
			d.fail("TryAcquire(%d): x/sync %v, Weighted %v", n, a, b)
			return
		}
		if a {
			d.held = append(d.held, n)
		}
	case x < 9:
		if len(d.held) == 0 {
			return
		}
		i := rng.IntN(len(d.held))
		n := d.held[i]
		if n > 1 && rng.IntN(3) == 0 {
			n = 1 + rng.Int64N(n) // part of it
			d.held[i] -= n
		} else {
			d.held = slices.Delete(d.held, i, i+1)
		}
		d.log = append(d.log, fmt.Sprintf("Release(%d)", n))
		for _, s := range d.sides {
			s.release(n)
		}
	default:
		var ids []int
		for id, c := range d.calls {
			if c.cancel != nil {
				ids = append(ids, id)
			}
		}
		if len(ids) == 0 {
			return
		}
		slices.Sort(ids)
		id := ids[rng.IntN(len(ids))]
		d.log = append(d.log, fmt.Sprintf("cancel call %d", id))
		d.calls[id].cancel() // one context, shared by both sides' calls
	}
	d.settle()
}

// settle waits until every call started on each side has returned or is
// parked, then requires both sides to have returned the same calls with the
// same results.
func (d *diff) settle() {
	d.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		returned := [2]map[int]error{{}, {}}
		for i, s := range d.sides {
			for id, res := range s.results {
				select {
				case err := <-res:
					returned[i][id] = err
					res <- err // put it back until both sides are settled
				default:
				}
			}
		}
		stacks := goroutineStacks()
		settled := true
		for i, s := range d.sides {
			if parkedIn(stacks, s.frame) != len(s.results)-len(returned[i]) {
				settled = false
			}
		}
		if !settled {
			if time.Now().After(deadline) {
				d.fail("not settled after 10 s:\n%s", stacks)
				return
			}
			runtime.Gosched()
			time.Sleep(20 * time.Microsecond)
			continue
		}
		for id := range returned[0] {
			if _, ok := returned[1][id]; !ok {
				d.fail("call %d returned on x/sync (%v) and waits on Weighted", id, returned[0][id])
				return
			}
		}
		for id, err := range returned[1] {
			xerr, ok := returned[0][id]
			if !ok {
				d.fail("call %d returned on Weighted (%v) and waits on x/sync", id, err)
				return
			}
			if err != xerr {
				d.fail("call %d: x/sync returned %v, Weighted %v", id, xerr, err)
				return
			}
			for _, s := range d.sides {
				<-s.results[id]
				delete(s.results, id)
			}
			d.log = append(d.log, fmt.Sprintf("  call %d returned %v", id, err))
			if err == nil {
				d.held = append(d.held, d.calls[id].n)
			}
			if c := d.calls[id].cancel; c != nil {
				c()
			}
			delete(d.calls, id)
		}
		return
	}
}

// finish cancels every context and releases every weight until nothing waits,
// then requires both semaphores to be whole again.
func (d *diff) finish() {
	d.log = append(d.log, "finish: cancel all, release all")
	for _, c := range d.calls {
		if c.cancel != nil {
			c.cancel()
		}
	}
	d.settle()
	for len(d.calls) > 0 || len(d.held) > 0 {
		if len(d.held) == 0 {
			d.fail("%d calls wait with nothing held", len(d.calls))
			return
		}
		n := d.held[0]
		d.held = d.held[1:]
		for _, s := range d.sides {
			s.release(n)
		}
		d.settle()
		if d.t.Failed() {
			return
		}
	}
	for _, s := range d.sides {
		if !s.try(d.size) {
			d.fail("%s: not whole again at the end", s.name)
			return
		}
		s.release(d.size)
	}
}

func goroutineStacks() string {
	buf := make([]byte, 1<<16)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return string(buf[:n])
		}
		buf = make([]byte, 2*len(buf))
	}
}

// parkedIn counts the goroutines blocked in a select or a channel receive
// whose stack holds frame.
func parkedIn(stacks, frame string) int {
	n := 0
	for _, g := range strings.Split(stacks, "\n\n") {
		header, _, _ := strings.Cut(g, "\n")
		if (strings.Contains(header, "[select") || strings.Contains(header, "[chan receive")) && strings.Contains(g, frame+"(") {
			n++
		}
	}
	return n
}
