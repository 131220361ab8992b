package concurrency

import (
	"context"
	"sync/atomic"

	"golang.org/x/sync/semaphore"
)

// Semaphore is the baseline a Go programmer would reach for: a
// golang.org/x/sync/semaphore.Weighted of the limit, each seat a weight of 1.
// Tickets and force enter/exit keep the Gate meaning (they live in the Thread);
// ForceEnter takes a seat only if one is free, since a Weighted cannot go over
// its size — a real difference from InnoDB. The limit is fixed.
//
// So that the baseline costs what x/sync costs, Semaphore counts only waits, on
// its slow path (Waits, WaitsAdmitted, Canceled, Waiting; Waits balances as in
// Stats): an enter first tries TryAcquire, which takes the same mutex an
// uncontended Acquire would, and counts a wait only when that fails. Enters,
// Exits and Inside stay zero.
type Semaphore struct {
	sem     *semaphore.Weighted // nil for limit 0
	limit   int
	tickets uint32
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
// Acquire(ctx, 1).
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

func (g *Semaphore) forceExit(t *Thread) {
	if !t.inside {
		return
	}
	t.inside = false
	t.tickets = 0
	g.sem.Release(1)
}

// ForceEnter takes a seat if one is free (TryAcquire), with one ticket; a
// Weighted cannot be overbooked, so with no free seat t runs without one.
func (g *Semaphore) ForceEnter(t *Thread) {
	t.mustBeOf(g, "ForceEnter")
	if checkThreads {
		t.mustClaim("ForceEnter")
		defer t.unclaim()
	}
	if g.sem == nil || t.inside || !g.sem.TryAcquire(1) {
		return
	}
	t.inside = true
	t.tickets = 1
	t.gate = g
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
