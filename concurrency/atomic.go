package concurrency

import (
	"context"
	"runtime"
)

// Atomic is the gate of MySQL 5.6–8.0 driven for real: an AtomicCore and real
// sleeps. A thread that finds no seat sleeps the adaptive delay and tries again;
// nothing ever wakes it early.
type Atomic struct {
	core  *AtomicCore
	clock clock
}

var _ Gate = (*Atomic)(nil)

// NewAtomic returns a MySQL 5.6+ gate for cfg (Limit, Tickets, SleepDelay,
// AdaptiveMaxSleepDelay); start from DefaultConfig for InnoDB's defaults. The
// error wraps ErrInvalidConfig and names the field out of range.
func NewAtomic(cfg Config) (*Atomic, error) {
	core, err := NewAtomicCore(cfg)
	if err != nil {
		return nil, err
	}
	return &Atomic{core: core, clock: newClock()}, nil
}

// Enter admits t, as srv_conc_enter_innodb_with_atomics: a ticket, or a seat by
// increment-and-check, else sleep and try again. It returns ctx.Err() if ctx
// ends while t sleeps; t then holds no seat.
func (g *Atomic) Enter(ctx context.Context, t *Thread) error {
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

func (g *Atomic) enter(ctx context.Context, t *Thread) error {
	err := g.enterSeat(ctx, t)
	if err == nil {
		t.admittedBy(g)
	}
	return err
}

func (g *Atomic) enterSeat(ctx context.Context, t *Thread) error {
	if g.core.tryEnter(t) {
		return nil
	}
	for {
		d := g.core.Enter(t, g.clock.now())
		if d.Verdict == Admitted {
			return nil
		}
		if d.Sleep <= 0 {
			// os_thread_sleep(0): give the processor away rather than spin.
			runtime.Gosched()
		}
		if err := sleepCtx(ctx, d.Sleep); err != nil {
			g.core.Cancel(t, g.clock.now())
			return err
		}
	}
}

// TryEnter admits t without waiting: a ticket, or a seat taken by increment
// (undone if it overbooked), as Enter's first attempt. It reports false,
// changing nothing, where Enter would sleep. It panics as Exit does for a
// Thread of another gate.
func (g *Atomic) TryEnter(t *Thread) bool {
	t.mustBeOf(g, "TryEnter")
	if checkThreads {
		t.mustClaim("TryEnter")
		defer t.unclaim()
	}
	if t.phase != outside || !g.core.tryEnter(t) {
		return false
	}
	t.admittedBy(g)
	return true
}

// Exit gives t's seat back once its tickets are spent; it wakes nobody.
func (g *Atomic) Exit(t *Thread) {
	t.mustBeOf(g, "Exit")
	if checkThreads {
		t.mustClaim("Exit")
		defer t.unclaim()
	}
	g.core.Exit(t, 0)
}

// ForceExit gives t's seat back whatever its tickets; it wakes nobody.
func (g *Atomic) ForceExit(t *Thread) {
	t.mustBeOf(g, "ForceExit")
	if checkThreads {
		t.mustClaim("ForceExit")
		defer t.unclaim()
	}
	g.core.ForceExit(t, 0)
}

// ForceEnter counts t inside regardless of the limit.
func (g *Atomic) ForceEnter(t *Thread) {
	t.mustBeOf(g, "ForceEnter")
	if checkThreads {
		t.mustClaim("ForceEnter")
		defer t.unclaim()
	}
	g.core.ForceEnter(t, 0)
	t.admittedBy(g)
}

// SetLimit changes the limit (0..1000); sleepers see it on their next try.
func (g *Atomic) SetLimit(n int) error {
	_, err := g.core.SetLimit(n, 0)
	return err
}

// Limit returns the current limit.
func (g *Atomic) Limit() int { return g.core.Limit() }

// Stats returns a snapshot of the counters.
func (g *Atomic) Stats() Stats { return g.core.Stats() }
