package concurrency

import (
	"context"
	"runtime"
)

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

// NewHandoff returns a handoff gate for cfg (Limit, Tickets, Priority, Kickup,
// Starvation, LockHolderAllowance).
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
// it at that moment goes to the next waiter. The uncontended enter is inlined
// here (HandoffCore.fastEnter): one load and one CAS, no clock read, no call,
// besides the caller's own Thread (ErrThreadOfOtherGate: two reads and a store).
func (g *Handoff) Enter(ctx context.Context, t *Thread) error {
	if t.ofOtherGate(g) {
		return errOtherGate("Enter")
	}
	if checkThreads {
		if !t.claim() {
			return errShared("Enter")
		}
		err := g.enterSlow(ctx, t)
		if err == nil {
			t.admittedBy(g)
		}
		t.unclaim()
		return err
	}
	if g.core.fastEnter(t) {
		t.admittedBy(g)
		return nil
	}
	err := g.enterSlow(ctx, t)
	if err == nil {
		t.admittedBy(g)
	}
	return err
}

// enter is Enter without the ownership check (for Adaptive).
func (g *Handoff) enter(ctx context.Context, t *Thread) error {
	if g.core.fastEnter(t) {
		return nil
	}
	return g.enterSlow(ctx, t)
}

func (g *Handoff) enterSlow(ctx context.Context, t *Thread) error {
	if g.core.tryEnter(t) {
		return nil
	}
	ch := t.wakeChan() // before queueing: an exit may pick t at once
	d, ok := g.core.enterSlow(t, g.clock.now())
	if !ok {
		return errShared("Enter")
	}
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
					wakeFor(r)
				}
				return ctx.Err()
			}
		}
		if g.core.starvation == 0 {
			return nil // strict: only a handoff wakes a waiter
		}
		// Barging: woken to compete, or handed (or reserved) a seat; t.phase
		// may be written by an exit after the wake was sent (Reserved), so
		// it is read under the core's mutex, in retry.
		d = g.core.retry(t, g.clock.now())
	}
	return nil
}

// TryEnter admits t without waiting, as Enter admits it at once: a ticket,
// a free seat that no queued waiter is owed (in strict handoff, none while
// anyone is queued), or a lock holder's allowance. It reports false, changing
// nothing, where Enter would park t. It reads no clock; it takes the mutex
// only when the lock-free attempt declines. It panics as Exit does for a
// Thread of another gate.
func (g *Handoff) TryEnter(t *Thread) bool {
	t.mustBeOf(g, "TryEnter")
	if checkThreads {
		t.mustClaim("TryEnter")
		defer t.unclaim()
	}
	if !g.core.tryAdmit(t) {
		return false
	}
	t.admittedBy(g)
	return true
}

// Exit gives t's seat back once its tickets are spent, handing it to exactly one
// waiter if any is queued. With Config.Starvation > 0 an exit that wakes a
// waiter, or serves a starving one, then yields the P (runtime.Gosched): the
// calling goroutine goes on after the waiter has run.
func (g *Handoff) Exit(t *Thread) {
	t.mustBeOf(g, "Exit")
	if checkThreads {
		t.mustClaim("Exit")
		defer t.unclaim()
	}
	if !t.inside || t.tickets > 0 || g.core.fastLeave(t) {
		return
	}
	g.release(t)
}

// exit and forceExit are Exit and ForceExit without the ownership check (for
// Adaptive).
func (g *Handoff) exit(t *Thread) {
	if !t.inside || t.tickets > 0 || g.core.fastLeave(t) {
		return
	}
	g.release(t)
}

// ForceExit gives t's seat back whatever its tickets, handing it on as Exit does.
func (g *Handoff) ForceExit(t *Thread) {
	t.mustBeOf(g, "ForceExit")
	if checkThreads {
		t.mustClaim("ForceExit")
		defer t.unclaim()
	}
	if !t.inside || g.core.fastLeave(t) {
		return
	}
	g.release(t)
}

func (g *Handoff) forceExit(t *Thread) {
	if !t.inside || g.core.fastLeave(t) {
		return
	}
	g.release(t)
}

// release is HandoffCore.release with the clock read only where the waiters
// must be looked at; the driver's Exit and ForceExit have tried fastLeave
// first.
func (g *Handoff) release(t *Thread) {
	c := g.core
	if c.starvation > 0 {
		if waitersOf(c.state.Load()) == 0 {
			if !c.free(t) { // a waiter queued since the load
				yieldTo(c.wakeNext(g.clock.now()))
			}
			return
		}
		now := g.clock.now() // waiters exist: the one clock read of a barging exit
		if c.due(now) {
			yieldTo(c.serveDue(t, now))
			return
		}
		if !c.free(t) {
			yieldTo(c.wakeNext(now))
		}
		return
	}
	if c.leave(t) {
		return
	}
	wake(c.handOff(g.clock.now()).To)
}

// yieldTo wakes the thread a barging release names and, if the release gave
// a waiter a seat or a chance at one (HandedOff, Reserved, Woken), yields the
// exiting goroutine's P to it, as a starving sync.Mutex's unlock does
// (semrelease with handoff, then goyield, in Go's runtime/sema.go). A woken
// goroutine goes to the waker's P's runnext slot, but the waker keeps the P
// until it blocks or is preempted (sysmon, after 10 ms of running): without
// the yield, a waker that enters again retakes the seat it woke the waiter
// for, and the waiter runs only after that slice, to find its seat gone or,
// at the Starvation bound, to be served strictly. With it, the waiter runs
// while its seat is still free; its wait lasts a wake instead of a time
// slice, and the waker, which holds no seat, waits for a P instead of the
// waiter. Strict handoff does not yield: an exit there hands a seat on
// every turn of a full gate, and the seat is the waiter's whenever it runs.
func yieldTo(r Release) {
	wakeFor(r)
	switch r.Outcome {
	case HandedOff, Reserved, Woken:
		runtime.Gosched()
	}
}

// ForceEnter counts t inside regardless of the limit.
func (g *Handoff) ForceEnter(t *Thread) {
	t.mustBeOf(g, "ForceEnter")
	if checkThreads {
		t.mustClaim("ForceEnter")
		defer t.unclaim()
	}
	g.core.ForceEnter(t, 0)
	t.admittedBy(g)
}

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
