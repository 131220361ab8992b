package concurrency

import (
	"context"
	"sync"
)

// Queue is the legacy gate of MySQL 5.5 driven for real: one sync.Mutex (the
// srv_conc_mutex) around a QueueCore, a sleep before queueing, and a channel per
// waiting thread as its event (os_event_t in 5.5). Every enter and exit that is
// not a ticket enter takes the mutex; that is the cost study B measured.
type Queue struct {
	mu    sync.Mutex
	core  *QueueCore
	clock clock
}

var _ Gate = (*Queue)(nil)

// NewQueue returns a legacy gate for cfg (Limit, Tickets, SleepDelay); start from
// DefaultConfig for InnoDB's defaults (MySQL 5.5 itself used Tickets 500). The
// error wraps ErrInvalidConfig and names the field out of range.
func NewQueue(cfg Config) (*Queue, error) {
	core, err := NewQueueCore(cfg)
	if err != nil {
		return nil, err
	}
	return &Queue{core: core, clock: newClock()}, nil
}

// Enter admits t, as srv_conc_enter_innodb in MySQL 5.5: a ticket without the
// mutex; else under the mutex a free seat, or one sleep of the sleep delay (if t
// holds no locks) and a retry, or a place at the tail of the FIFO until an
// exiting thread hands t its seat. It returns ctx.Err() if ctx ends while t
// sleeps or waits; t then holds no seat.
func (g *Queue) Enter(ctx context.Context, t *Thread) error {
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

func (g *Queue) enter(ctx context.Context, t *Thread) error {
	err := g.enterSeat(ctx, t)
	if err == nil {
		t.admittedBy(g)
	}
	return err
}

func (g *Queue) enterSeat(ctx context.Context, t *Thread) error {
	if useTicket(t, &g.core.stats) {
		return nil
	}
	g.mu.Lock()
	if t.phase != outside {
		// Another goroutine is sleeping or queued with t: entering again
		// would corrupt its wait (and the FIFO).
		g.mu.Unlock()
		return errShared("Enter")
	}
	if g.core.tryEnter(t) {
		g.mu.Unlock()
		return nil
	}
	for {
		d := g.core.Enter(t, g.clock.now())
		switch d.Verdict {
		case Admitted:
			g.mu.Unlock()
			return nil
		case Sleep:
			g.mu.Unlock()
			if err := sleepCtx(ctx, d.Sleep); err != nil {
				g.mu.Lock()
				g.core.Cancel(t, g.clock.now())
				g.mu.Unlock()
				return err
			}
			g.mu.Lock()
		case Queued:
			ch := t.wakeChan() // made under the mutex, before any exit can pick t
			g.mu.Unlock()
			return g.wait(ctx, t, ch)
		}
	}
}

// TryEnter admits t without waiting: a ticket without the mutex, else under
// the mutex a free seat, as Enter's first attempt. It reports false, changing
// nothing, where Enter would sleep or queue. It panics as Exit does for a
// Thread of another gate.
func (g *Queue) TryEnter(t *Thread) bool {
	t.mustBeOf(g, "TryEnter")
	if checkThreads {
		t.mustClaim("TryEnter")
		defer t.unclaim()
	}
	if useTicket(t, &g.core.stats) {
		return true
	}
	g.mu.Lock()
	ok := t.phase == outside && g.core.tryEnter(t)
	g.mu.Unlock()
	if ok {
		t.admittedBy(g)
	}
	return ok
}

// wait parks t until an exit hands it a seat or ctx ends.
func (g *Queue) wait(ctx context.Context, t *Thread, ch chan struct{}) error {
	select {
	case <-ch:
		// MySQL 5.5's woken thread took the mutex again to free its wait slot;
		// the driver pays the same lock round trip.
		g.mu.Lock()
		g.mu.Unlock()
		return nil
	case <-ctx.Done():
		g.mu.Lock()
		r := g.core.Cancel(t, g.clock.now())
		g.mu.Unlock()
		if r.Outcome != Withdrawn {
			<-ch // a seat was handed to t first: take the wake, pass the seat on
			wake(r.To)
		}
		return ctx.Err()
	}
}

// Exit gives t's seat back once its tickets are spent, as srv_conc_exit_innodb.
func (g *Queue) Exit(t *Thread) {
	t.mustBeOf(g, "Exit")
	if checkThreads {
		t.mustClaim("Exit")
		defer t.unclaim()
	}
	if !t.inside || t.tickets > 0 {
		return
	}
	g.forceExit(t)
}

// ForceExit gives t's seat back whatever its tickets, handing it to the first
// waiter, as srv_conc_force_exit_innodb in MySQL 5.5.
func (g *Queue) ForceExit(t *Thread) {
	t.mustBeOf(g, "ForceExit")
	if checkThreads {
		t.mustClaim("ForceExit")
		defer t.unclaim()
	}
	g.forceExit(t)
}

func (g *Queue) forceExit(t *Thread) {
	if !t.inside {
		return
	}
	g.mu.Lock()
	var r Release
	if g.core.waiters() {
		r = g.core.ForceExit(t, g.clock.now())
	} else {
		r = g.core.ForceExit(t, 0) // no handoff possible: the clock is not read
	}
	g.mu.Unlock()
	wake(r.To)
}

// ForceEnter counts t inside regardless of the limit, under the mutex.
func (g *Queue) ForceEnter(t *Thread) {
	t.mustBeOf(g, "ForceEnter")
	if checkThreads {
		t.mustClaim("ForceEnter")
		defer t.unclaim()
	}
	g.mu.Lock()
	g.core.ForceEnter(t, 0)
	g.mu.Unlock()
	t.admittedBy(g)
}

// SetLimit changes the limit (0..1000) and wakes every waiter that now fits.
func (g *Queue) SetLimit(n int) error {
	g.mu.Lock()
	woken, err := g.core.SetLimit(n, g.clock.now())
	g.mu.Unlock()
	for _, w := range woken {
		wake(w)
	}
	return err
}

// Limit returns the current limit.
func (g *Queue) Limit() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.core.Limit()
}

// Stats returns a snapshot of the counters, taken under the mutex.
func (g *Queue) Stats() Stats {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.core.Stats()
}
