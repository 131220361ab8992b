package concurrency

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// Adaptive is a Handoff gate whose limit is found online by an AIMD controller
// from the time threads spend inside each round (Enter to Exit or ForceExit).
// Each exit adds its sample with two atomic adds; the exit that completes a
// window takes a mutex, asks the controller, and applies a changed limit with
// SetLimit (raising it wakes the waiters that now fit; lowering it evicts
// nobody). It costs two clock reads per round more than Handoff.
//
// The evidence that it helps is a model (TestAIMDFindsAGoodLimit: on an engine
// that scales by the Universal Scalability Law with 64 clients, AIMD settles
// within 20% of the peak throughput, about 2.6 times no limit). On a 2-core
// machine the time inside a CPU burst hardly depends on how many threads are
// inside, so the real-core benchmarks cannot show it.
type Adaptive struct {
	h      *Handoff
	window int64
	count  atomic.Int64
	sum    atomic.Int64 // ns inside, this window

	mu  sync.Mutex
	ctl *AIMD
}

var _ Gate = (*Adaptive)(nil)

// NewAdaptive returns an adaptive gate: cfg configures the Handoff gate (its
// Limit is ignored: the controller's Initial limit is used), aimd the controller.
// The error wraps ErrInvalidConfig and names the field out of range.
func NewAdaptive(cfg Config, aimd AIMDConfig) (*Adaptive, error) {
	ctl, err := NewAIMD(aimd)
	if err != nil {
		return nil, err
	}
	cfg.Limit = ctl.Limit()
	h, err := NewHandoff(cfg)
	if err != nil {
		return nil, err
	}
	return &Adaptive{h: h, ctl: ctl, window: int64(ctl.cfg.Window)}, nil
}

// Enter admits t as Handoff does and starts timing its round inside.
func (a *Adaptive) Enter(ctx context.Context, t *Thread) error {
	if t.ofOtherGate(a) {
		return errOtherGate("Enter")
	}
	if checkThreads {
		if !t.claim() {
			return errShared("Enter")
		}
		defer t.unclaim()
	}
	if err := a.h.enter(ctx, t); err != nil {
		return err
	}
	t.admittedBy(a)
	t.entered = a.h.clock.now()
	return nil
}

// TryEnter admits t without waiting, as Handoff's TryEnter, and starts
// timing its round inside if it does.
func (a *Adaptive) TryEnter(t *Thread) bool {
	t.mustBeOf(a, "TryEnter")
	if checkThreads {
		t.mustClaim("TryEnter")
		defer t.unclaim()
	}
	if !a.h.core.tryAdmit(t) {
		return false
	}
	t.admittedBy(a)
	t.entered = a.h.clock.now()
	return true
}

// Exit ends t's round inside, records its time, and exits as Handoff does.
// It does nothing, and records nothing, if t holds no seat.
func (a *Adaptive) Exit(t *Thread) {
	t.mustBeOf(a, "Exit")
	if checkThreads {
		t.mustClaim("Exit")
		defer t.unclaim()
	}
	if !t.inside {
		return
	}
	a.observe(t)
	a.h.exit(t)
}

// ForceExit ends t's round inside, records its time, and gives the seat back.
func (a *Adaptive) ForceExit(t *Thread) {
	t.mustBeOf(a, "ForceExit")
	if checkThreads {
		t.mustClaim("ForceExit")
		defer t.unclaim()
	}
	if !t.inside {
		return
	}
	a.observe(t)
	a.h.forceExit(t)
}

// ForceEnter takes a seat regardless of the limit and starts timing a round.
func (a *Adaptive) ForceEnter(t *Thread) {
	t.mustBeOf(a, "ForceEnter")
	if checkThreads {
		t.mustClaim("ForceEnter")
		defer t.unclaim()
	}
	a.h.core.ForceEnter(t, 0)
	t.admittedBy(a)
	t.entered = a.h.clock.now()
}

func (a *Adaptive) observe(t *Thread) {
	d := a.h.clock.now() - t.entered
	a.sum.Add(int64(d))
	if a.count.Add(1)%a.window != 0 {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	// The window's sum may hold a sample or two of the next window; the mean is
	// a heuristic's input, not an account.
	mean := time.Duration(a.sum.Swap(0) / a.window)
	if lim, changed := a.ctl.ObserveWindow(mean); changed {
		_ = a.h.SetLimit(lim) // lim is within 1..1000 by construction
	}
}

// SetLimit returns an error wrapping ErrInvalidConfig for an n outside
// 0..MaxLimit, else one wrapping errors.ErrUnsupported unless n is the
// current limit: the controller owns the limit.
func (a *Adaptive) SetLimit(n int) error {
	if err := checkLimit(n); err != nil {
		return err
	}
	if n == a.Limit() {
		return nil
	}
	return errFixedLimit("adaptive")
}

// Limit returns the limit the controller chose last.
func (a *Adaptive) Limit() int { return a.h.Limit() }

// Stats returns the Handoff gate's counters.
func (a *Adaptive) Stats() Stats { return a.h.Stats() }
