package concurrency

import "time"

// QueueCore is the legacy gate of MySQL 5.5 (srv_conc_enter_innodb and
// srv_conc_exit_innodb in srv0srv.c, srv0conc.cc without atomics): counters of
// threads inside and waiting, a FIFO of waiting threads, tickets, and one sleep
// before queueing for a thread that holds no locks.
//
// It is not safe for concurrent use: every call must hold one mutex, which is the
// point — that mutex, taken on every enter and exit that is not a ticket enter, is
// the cost study B measured. The Queue driver holds it; the simulator charges it.
type QueueCore struct {
	limit      int
	tickets    uint32
	sleepDelay time.Duration
	inside     int // srv_conc.n_active
	waiting    int // srv_conc.n_waiting: sleeping before queueing, or queued
	queue      waitList
	stats      counters
}

var _ Core = (*QueueCore)(nil)

// NewQueueCore returns a legacy gate for cfg (Limit, Tickets, SleepDelay). The
// error wraps ErrInvalidConfig and names the field out of range.
func NewQueueCore(cfg Config) (*QueueCore, error) {
	cfg, err := cfg.validate()
	if err != nil {
		return nil, err
	}
	return &QueueCore{limit: cfg.Limit, tickets: uint32(cfg.Tickets), sleepDelay: cfg.SleepDelay}, nil
}

// Enter decides for t at now, as srv_conc_enter_innodb in MySQL 5.5: a ticket if
// t has one; a seat if fewer than the limit are inside; otherwise, the first
// time and only if t holds no locks, Sleep for the sleep delay (t counts as
// waiting until it calls Enter again; a delay of 0 still returns Sleep so that
// the driver drops and re-takes the mutex, as 5.5 did); otherwise Queued at the
// tail of the FIFO. A queued thread is admitted by a later Exit, ForceExit,
// Cancel or SetLimit that names it.
func (c *QueueCore) Enter(t *Thread, now time.Duration) Decision {
	if useTicket(t, &c.stats) {
		return Decision{Verdict: Admitted}
	}
	if t.phase == sleeping {
		t.phase = outside
		c.waiting--
	}
	if t.inside || c.limit == 0 {
		c.admitUnchecked(t, now)
		return Decision{Verdict: Admitted}
	}
	if c.inside < c.limit {
		c.inside++
		c.admit(t, now)
		return Decision{Verdict: Admitted}
	}
	c.stats.beginWait(t, now)
	if !t.hasSlept && !t.HoldsLocks {
		// Sleep once only: a second sleep could starve the thread behind
		// newcomers that find a free seat.
		t.hasSlept = true
		t.phase = sleeping
		c.waiting++
		c.stats.sleeps.Add(1)
		return Decision{Verdict: Sleep, Sleep: c.sleepDelay}
	}
	t.phase = queued
	c.waiting++
	c.queue.pushBack(t)
	return Decision{Verdict: Queued}
}

// tryEnter is the driver's first attempt under the mutex, before it reads a
// clock: a ticket, or a seat without waiting.
func (c *QueueCore) tryEnter(t *Thread) bool {
	if useTicket(t, &c.stats) {
		return true
	}
	if t.waiting || t.phase != outside {
		return false
	}
	if t.inside || c.limit == 0 {
		c.admitUnchecked(t, 0)
		return true
	}
	if c.inside < c.limit {
		c.inside++
		c.admit(t, 0)
		return true
	}
	return false
}

// admit gives t the seat already counted in c.inside, with fresh tickets.
func (c *QueueCore) admit(t *Thread, now time.Duration) {
	t.inside = true
	t.tickets = c.tickets
	t.hasSlept = false
	t.phase = outside
	c.stats.enters.Add(1)
	c.stats.endWait(t, now)
}

// admitUnchecked lets t run without a counted seat (limit 0, or already inside).
func (c *QueueCore) admitUnchecked(t *Thread, now time.Duration) {
	t.hasSlept = false
	t.phase = outside
	if t.waiting {
		// It waited under a limit since set to 0: the wait ended without a seat.
		c.stats.endWait(t, now)
	}
}

// Exit returns t's seat unless it has tickets left, as srv_conc_exit_innodb in
// MySQL 5.5; a freed seat goes straight to the first queued waiter while fewer
// than the limit are inside.
func (c *QueueCore) Exit(t *Thread, now time.Duration) Release {
	if !t.inside {
		return Release{}
	}
	if t.tickets > 0 {
		return Release{Outcome: Kept}
	}
	return c.release(t, now)
}

// ForceExit returns t's seat whatever its tickets, as srv_conc_force_exit_innodb.
func (c *QueueCore) ForceExit(t *Thread, now time.Duration) Release {
	if !t.inside {
		return Release{}
	}
	return c.release(t, now)
}

func (c *QueueCore) release(t *Thread, now time.Duration) Release {
	t.inside = false
	t.tickets = 0
	c.inside--
	c.stats.exits.Add(1)
	if w := c.handNext(now); w != nil {
		return Release{Outcome: HandedOff, To: w}
	}
	return Release{Outcome: Freed}
}

// handNext hands a seat to the first queued waiter if one fits under the limit.
// The seat is counted on the waiter's behalf before it runs, as 5.5 did, so a
// newcomer cannot take it in between.
func (c *QueueCore) handNext(now time.Duration) *Thread {
	if c.limit != 0 && c.inside >= c.limit {
		return nil
	}
	w := c.queue.popFront()
	if w == nil {
		return nil
	}
	c.waiting--
	c.stats.handoffs.Add(1)
	if c.limit == 0 {
		c.admitUnchecked(w, now)
		return w
	}
	c.inside++
	c.admit(w, now)
	return w
}

// ForceEnter counts t inside regardless of the limit, with one ticket, as
// srv_conc_force_enter_innodb. It does nothing with limit 0 or if t is inside.
func (c *QueueCore) ForceEnter(t *Thread, _ time.Duration) {
	if c.limit == 0 || t.inside {
		return
	}
	c.inside++
	t.inside = true
	t.tickets = 1
	c.stats.forceEnters.Add(1)
}

// Cancel withdraws t from its wait (sleeping or queued). If t had already been
// handed a seat, it passes the seat on as ForceExit does.
func (c *QueueCore) Cancel(t *Thread, now time.Duration) Release {
	switch {
	case t.list != nil:
		c.queue.remove(t)
		c.waiting--
	case t.phase == sleeping:
		c.waiting--
	case t.inside:
		c.stats.passedOn.Add(1)
		return c.ForceExit(t, now)
	default:
		return Release{}
	}
	t.phase = outside
	t.hasSlept = false
	c.stats.cancelWait(t)
	return Release{Outcome: Withdrawn}
}

// SetLimit sets innodb_thread_concurrency to n (0..1000) and returns the queued
// waiters it admits. MySQL 5.5 left them queued until later exits; here raising
// the limit hands a seat to every waiter that now fits, at once.
func (c *QueueCore) SetLimit(n int, now time.Duration) ([]*Thread, error) {
	if err := checkLimit(n); err != nil {
		return nil, err
	}
	c.limit = n
	var woken []*Thread
	for {
		w := c.handNext(now)
		if w == nil {
			return woken, nil
		}
		woken = append(woken, w)
	}
}

// Limit returns the current limit (0 = unlimited).
func (c *QueueCore) Limit() int { return c.limit }

// Stats returns a snapshot of the counters.
func (c *QueueCore) Stats() Stats { return c.stats.snapshot(int64(c.inside), int64(c.waiting)) }

// waiters reports whether any thread is queued, so that a driver reads its clock
// only when a handoff may need it.
func (c *QueueCore) waiters() bool { return c.queue.n > 0 }
