package concurrency

import (
	"context"
	"sync/atomic"

	"golang.org/x/sync/semaphore"
)

// Semaphore is a Gate whose seats are counted by the baseline a Go programmer
// would reach for: a golang.org/x/sync/semaphore.Weighted of the limit, each
// seat a weight of 1. Taking a seat has x/sync's semantics: Enter fails with
// ctx.Err() on a context already done even when a seat is free, as Acquire
// does, and TryEnter is TryAcquire. The rest is the Gate protocol, which is
// not acquire/release: tickets live in the Thread, so Exit keeps the seat
// while t has tickets (end a statement with ForceExit or Statement); for a
// plain semaphore use Weighted. ForceEnter takes a seat regardless of the
// limit, as in every gate: when the Weighted is full the seat is counted
// beyond it, and the next seat given back, whoever gives it, pays that debt
// instead of releasing weight, so the count comes back under the limit as
// Handoff's does. The limit is fixed.
//
// So that the baseline costs what x/sync costs, Semaphore counts only waits, on
// its slow path (Waits, WaitsAdmitted, Canceled, Waiting; Waits balances as in
// Stats): an enter first tries TryAcquire, which takes the same mutex an
// uncontended Acquire would, and counts a wait only when that fails; an Enter
// refused for a done context counts as a wait canceled at once. Enters,
// Exits and Inside stay zero.
type Semaphore struct {
	sem     *semaphore.Weighted // nil for limit 0
	limit   int
	tickets uint32
	over    atomic.Int64 // seats taken by ForceEnter beyond a full sem, not yet given back
	waiting atomic.Int64
	stats   counters
}

var _ Gate = (*Semaphore)(nil)

// NewSemaphore returns a semaphore gate for cfg (Limit, Tickets). Limit 0 admits
// everyone without touching the semaphore. The error wraps ErrInvalidConfig.
func NewSemaphore(cfg Config) (*Semaphore, error) {
	cfg, err := cfg.validate()
	if err != nil {
		return nil, err
	}
	g := &Semaphore{limit: cfg.Limit, tickets: uint32(cfg.Tickets)}
	if cfg.Limit > 0 {
		g.sem = semaphore.NewWeighted(int64(cfg.Limit))
	}
	return g, nil
}

// Enter spends a ticket, or takes a seat with TryAcquire(1), else waits in
// Acquire(ctx, 1). A ctx already done fails the enter before a seat is taken,
// as x/sync's Acquire; a ticket enter takes no seat and does not look at ctx.
func (g *Semaphore) Enter(ctx context.Context, t *Thread) error {
	if t.ofOtherGate(g) {
		return errOtherGate("Enter")
	}
	if checkThreads {
		if !t.claim() {
			return errShared("Enter")
		}
		err := g.enter(ctx, t)
		t.unclaim()
		return err
	}
	return g.enter(ctx, t)
}

func (g *Semaphore) enter(ctx context.Context, t *Thread) error {
	if t.tickets > 0 {
		t.tickets--
		return nil
	}
	if g.sem == nil || t.inside {
		return nil
	}
	if done := ctx.Done(); done != nil {
		select {
		case <-done:
			g.stats.waits.Add(1)
			g.stats.canceled.Add(1)
			return ctx.Err()
		default:
		}
	}
	if !g.sem.TryAcquire(1) {
		g.waiting.Add(1)
		g.stats.waits.Add(1)
		err := g.sem.Acquire(ctx, 1)
		g.waiting.Add(-1)
		if err != nil {
			g.stats.canceled.Add(1)
			return err
		}
		g.stats.waitsAdmitted.Add(1)
	}
	t.inside = true
	t.tickets = g.tickets
	t.gate = g
	return nil
}

// Exit releases t's seat once its tickets are spent.
func (g *Semaphore) Exit(t *Thread) {
	t.mustBeOf(g, "Exit")
	if checkThreads {
		t.mustClaim("Exit")
		defer t.unclaim()
	}
	if t.tickets == 0 {
		g.forceExit(t)
	}
}

// ForceExit releases t's seat whatever its tickets.
func (g *Semaphore) ForceExit(t *Thread) {
	t.mustBeOf(g, "ForceExit")
	if checkThreads {
		t.mustClaim("ForceExit")
		defer t.unclaim()
	}
	g.forceExit(t)
}

// forceExit gives t's seat back: it pays a seat counted beyond the limit if
// there is one (the Weighted stays full, as the count is still at or above
// the limit), else releases a weight of 1.
func (g *Semaphore) forceExit(t *Thread) {
	if !t.inside {
		return
	}
	t.inside = false
	t.tickets = 0
	for {
		o := g.over.Load()
		if o == 0 {
			g.sem.Release(1)
			return
		}
		if g.over.CompareAndSwap(o, o-1) {
			return
		}
	}
}

// ForceEnter gives t a seat regardless of the limit, with one ticket: a free
// one if TryAcquire finds it, else one counted beyond the full Weighted (see
// Semaphore). It does nothing with limit 0 or if t is inside.
func (g *Semaphore) ForceEnter(t *Thread) {
	t.mustBeOf(g, "ForceEnter")
	if checkThreads {
		t.mustClaim("ForceEnter")
		defer t.unclaim()
	}
	if g.sem == nil || t.inside {
		return
	}
	if !g.sem.TryAcquire(1) {
		g.over.Add(1)
	}
	t.inside = true
	t.tickets = 1
	t.gate = g
}

// TryEnter admits t without waiting, as x/sync's TryAcquire: a ticket, or a
// free seat while nobody waits. It reports false, changing nothing, when t
// would have to wait. It panics as Exit does for a Thread of another gate.
func (g *Semaphore) TryEnter(t *Thread) bool {
	t.mustBeOf(g, "TryEnter")
	if checkThreads {
		t.mustClaim("TryEnter")
		defer t.unclaim()
	}
	if t.tickets > 0 {
		t.tickets--
		return true
	}
	if g.sem == nil || t.inside {
		return true
	}
	if !g.sem.TryAcquire(1) {
		return false
	}
	t.inside = true
	t.tickets = g.tickets
	t.gate = g
	return true
}

// SetLimit returns an error wrapping ErrInvalidConfig for an n outside
// 0..MaxLimit, else one wrapping errors.ErrUnsupported unless n is the
// current limit: a Weighted cannot be resized.
func (g *Semaphore) SetLimit(n int) error {
	if err := checkLimit(n); err != nil {
		return err
	}
	if n == g.limit {
		return nil
	}
	return errFixedLimit("semaphore")
}

// Limit returns the fixed limit.
func (g *Semaphore) Limit() int { return g.limit }

// Stats returns the wait counters (see Semaphore); the rest are zero.
func (g *Semaphore) Stats() Stats { return g.stats.snapshot(0, g.waiting.Load()) }
