package concurrency

import (
	"sync/atomic"
	"time"
)

// AtomicCore is the gate of MySQL 5.6–8.0 (srv_conc_enter_innodb_with_atomics in
// srv0conc.cc): no mutex and no queue. A thread that sees a free seat increments
// the inside count and keeps the seat if the result is within the limit, else
// undoes the overbooking; a thread that finds no seat sleeps and tries again.
// Exit only decrements: it wakes nobody, so a free seat waits for the next
// sleeper to notice it.
//
// The sleep delay adapts when AdaptiveMaxSleepDelay > 0 (innodb_adaptive_max_sleep_delay):
//   - +1 µs for every sleep after a thread's first in one enter;
//   - −1 µs when a thread is admitted after exactly one sleep and the delay is
//     above 20 µs;
//   - halved when a thread is admitted and nobody is waiting;
//   - never above the cap (a sleep longer than the cap stores the cap).
//
// The delay is one shared value in whole microseconds, updated without
// synchronisation of its read-modify-write, as in InnoDB (a lost update only
// nudges a heuristic). AtomicCore is safe for concurrent use; a single-threaded
// caller sees deterministic results.
type AtomicCore struct {
	inside     atomic.Int64 // srv_conc.n_active
	waiting    atomic.Int64 // srv_conc.n_waiting
	limit      atomic.Int64
	delayUS    atomic.Int64 // srv_thread_sleep_delay, µs
	adaptiveUS int64        // srv_adaptive_max_sleep_delay, µs; 0 = off
	tickets    uint32
	stats      counters
}

var _ Core = (*AtomicCore)(nil)

// NewAtomicCore returns a MySQL 5.6+ gate for cfg (Limit, Tickets, SleepDelay as
// the starting delay, AdaptiveMaxSleepDelay). The error wraps ErrInvalidConfig.
func NewAtomicCore(cfg Config) (*AtomicCore, error) {
	cfg, err := cfg.validate()
	if err != nil {
		return nil, err
	}
	c := &AtomicCore{adaptiveUS: int64(cfg.AdaptiveMaxSleepDelay / time.Microsecond), tickets: uint32(cfg.Tickets)}
	c.limit.Store(int64(cfg.Limit))
	c.delayUS.Store(int64(cfg.SleepDelay / time.Microsecond))
	return c, nil
}

// Enter decides for t at now: a ticket if t has one; else a seat if one is free
// (increment, and undo if that overbooked); else Sleep for the current sleep
// delay, after which t calls Enter again. The first refusal counts t as
// waiting until it is admitted or canceled.
func (c *AtomicCore) Enter(t *Thread, now time.Duration) Decision {
	if useTicket(t, &c.stats) {
		return Decision{Verdict: Admitted}
	}
	if t.phase == sleeping {
		// Back from a sleep: the bookkeeping InnoDB does right after os_thread_sleep.
		t.phase = outside
		t.sleeps++
		if c.adaptiveUS > 0 && t.sleeps > 1 {
			c.delayUS.Add(1)
		}
	}
	switch c.trySeat(t) {
	case seatUnchecked:
		c.finish(t, now, false)
		return Decision{Verdict: Admitted}
	case seatTaken:
		c.finish(t, now, true)
		return Decision{Verdict: Admitted}
	}
	if !t.waiting {
		c.waiting.Add(1)
		c.stats.beginWait(t, now)
	}
	d := c.delayUS.Load()
	if c.adaptiveUS > 0 && d > c.adaptiveUS {
		d = c.adaptiveUS
		c.delayUS.Store(d)
	}
	t.phase = sleeping
	t.hasSlept = true
	c.stats.sleeps.Add(1)
	return Decision{Verdict: Sleep, Sleep: time.Duration(d) * time.Microsecond}
}

type seatResult uint8

const (
	seatNone      seatResult = iota // no free seat
	seatTaken                       // t took a seat
	seatUnchecked                   // limit 0 or t already inside: nothing counted
)

// trySeat takes a seat for t if one is free: increment, and undo the increment if
// it overbooked, as srv_conc_enter_innodb_with_atomics.
func (c *AtomicCore) trySeat(t *Thread) seatResult {
	lim := c.limit.Load()
	if t.inside || lim == 0 {
		return seatUnchecked
	}
	if c.inside.Load() < lim {
		if c.inside.Add(1) <= lim {
			t.inside = true
			t.tickets = c.tickets
			c.stats.enters.Add(1)
			return seatTaken
		}
		c.inside.Add(-1) // overbooked: give the seat back
	}
	return seatNone
}

// tryEnter is the driver's first attempt, before it reads a clock: a ticket, or
// a seat without waiting.
func (c *AtomicCore) tryEnter(t *Thread) bool {
	if useTicket(t, &c.stats) {
		return true
	}
	switch c.trySeat(t) {
	case seatUnchecked:
		c.finish(t, 0, false)
		return true
	case seatTaken:
		c.finish(t, 0, true)
		return true
	}
	return false
}

// finish ends t's enter: it leaves the waiting count and, if t took a seat,
// adapts the delay.
func (c *AtomicCore) finish(t *Thread, now time.Duration, seated bool) {
	if t.waiting {
		c.waiting.Add(-1)
		c.stats.endWait(t, now)
	}
	if c.adaptiveUS > 0 && seated {
		if t.sleeps == 1 && c.delayUS.Load() > 20 {
			c.delayUS.Add(-1)
		}
		if c.waiting.Load() == 0 {
			c.delayUS.Store(c.delayUS.Load() >> 1)
		}
	}
	t.sleeps = 0
	t.hasSlept = false
}

// Exit returns t's seat unless it has tickets left; it wakes nobody, as
// srv_conc_exit_innodb_with_atomics.
func (c *AtomicCore) Exit(t *Thread, now time.Duration) Release {
	if !t.inside {
		return Release{}
	}
	if t.tickets > 0 {
		return Release{Outcome: Kept}
	}
	return c.ForceExit(t, now)
}

// ForceExit returns t's seat whatever its tickets, as srv_conc_force_exit_innodb.
func (c *AtomicCore) ForceExit(t *Thread, _ time.Duration) Release {
	if !t.inside {
		return Release{}
	}
	t.inside = false
	t.tickets = 0
	c.inside.Add(-1)
	c.stats.exits.Add(1)
	return Release{Outcome: Freed}
}

// ForceEnter counts t inside regardless of the limit, with one ticket, as
// srv_conc_force_enter_innodb. It does nothing with limit 0 or if t is inside.
func (c *AtomicCore) ForceEnter(t *Thread, _ time.Duration) {
	if c.limit.Load() == 0 || t.inside {
		return
	}
	c.inside.Add(1)
	t.inside = true
	t.tickets = 1
	c.stats.forceEnters.Add(1)
}

// Cancel withdraws a sleeping t from the waiting count. Atomic never hands a seat
// to a sleeper, so the outcome is Withdrawn or None.
func (c *AtomicCore) Cancel(t *Thread, _ time.Duration) Release {
	if !t.waiting {
		return Release{}
	}
	c.waiting.Add(-1)
	c.stats.cancelWait(t)
	t.phase = outside
	t.sleeps = 0
	t.hasSlept = false
	return Release{Outcome: Withdrawn}
}

// SetLimit sets the limit (0..1000). Sleepers notice on their next try, so it
// returns no threads to wake.
func (c *AtomicCore) SetLimit(n int, _ time.Duration) ([]*Thread, error) {
	if err := checkLimit(n); err != nil {
		return nil, err
	}
	c.limit.Store(int64(n))
	return nil, nil
}

// Limit returns the current limit (0 = unlimited).
func (c *AtomicCore) Limit() int { return int(c.limit.Load()) }

// SleepDelay returns the current (adaptive) sleep delay.
func (c *AtomicCore) SleepDelay() time.Duration {
	return time.Duration(c.delayUS.Load()) * time.Microsecond
}

// Stats returns a snapshot of the counters.
func (c *AtomicCore) Stats() Stats { return c.stats.snapshot(c.inside.Load(), c.waiting.Load()) }
