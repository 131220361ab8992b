package concurrency

import (
	"time"

	"github.com/innosim/innosim/prio"
)

// Thread is the per-thread admission state, as the fields of trx_t that srv0conc
// reads and writes (declared_to_be_inside_innodb, n_tickets_to_enter_innodb,
// has_slept, the trx's lock list). One Thread belongs to one caller (a goroutine,
// a connection, a simulated thread) and is reused across its enters; a policy
// never allocates per enter. The zero value is a thread outside, with no tickets,
// holding no locks, outside a transaction, with hint Normal.
//
// The caller sets HoldsLocks, InTransaction and Hint; the rest is written only by
// the policy, and the caller reads it through the methods. A Thread must not be
// used with two gates at once (see ErrThreadOfOtherGate), nor by two goroutines
// at once (see ErrThreadShared), nor copied while it is inside or waiting.
type Thread struct {
	// HoldsLocks reports that the thread holds row locks or latches: Queue then
	// skips the sleep before queueing, as MySQL 5.5 did for a trx with locks.
	HoldsLocks bool
	// InTransaction reports that the thread is inside a transaction: with
	// Priority Auto, Handoff queues it in the high class.
	InTransaction bool
	// Hint is the thread's priority; above prio.Normal is the high class under
	// Priority ByHint or Auto.
	Hint prio.Hint

	inside   bool   // holds a seat (declared_to_be_inside_innodb)
	tickets  uint32 // enters left without the gate (n_tickets_to_enter_innodb)
	hasSlept bool   // slept in this enter (Queue's has_slept, Atomic's n_sleeps > 0)
	phase    phase
	sleeps   uint32        // sleeps in this enter (Atomic's n_sleeps)
	waiting  bool          // counted in the policy's waiting count for this enter
	since    time.Duration // when this enter began to wait (policy clock)
	entered  time.Duration // when the current round inside began (Adaptive)

	// wait-queue links (Queue, Handoff); list is nil when not queued.
	next, prev *Thread
	list       *waitList

	gate Gate          // the gate that gave the seat, while inside (ErrThreadOfOtherGate)
	wake chan struct{} // the real driver's parking place, made on first wait
	busy uint32        // 1 while a Gate call uses the thread (checkThreads builds)
}

// phase is where a thread stands in its current enter.
type phase uint8

const (
	outside  phase = iota // not entering (it may still hold a seat: see inside)
	sleeping              // told to sleep, will call Enter again
	queued                // parked in a wait queue until a seat is handed to it
	woken                 // taken off the queue to compete for a freed seat (Handoff barging)
)

// Inside reports whether the thread holds a seat. A thread admitted while the
// limit is 0 (unlimited) holds none: nothing was counted, so its exit counts
// nothing either, as InnoDB with innodb_thread_concurrency = 0.
func (t *Thread) Inside() bool { return t.inside }

// Tickets returns the enters the thread may still make without touching the
// gate. It is the configured Tickets after an admission, 1 after ForceEnter, and
// 0 once the seat is given back.
func (t *Thread) Tickets() uint32 { return t.tickets }

// HasSlept reports whether the thread has slept in its current enter (Queue:
// the one sleep before queueing; Atomic: at least one turn of the sleep loop).
// It is cleared when the thread is admitted.
func (t *Thread) HasSlept() bool { return t.hasSlept }

// Queued reports whether the thread is parked in a wait queue.
func (t *Thread) Queued() bool { return t.phase == queued }

// Woken reports whether the thread was taken off a wait queue to compete for a
// freed seat (Release outcome Woken) and has not yet called Enter again.
func (t *Thread) Woken() bool { return t.phase == woken }

// wakeChan returns the thread's parking channel, made once per thread with room
// for the one token a handoff sends.
func (t *Thread) wakeChan() chan struct{} {
	if t.wake == nil {
		t.wake = make(chan struct{}, 1)
	}
	return t.wake
}
