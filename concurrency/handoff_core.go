package concurrency

import (
	"math"
	"sync"
	"sync/atomic"
	"time"
)

// State word of HandoffCore, three fields in one uint64:
//
//	bits  0..23  seats held (inside)
//	bits 24..47  queued waiters
//	bits 48..63  seats taken, low 16 bits (the rest in HandoffCore.entersHigh)
//
// Keeping inside and waiters in one word is what makes the lock-free paths safe.
// An enter takes a seat with a CAS that fails if a waiter queued in between (so
// it cannot overtake the waiter). An exit frees its seat with a CAS that expects
// no waiters: either a waiter had queued by then, the CAS fails, and the exit
// hands the seat over under the mutex (one CAS moving a waiter inside in its
// place, so the seat is never seen free), or it had not and the waiter's own
// queueing CAS fails and sees the free seat — the lost wakeup cannot happen.
// Counting admissions in the same word makes the count free: the CAS that takes a
// seat also counts it, so the fast path is one CAS to enter and one to exit,
// and Exits is derived (Enters + ForceEnters - Inside) rather than counted. The
// admission that wraps the low field is left to the slow path, under the mutex.
const (
	fieldBits  = 24
	fieldMask  = 1<<fieldBits - 1
	oneWaiter  = 1 << fieldBits
	enterShift = 2 * fieldBits
	oneEnter   = 1 << enterShift
	enterWrap  = 1 << (64 - enterShift) // admissions per wrap of the low field
)

// enterLast is the lowest state word whose admission field is at its
// maximum: the next admission would wrap it, which only the slow path does.
const enterLast = (enterWrap - 1) << enterShift

func insideOf(s uint64) uint64  { return s & fieldMask }
func waitersOf(s uint64) uint64 { return s >> fieldBits & fieldMask }

// HandoffCore is innosim's own gate. While a seat is free and nobody waits, enter
// is one CAS and exit another on a word shared by nothing else, with no
// lock and no allocation. A thread that finds no seat parks in a wait queue (no
// polling sleep); an exit that sees waiters hands its seat to exactly one of
// them, and no newcomer can take it in between. The queue has a high and a low
// class (Config.Priority) with MariaDB's kickup: a low waiter that has waited
// Config.Kickup moves to the high queue, in its place by the time it began
// waiting, at the first enter or exit that finds it so, and the next seat
// handed out then goes to it unless a high waiter has waited longer. The limit
// can change at run time: raising it hands seats to every waiter that now fits;
// lowering it evicts nobody (exits free seats until the count is under the new
// limit, then hand off again).
//
// Newcomers never overtake waiters: the fast path admits only while the waiter
// count is zero, so under load the seats go round in queue order. That is the
// same rule x/sync/semaphore keeps, for the same reason: otherwise a steady
// stream of newcomers can starve a parked thread forever.
//
// Config.Starvation > 0 relaxes that rule, with a bound. A freed seat goes to
// whoever takes it first (the fast path admits while waiters queue), and an
// exit that finds waiters frees its seat and wakes one of them to compete
// (Release outcome Woken; at most one per free seat: while the woken waiters
// that have not tried yet are as many as the free seats, exits wake nobody
// else); a woken waiter that loses goes back to its place in its queue. The
// bound is kept where the seat changes hands, not where the loser notices: an
// exit that finds waiters reads the clock and compares it with the time at
// which the longest waiter — the head of the serving order, or a woken waiter
// whose goroutine has not run yet — reaches Starvation (with priority classes,
// Kickup if that is shorter), one atomic load; from then on that exit hands its
// seat strictly to that waiter (HandedOff, or Reserved for a woken one, whose
// wake is already on its way) instead of freeing it. So an admitted wait
// exceeds the bound by at most the time to the next exit, and a woken
// goroutine the scheduler leaves runnable for a whole time slice finds
// its seat kept for it rather than taken by a barging thread.
//
// Config.LockHolderAllowance > 0 lets a thread that holds locks in past a full
// gate and past the queue, up to that many seats beyond the limit: threads
// inside that wait for its locks can then never keep it out.
//
// HandoffCore is safe for concurrent use. The queue and the decisions that move
// the waiter count are guarded by an internal mutex taken only on slow paths
// (queueing, handing off, cancel, SetLimit); a single-threaded caller sees
// deterministic results.
type HandoffCore struct {
	// Hot fields first, in one cache line: the limit (read on every gate enter),
	// the state word (written on every gate enter and exit), and what a handoff
	// touches under contention: the mutex and the queue heads. A handoff then
	// moves one line between cores for these, not three.
	limit     atomic.Int64
	state     atomic.Uint64
	mu        sync.Mutex
	low, high waitList

	// Bounded barging (starvation > 0): woken holds the waiters taken off the
	// queues to compete for a freed seat that have not tried yet, ordered by
	// the time they began waiting; pending is its length, read without c.mu,
	// so that an exit need not wake another while they are as many as the free
	// seats; deadline is the earliest clock reading (ns) at which an exit must
	// look at the waiters under c.mu: when the longest waiter reaches
	// starvation, or (priority modes) the oldest low waiter reaches kickup
	// while high waiters queue; math.MaxInt64 when neither can happen.
	woken      waitList
	pending    atomic.Int64
	deadline   atomic.Int64
	starvation time.Duration
	bound      time.Duration // wait after which a waiter is served strictly: starvation, or kickup if shorter (priority modes)

	entersHigh atomic.Uint64 // admissions counted past the state word's low field
	stats      counters      // all but Enters and Exits

	// fastMask selects the part of the state word that the fast enter compares
	// with the limit: the seats held and, in strict handoff, the waiters too
	// (a waiter count of one makes the masked word exceed any limit), so that
	// one comparison says "a seat is free and no waiter may be overtaken".
	fastMask uint64

	tickets   uint32
	mode      PriorityMode
	kickup    time.Duration
	allowance uint64 // LockHolderAllowance

	afterWrap func() // test hook: runs between a wrap of the admission field and its carry
}

var _ Core = (*HandoffCore)(nil)

// NewHandoffCore returns a handoff gate for cfg (Limit, Tickets, Priority,
// Kickup, Starvation, LockHolderAllowance). The error wraps ErrInvalidConfig and
// names the field out of range.
func NewHandoffCore(cfg Config) (*HandoffCore, error) {
	cfg, err := cfg.validate()
	if err != nil {
		return nil, err
	}
	c := &HandoffCore{tickets: uint32(cfg.Tickets), mode: cfg.Priority, kickup: cfg.Kickup,
		starvation: cfg.Starvation, allowance: uint64(cfg.LockHolderAllowance)}
	c.bound = c.starvation
	c.fastMask = fieldMask
	if c.starvation == 0 {
		c.fastMask = oneWaiter*fieldMask | fieldMask
	}
	if c.mode != FIFO && c.kickup < c.bound {
		c.bound = c.kickup // a kicked-up waiter is served as one starving
	}
	c.limit.Store(int64(cfg.Limit))
	c.deadline.Store(math.MaxInt64)
	return c, nil
}

// Enter decides for t at now: a ticket if t has one; a seat at once if one is
// free and nobody waits (lock-free), or if t holds locks and the allowance has
// room; else Queued in t's class (high or low). It never returns Sleep. A
// thread woken to compete (Woken) calls it again to try for the freed seat
// (one whose seat was reserved meanwhile, Reserved, is inside and not Woken).
func (c *HandoffCore) Enter(t *Thread, now time.Duration) Decision {
	if t.phase == woken {
		return c.retry(t, now)
	}
	if c.tryEnter(t) {
		return Decision{Verdict: Admitted}
	}
	d, _ := c.enterSlow(t, now)
	return d
}

// fastEnter is the uncontended enter, small enough to be inlined into the
// driver's Enter: one load and one CAS of the state word, no clock, no lock.
// It reports false, changing nothing, whenever anything else is to be done
// (a ticket to spend, limit 0, t inside or waiting, no free seat, a waiter
// strict handoff must not overtake, an admission count about to wrap, or a
// lost CAS): tryEnter and the slow path decide those.
func (c *HandoffCore) fastEnter(t *Thread) bool {
	if t.tickets != 0 || t.inside || t.phase != outside {
		return false
	}
	s := c.state.Load()
	if s&c.fastMask >= uint64(c.limit.Load()) || s >= enterLast || !c.state.CompareAndSwap(s, s+1+oneEnter) {
		return false
	}
	t.inside = true
	t.tickets = c.tickets
	return true
}

// fastLeave is the uncontended exit of inside t, inlined into the driver's
// Exit and ForceExit: one CAS that frees the seat and fails if a waiter is
// counted, so that the waiter count it read is the one its write goes with
// (see leave). It reports false, changing nothing, when a waiter is counted or
// the CAS lost; release then decides.
func (c *HandoffCore) fastLeave(t *Thread) bool {
	s := c.state.Load()
	if waitersOf(s) != 0 || !c.state.CompareAndSwap(s, s-1) {
		return false
	}
	t.inside = false
	t.tickets = 0
	return true
}

// tryEnter is the lock-free path of Enter: no clock, no lock, no allocation.
func (c *HandoffCore) tryEnter(t *Thread) bool {
	if useTicket(t, &c.stats) {
		return true
	}
	lim := uint64(c.limit.Load())
	if lim == 0 || t.inside {
		return true
	}
	if t.phase != outside {
		// Waiting in another goroutine's Enter (a shared Thread): the slow
		// path refuses it under the mutex rather than seat it twice.
		return false
	}
	for {
		s := c.state.Load()
		if insideOf(s) >= lim || s>>enterShift == enterWrap-1 || (waitersOf(s) != 0 && c.starvation == 0) {
			// The second case: this admission would wrap the count's low
			// field. Wraps happen only under c.mu, where Stats looks, so that
			// no snapshot sees the wrap without its carry.
			return false
		}
		if c.state.CompareAndSwap(s, s+1+oneEnter) {
			t.inside = true
			t.tickets = c.tickets
			return true
		}
	}
}

// enterSlow queues t, or admits it if a seat came free since tryEnter looked or
// the lock-holder allowance lets it in. It reports false, deciding nothing, if
// t is already waiting (queued, or woken and not yet tried): a Thread shared by
// two goroutines, which the driver refuses.
func (c *HandoffCore) enterSlow(t *Thread, now time.Duration) (Decision, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t.list != nil || t.phase != outside {
		return Decision{Verdict: Queued}, false
	}
	lim := uint64(c.limit.Load())
	if lim == 0 {
		return Decision{Verdict: Admitted}, true
	}
	if c.mode != FIFO {
		c.kickupLocked(now) // an enter that finds an old low waiter moves it up
	}
	for {
		s := c.state.Load()
		if want, took := c.seatLocked(t, s, lim); took {
			return Decision{Verdict: Admitted}, true
		} else if want {
			continue
		}
		if c.state.CompareAndSwap(s, s+oneWaiter) {
			break
		}
	}
	c.stats.beginWait(t, now)
	t.phase = queued
	if c.mode.high(t) {
		c.stats.waitsHigh.Add(1)
		c.high.insertBySince(t)
	} else {
		c.low.insertBySince(t)
	}
	c.rearm()
	return Decision{Verdict: Queued}, true
}

// seatLocked is enterSlow's admission of t at state word s (c.mu held): it
// reports whether the rules let t in now (want) and whether its CAS took the
// seat (took); want without took means the word changed, and the caller
// looks again.
func (c *HandoffCore) seatLocked(t *Thread, s, lim uint64) (want, took bool) {
	// Strict handoff queues t behind the waiters; but when none is queued
	// and the woken ones (barging) leave a seat unclaimed, queueing would
	// leave that seat free while t sleeps.
	admit := insideOf(s) < lim && (waitersOf(s) == 0 || c.starvation > 0 || (c.listed() == 0 && c.seatUnclaimed(s)))
	bypass := !admit && t.HoldsLocks && insideOf(s) < lim+c.allowance
	if !admit && !bypass {
		return false, false
	}
	if !c.state.CompareAndSwap(s, s+1+oneEnter) {
		return true, false
	}
	c.carry(s + 1 + oneEnter)
	t.inside = true
	t.tickets = c.tickets
	if bypass {
		c.stats.lockBypasses.Add(1)
	}
	return true, true
}

// tryAdmit is Enter without the wait (the driver's TryEnter): tryEnter, and
// if that declines, the admission rules of enterSlow under c.mu (the
// admission that wraps the count, a lock holder's allowance, a seat that
// woken waiters leave unclaimed). It reports false, changing nothing, where
// Enter would queue t, and for a t that is waiting already.
func (c *HandoffCore) tryAdmit(t *Thread) bool {
	if c.tryEnter(t) {
		return true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if t.list != nil || t.phase != outside {
		return false
	}
	lim := uint64(c.limit.Load())
	for {
		want, took := c.seatLocked(t, c.state.Load(), lim)
		if took {
			return true
		}
		if !want {
			return false
		}
	}
}

// Exit returns t's seat unless it has tickets left. With waiters queued (and the
// count within the limit) the seat goes to exactly one of them: HandedOff; with
// barging it is freed and one of them woken (Woken), unless the longest waiter
// has waited Config.Starvation (HandedOff or Reserved).
func (c *HandoffCore) Exit(t *Thread, now time.Duration) Release {
	if !t.inside {
		return Release{}
	}
	if t.tickets > 0 {
		return Release{Outcome: Kept}
	}
	return c.release(t, now)
}

// ForceExit returns t's seat whatever its tickets, as srv_conc_force_exit_innodb.
func (c *HandoffCore) ForceExit(t *Thread, now time.Duration) Release {
	if !t.inside {
		return Release{}
	}
	return c.release(t, now)
}

func (c *HandoffCore) release(t *Thread, now time.Duration) Release {
	if c.starvation > 0 {
		if waitersOf(c.state.Load()) != 0 && c.due(now) {
			return c.serveDue(t, now)
		}
		if c.free(t) {
			return Release{Outcome: Freed}
		}
		return c.wakeNext(now)
	}
	if c.leave(t) {
		return Release{Outcome: Freed}
	}
	return c.handOff(now)
}

// due reports whether an exit at now must look at the waiters under c.mu (see
// HandoffCore.deadline).
func (c *HandoffCore) due(now time.Duration) bool { return int64(now) >= c.deadline.Load() }

// free gives up t's seat at once (barging): one atomic add. It reports false
// when threads wait and fewer have been woken to compete than seats are free;
// the caller must then call wakeNext. A waiter woken earlier that has not tried
// yet will see this seat: it takes itself out of pending before it looks at the
// state word, and free writes the state word before it reads pending, so one of
// the two sees the other.
func (c *HandoffCore) free(t *Thread) bool {
	t.inside = false
	t.tickets = 0
	s := c.state.Add(^uint64(0)) // one seat fewer
	return waitersOf(s) == 0 || !c.seatUnclaimed(s)
}

// seatUnclaimed reports whether state s has a free seat that no woken waiter
// is on its way to take: more free seats than pending waiters (any with the
// limit at 0). It reads pending after the caller read s.
func (c *HandoffCore) seatUnclaimed(s uint64) bool {
	lim := c.limit.Load()
	return lim == 0 || int64(insideOf(s))+c.pending.Load() < lim
}

// wakeNext takes the next waiter off the queue to compete for a freed seat
// (Woken), unless woken waiters already compete for every free seat or nobody
// is queued (Freed).
func (c *HandoffCore) wakeNext(now time.Duration) Release {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.wakeNextLocked(now)
}

func (c *HandoffCore) wakeNextLocked(now time.Duration) Release {
	if c.listed() == 0 || !c.seatUnclaimed(c.state.Load()) {
		return Release{Outcome: Freed}
	}
	w := c.next(now)
	w.phase = woken
	c.woken.insertBySince(w)
	c.pending.Add(1)
	c.stats.bargeWakes.Add(1)
	c.rearm()
	return Release{Outcome: Woken, To: w}
}

// serveDue is release for an exit at or past the deadline (barging, waiters
// counted): it gives the longest waiter a seat if that one has waited
// Config.Starvation, and otherwise (the deadline was a kickup's, or the waiter
// was served in between) frees t's seat as barging does.
//
// A queued waiter gets t's seat (HandedOff). A woken one, whose goroutine has
// not run yet, gets the free seat it was woken for if no barging thread took
// it, and t's seat goes as in barging (Freed or Woken); if a barging thread did
// take it, t's seat (Reserved). Handing t's seat to it while its free seat
// stayed free would leave that seat claimed by nobody: a lost wakeup.
func (c *HandoffCore) serveDue(t *Thread, now time.Duration) Release {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.mode != FIFO {
		c.kickupLocked(now)
	}
	w := c.longest()
	if w == nil || now-w.since < c.bound || c.limit.Load() == 0 {
		c.rearm()
		return c.freeLocked(t, now)
	}
	wokenW := w.phase == woken
	for {
		s := c.state.Load()
		lim := uint64(c.limit.Load())
		switch {
		case insideOf(s) > lim:
			// Above a lowered limit (or a lock holder's allowance): the seat
			// goes, and a later exit serves w.
			t.inside = false
			t.tickets = 0
			if c.state.CompareAndSwap(s, s-1) {
				return Release{Outcome: Freed}
			}
		case wokenW && insideOf(s) < lim:
			if next := s - oneWaiter + 1 + oneEnter; c.state.CompareAndSwap(s, next) {
				c.carry(next)
				c.serve(w, now)
				return c.freeLocked(t, now)
			}
		default:
			t.inside = false
			t.tickets = 0
			if next := s - oneWaiter + oneEnter; c.state.CompareAndSwap(s, next) {
				c.carry(next)
				out := HandedOff
				if wokenW {
					out = Reserved
				}
				c.serve(w, now)
				return Release{Outcome: out, To: w}
			}
		}
	}
}

// freeLocked is the barging release of t's seat with c.mu held: free it, and
// wake a waiter to compete if the seat is unclaimed.
func (c *HandoffCore) freeLocked(t *Thread, now time.Duration) Release {
	if c.free(t) {
		return Release{Outcome: Freed}
	}
	return c.wakeNextLocked(now)
}

// longest returns the waiter that has waited longest among the head of the
// serving order and the woken waiters (c.mu held), or nil.
func (c *HandoffCore) longest() *Thread {
	w := c.woken.head
	h := c.high.head
	if h == nil {
		h = c.low.head
	}
	if h != nil && (w == nil || h.since < w.since) {
		w = h
	}
	return w
}

// serve makes starving waiter w inside in a seat that serveDue has already
// counted for it in the state word (c.mu held): off its queue, or out of the
// woken waiters, whose wake is already on its way.
func (c *HandoffCore) serve(w *Thread, now time.Duration) {
	w.list.remove(w)
	if w.phase == woken {
		c.pending.Add(-1)
	}
	w.phase = outside
	w.inside = true
	w.tickets = c.tickets
	c.stats.handoffs.Add(1)
	c.stats.starvationHandoffs.Add(1)
	c.stats.endWait(w, now)
	c.rearm()
}

// rearm recomputes the deadline after the waiters changed (c.mu held; barging
// only: strict handoff looks at the waiters on every exit that finds them).
func (c *HandoffCore) rearm() {
	if c.starvation == 0 {
		return
	}
	d := int64(math.MaxInt64)
	if w := c.longest(); w != nil {
		d = int64(w.since + c.bound)
	}
	if c.mode != FIFO && c.high.n > 0 && c.low.head != nil {
		d = min(d, int64(c.low.head.since+c.kickup))
	}
	c.deadline.Store(d)
}

// retry is Enter for a thread woken to compete for a freed seat: it takes a
// free seat, or goes back to its place in its queue if a barging thread took it
// first. A woken thread whose seat was reserved meanwhile (Reserved) is
// admitted at once.
func (c *HandoffCore) retry(t *Thread, now time.Duration) Decision {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t.phase != woken {
		// Handed a seat while parked, or reserved one while woken: the
		// driver's wake told it to look, and it is inside.
		return Decision{Verdict: Admitted}
	}
	c.woken.remove(t)
	c.pending.Add(-1) // before the state word is read: see free
	t.phase = outside
	lim := uint64(c.limit.Load())
	for {
		s := c.state.Load()
		switch {
		case lim == 0:
			if c.state.CompareAndSwap(s, s-oneWaiter) {
				c.stats.endWait(t, now)
				c.rearm()
				return Decision{Verdict: Admitted}
			}
		case insideOf(s) < lim:
			if next := s - oneWaiter + 1 + oneEnter; c.state.CompareAndSwap(s, next) {
				c.carry(next)
				t.inside = true
				t.tickets = c.tickets
				c.stats.endWait(t, now)
				c.rearm()
				return Decision{Verdict: Admitted}
			}
		default:
			t.phase = queued
			// Back to its place by waiting time in the queue it was served
			// from: a low waiter past the kickup time had been moved to the
			// high queue (see kickupLocked).
			if c.mode.high(t) || (c.mode != FIFO && now-t.since >= c.kickup) {
				c.high.insertBySince(t)
			} else {
				c.low.insertBySince(t)
			}
			c.stats.bargeLosses.Add(1)
			c.rearm()
			return Decision{Verdict: Queued}
		}
	}
}

// listed returns the number of queued waiters (c.mu held). The state word's
// waiter count also includes a waiter woken to compete that has not tried yet.
func (c *HandoffCore) listed() int { return c.low.n + c.high.n }

// leave gives up t's seat lock-free when nobody waits: one CAS that frees the
// seat and fails if a waiter queued in between, so the waiter count it reads is
// the one its write goes with and the lost wakeup cannot happen. It reports false
// when waiters are queued; the seat is then still counted, and the caller must
// call handOff, which passes it on (or frees it) under the mutex. No newcomer can
// take it in between, since the fast path admits nobody while the waiter count
// is non-zero.
func (c *HandoffCore) leave(t *Thread) bool {
	t.inside = false
	t.tickets = 0
	for {
		s := c.state.Load()
		if waitersOf(s) != 0 {
			return false
		}
		if c.state.CompareAndSwap(s, s-1) { // one seat fewer
			return true
		}
	}
}

// handOff passes the seat that leave kept counted straight to the next waiter:
// one CAS that moves a waiter inside in place of the leaving thread, so the seat
// is never seen free. It frees the seat instead when the waiters are gone (they
// canceled, or SetLimit served them) or the count is above a lowered limit.
func (c *HandoffCore) handOff(now time.Duration) Release {
	c.mu.Lock()
	defer c.mu.Unlock()
	for {
		s := c.state.Load()
		lim := uint64(c.limit.Load())
		switch {
		case c.listed() == 0 || (lim != 0 && insideOf(s) > lim):
			// Nobody queued, or the count is above a lowered limit.
			if c.state.CompareAndSwap(s, s-1) {
				return Release{Outcome: Freed}
			}
		case lim == 0:
			// The limit went to 0: the seat is freed and the waiter runs unchecked.
			if c.state.CompareAndSwap(s, s-1-oneWaiter) {
				return Release{Outcome: HandedOff, To: c.grant(now, false)}
			}
		default:
			if next := s - oneWaiter + oneEnter; c.state.CompareAndSwap(s, next) {
				c.carry(next)
				return Release{Outcome: HandedOff, To: c.grant(now, true)}
			}
		}
	}
}

// carry moves the admission count into entersHigh when the state word's low
// field has just wrapped to zero (once every enterWrap admissions). c.mu must be
// held: the lock-free fast path never makes the wrapping admission.
func (c *HandoffCore) carry(s uint64) {
	if s>>enterShift == 0 {
		if c.afterWrap != nil {
			c.afterWrap()
		}
		c.entersHigh.Add(enterWrap)
	}
}

// grant takes the next waiter off the queue (c.mu held, waiter count already
// decremented, and its admission counted in the state word if counted) and makes
// it inside if counted.
func (c *HandoffCore) grant(now time.Duration, counted bool) *Thread {
	w := c.next(now)
	w.phase = outside
	if counted {
		w.inside = true
		w.tickets = c.tickets
	}
	c.stats.handoffs.Add(1)
	c.stats.endWait(w, now)
	c.rearm()
	return w
}

// next pops the waiter to serve (c.mu held): low waiters that have waited the
// kickup time move to the high queue first, then the high queue's head, else
// the low queue's.
func (c *HandoffCore) next(now time.Duration) *Thread {
	if c.mode != FIFO {
		c.kickupLocked(now)
	}
	if w := c.high.popFront(); w != nil {
		return w
	}
	return c.low.popFront()
}

// kickupLocked moves every low waiter that has waited the kickup time to the
// high queue, in its place by waiting time (c.mu held; priority modes). The low
// queue is ordered by waiting time, so only its head need be looked at. With
// the place kept by waiting time, a kicked-up waiter is served before every
// high waiter that queued after it, not behind the high queue's tail: behind a
// stream of high waiters that tail keeps moving away.
func (c *HandoffCore) kickupLocked(now time.Duration) {
	for w := c.low.head; w != nil && now-w.since >= c.kickup; w = c.low.head {
		c.low.remove(w)
		c.high.insertBySince(w)
		c.stats.kickups.Add(1)
	}
}

// ForceEnter counts t inside regardless of the limit, with one ticket, as
// srv_conc_force_enter_innodb. It does nothing with limit 0 or if t is inside.
func (c *HandoffCore) ForceEnter(t *Thread, _ time.Duration) {
	if c.limit.Load() == 0 || t.inside {
		return
	}
	c.state.Add(1)
	t.inside = true
	t.tickets = 1
	c.stats.forceEnters.Add(1)
}

// Cancel withdraws queued t: Withdrawn. If t is no longer queued, a seat was
// handed to it before it could withdraw (the driver saw its context end first);
// t passes the seat on as ForceExit does and the result (Freed, HandedOff,
// Woken or Reserved) names the thread that gets it, so the seat is never
// leaked. Any outcome but Withdrawn tells a driver that a wake for t is on its
// way and must be consumed.
func (c *HandoffCore) Cancel(t *Thread, now time.Duration) Release {
	c.mu.Lock()
	if t.phase == woken {
		// Woken to compete for a freed seat, and giving up instead: the wake
		// is on its way (None, not Withdrawn), and the chance passes to the
		// next waiter if the seat is still free.
		c.woken.remove(t)
		t.phase = outside
		c.state.Add(^uint64(oneWaiter - 1)) // minus one waiter
		c.stats.cancelWait(t)
		c.pending.Add(-1)
		r := c.wakeNextLocked(now)
		if r.Outcome != Woken {
			r = Release{Outcome: None}
		}
		c.rearm()
		c.mu.Unlock()
		return r
	}
	if l := t.list; l != nil {
		l.remove(t)
		c.state.Add(^uint64(oneWaiter - 1)) // minus one waiter
		t.phase = outside
		c.stats.cancelWait(t)
		c.rearm()
		c.mu.Unlock()
		return Release{Outcome: Withdrawn}
	}
	c.mu.Unlock()
	c.stats.passedOn.Add(1)
	return c.ForceExit(t, now)
}

// SetLimit sets the limit (0..1000) and returns the waiters it admits: every
// waiter that now fits (all of them, unchecked, for 0), leaving the free seats
// that woken waiters (barging) are on their way to for them. Lowering the
// limit evicts nobody.
func (c *HandoffCore) SetLimit(n int, now time.Duration) ([]*Thread, error) {
	if err := checkLimit(n); err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.limit.Store(int64(n))
	lim := uint64(n)
	var served []*Thread
	for {
		s := c.state.Load()
		switch {
		case c.listed() == 0:
			c.rearm()
			return served, nil
		case lim == 0:
			if c.state.CompareAndSwap(s, s-oneWaiter) {
				served = append(served, c.grant(now, false))
			}
		case int64(insideOf(s))+c.pending.Load() < int64(lim):
			// A seat that a woken waiter (barging) is on its way to is its.
			if c.state.CompareAndSwap(s, s-oneWaiter+1+oneEnter) {
				c.carry(s - oneWaiter + 1 + oneEnter)
				served = append(served, c.grant(now, true))
			}
		default:
			c.rearm()
			return served, nil
		}
	}
}

// Limit returns the current limit (0 = unlimited).
func (c *HandoffCore) Limit() int { return int(c.limit.Load()) }

// Stats returns a snapshot of the counters. Exits is derived as
// Enters + ForceEnters - Inside, from one load of the state word, so the
// admission counters balance in every snapshot. It takes the slow-path mutex
// briefly: wraps of the admission count's low field, and their carry into
// entersHigh, happen only under it.
func (c *HandoffCore) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.state.Load()
	st := c.stats.snapshot(int64(insideOf(s)), int64(waitersOf(s)))
	st.Enters = c.entersHigh.Load() + s>>enterShift
	st.Exits = st.Enters + st.ForceEnters - uint64(st.Inside)
	return st
}
