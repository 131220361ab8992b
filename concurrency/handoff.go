package concurrency

import "context"

// Handoff is innosim's gate driven for real: a HandoffCore, a goroutine parked on
// its Thread's channel while it waits, and one channel send per handoff. While a
// seat is free and nobody waits, enter is one CAS and exit another, with no
// lock, no clock read and no allocation; a parked waiter costs one channel made once per
// Thread, not per wait.
type Handoff struct {
	core  *HandoffCore
	clock clock
}

var _ Gate = (*Handoff)(nil)

// NewHandoff returns a handoff gate for cfg (Limit, Tickets, Priority, Kickup).
// The error wraps ErrInvalidConfig and names the field out of range.
func NewHandoff(cfg Config) (*Handoff, error) {
	core, err := NewHandoffCore(cfg)
	if err != nil {
		return nil, err
	}
	return &Handoff{core: core, clock: newClock()}, nil
}

// Enter admits t: a ticket, or a free seat by CAS while nobody waits; else t
// parks in its class's queue until an exit (or SetLimit) hands it a seat. It
// returns ctx.Err() if ctx ends first; t then holds no seat, and a seat handed to
// it at that moment goes to the next waiter.
func (g *Handoff) Enter(ctx context.Context, t *Thread) error {
	if g.core.tryEnter(t) {
		return nil
	}
	return g.enterSlow(ctx, t)
}

func (g *Handoff) enterSlow(ctx context.Context, t *Thread) error {
	ch := t.wakeChan() // before queueing: an exit may pick t at once
	d := g.core.enterSlow(t, g.clock.now())
	done := ctx.Done()
	for d.Verdict != Admitted {
		if done == nil { // cannot be canceled: a plain receive is cheaper than select
			<-ch
		} else {
			select {
			case <-ch:
			case <-done:
				r := g.core.Cancel(t, g.clock.now())
				if r.Outcome != Withdrawn {
					<-ch // a seat was handed (or a chance given) to t first: take the wake, pass it on
					wake(r.To)
				}
				return ctx.Err()
			}
		}
		if t.phase != woken {
			return nil // handed a seat
		}
		d = g.core.retry(t, g.clock.now()) // woken to compete (barging)
	}
	return nil
}

// Exit gives t's seat back once its tickets are spent, handing it to exactly one
// waiter if any is queued.
func (g *Handoff) Exit(t *Thread) {
	if !t.inside || t.tickets > 0 {
		return
	}
	g.release(t)
}

// ForceExit gives t's seat back whatever its tickets, handing it on as Exit does.
func (g *Handoff) ForceExit(t *Thread) {
	if !t.inside {
		return
	}
	g.release(t)
}

// release is HandoffCore.release with the clock read only on the slow paths.
// It repeats the core's branches rather than sharing a helper: the extra call
// cost 0.6 ns of the 10 ns uncontended enter and exit.
func (g *Handoff) release(t *Thread) {
	if g.core.barging() {
		if !g.core.free(t) {
			wake(g.core.wakeNext(g.clock.now()).To)
		}
		return
	}
	if g.core.leave(t) {
		return
	}
	wake(g.core.handOff(g.clock.now()).To)
}

// ForceEnter counts t inside regardless of the limit.
func (g *Handoff) ForceEnter(t *Thread) { g.core.ForceEnter(t, 0) }

// SetLimit changes the limit (0..1000) and wakes every waiter that now fits.
func (g *Handoff) SetLimit(n int) error {
	woken, err := g.core.SetLimit(n, g.clock.now())
	for _, w := range woken {
		wake(w)
	}
	return err
}

// Limit returns the current limit.
func (g *Handoff) Limit() int { return g.core.Limit() }

// Stats returns a snapshot of the counters.
func (g *Handoff) Stats() Stats { return g.core.Stats() }
