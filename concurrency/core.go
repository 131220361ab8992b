package concurrency

import "time"

// Core is a policy's deterministic decision-maker: it holds the counters and the
// wait queue and decides, and never blocks, sleeps, reads a clock or starts a
// goroutine. The real drivers (Queue, Atomic, Handoff) and the simulator in
// package sim drive the same Core; now is the caller's clock (virtual time in
// the simulator, time since the gate was made in the real driver) and is used
// only to time waits and to age Handoff's low-priority waiters.
//
// A driver's loop for one enter is:
//
//	for {
//		d := core.Enter(t, now)
//		switch d.Verdict {
//		case Admitted: // run inside
//		case Sleep:    // sleep d.Sleep, then loop
//		case Queued:   // park until some Release.To == t (or SetLimit returns t);
//			       // then if t.Woken(), loop (call Enter again), else t is admitted
//		}
//	}
//
// and for an exit: r := core.Exit(t, now); if r.Outcome is HandedOff or Woken,
// wake r.To (Reserved names a thread already woken: no second wake).
//
// The methods in detail:
//
//   - Enter(t, now): a thread with tickets left spends one and is admitted
//     without touching shared state. Otherwise the policy admits it, tells it
//     to sleep, or queues it. A thread that already holds a seat and has no
//     tickets is admitted again without change (InnoDB printed an error).
//   - Exit(t, now): Kept if t has tickets left, else the seat is freed or handed
//     to a waiter, who is then inside with fresh tickets (or, for Handoff with
//     barging, freed and a waiter woken to compete for it). None if t holds no
//     seat.
//   - ForceExit(t, now): gives the seat back whatever the tickets (before a lock
//     wait, at the end of a statement), as srv_conc_force_exit_innodb.
//   - ForceEnter(t, now): takes a seat regardless of the limit, with one
//     ticket, as srv_conc_force_enter_innodb after a lock wait. No-op with
//     limit 0.
//   - Cancel(t, now): t gives up waiting (sleeping or queued): Withdrawn. If a
//     seat had already been handed to t (the driver saw cancellation before the
//     wake), t passes it on as by ForceExit, and the result says who gets it
//     (Freed, HandedOff, or for Handoff with barging Woken or Reserved) — the
//     seat is never leaked.
//     A thread woken to compete (Handoff with barging) that cancels passes its
//     chance on the same way (Woken or None).
//   - SetLimit(n, now): sets the limit (validated 0..1000) and returns the
//     waiters it admits: raising it hands a seat to every queued waiter that now
//     fits; 0 admits them all unchecked; lowering it evicts nobody. The caller
//     must wake each returned thread.
//   - Limit and Stats: the current limit and a snapshot of the counters.
//
// A single-threaded caller (the simulator) may call any method at any time. Real
// drivers: QueueCore must be guarded by one mutex (the gate of MySQL 5.5);
// AtomicCore and HandoffCore are safe for concurrent use.
type Core interface {
	Enter(t *Thread, now time.Duration) Decision
	Exit(t *Thread, now time.Duration) Release
	ForceExit(t *Thread, now time.Duration) Release
	ForceEnter(t *Thread, now time.Duration)
	Cancel(t *Thread, now time.Duration) Release
	SetLimit(n int, now time.Duration) ([]*Thread, error)
	Limit() int
	Stats() Stats
}

// useTicket spends one of t's tickets, if it has any, as the check at the top of
// innobase_srv_conc_enter_innodb. It touches no state shared with other threads
// except the TicketEnters counter.
func useTicket(t *Thread, c *counters) bool {
	if t.tickets == 0 {
		return false
	}
	t.tickets--
	c.ticketEnters.Add(1)
	return true
}
