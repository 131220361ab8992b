package concurrency

import (
	"math"
	"math/bits"
	"sync/atomic"
	"time"
)

// Stats is a snapshot of a policy's counters. The core keeps them, so the real
// driver and the simulator report the same numbers for the same decisions.
//
// Every counter balances once the callers are quiet:
//
//	Enters + ForceEnters == Exits + Inside
//	Waits == WaitsAdmitted + Canceled + Waiting
//
// Unlimited keeps no counters (it touches no shared state): its Stats is zero.
type Stats struct {
	// Enters counts seats taken through the gate: at once, after sleeping, or
	// handed over from the queue. Ticket enters are not included.
	Enters uint64
	// TicketEnters counts enters made on a ticket, touching no shared gate state.
	TicketEnters uint64
	// ForceEnters counts seats taken regardless of the limit (after a lock wait).
	ForceEnters uint64
	// Exits counts seats given back (Exit with tickets spent, ForceExit, or a
	// canceled waiter passing on a seat it had been handed).
	Exits uint64
	// Waits counts enters that had to wait (sleep, queue, or both): one per enter.
	Waits uint64
	// Sleeps counts sleeps the policy asked for (Queue: at most one per enter;
	// Atomic: every turn of the loop).
	Sleeps uint64
	// Handoffs counts seats handed straight from an exiting thread (or SetLimit)
	// to a queued waiter.
	Handoffs uint64
	// WaitsAdmitted counts waits that ended with a seat.
	WaitsAdmitted uint64
	// Canceled counts waits abandoned before a seat was handed over (Cancel).
	Canceled uint64
	// PassedOn counts seats handed to a waiter whose context ended at the same
	// moment: the waiter's Enter fails and the seat goes on to the next waiter
	// (it is counted in WaitsAdmitted and Exits too). Canceled + PassedOn is the
	// number of Enters that returned an error.
	PassedOn uint64
	// Inside is the number of seats held now (srv_conc.n_active).
	Inside int64
	// Waiting is the number of threads sleeping or queued now (srv_conc.n_waiting).
	Waiting int64
	// WaitTime is the distribution of the time from the first refusal to the
	// admission, one sample per admitted wait.
	WaitTime Histogram
}

// HistogramBuckets is the number of buckets of a Histogram.
const HistogramBuckets = 40

// Histogram counts durations in power-of-two buckets of microseconds: bucket 0
// holds durations under 1 µs, bucket i (1 ≤ i < HistogramBuckets) holds
// [2^(i-1), 2^i) µs, and the last bucket also everything longer.
type Histogram struct {
	Buckets [HistogramBuckets]uint64
}

// Count returns the number of samples.
func (h Histogram) Count() uint64 {
	var n uint64
	for _, c := range h.Buckets {
		n += c
	}
	return n
}

// Quantile returns an upper bound of the q-quantile (0 ≤ q ≤ 1): the upper edge
// of the bucket holding it. A q below 0 reads as 0 and above 1 as 1. It returns 0
// when there are no samples or q is NaN.
func (h Histogram) Quantile(q float64) time.Duration {
	n := h.Count()
	if n == 0 || math.IsNaN(q) {
		return 0
	}
	// A negative rank would convert to a huge unsigned one (the largest bucket),
	// and one past n would fall off the end: read q outside 0..1 as its bound.
	q = min(max(q, 0), 1)
	rank := uint64(q*float64(n-1)) + 1
	var seen uint64
	for i, c := range h.Buckets {
		seen += c
		if seen >= rank {
			return bucketUpper(i)
		}
	}
	return bucketUpper(HistogramBuckets - 1)
}

// bucketUpper returns the exclusive upper edge of bucket i.
func bucketUpper(i int) time.Duration {
	return time.Duration(uint64(1)<<uint(i)) * time.Microsecond
}

// bucketOf returns the bucket for duration d.
func bucketOf(d time.Duration) int {
	us := uint64(0)
	if d > 0 {
		us = uint64(d / time.Microsecond)
	}
	i := bits.Len64(us)
	if i >= HistogramBuckets {
		i = HistogramBuckets - 1
	}
	return i
}

// counters is the live form of Stats. Every field is atomic so that a ticket
// enter (which takes no lock) and a reader can touch them at any time; a
// single-threaded caller sees plain deterministic counts.
type counters struct {
	enters, ticketEnters, forceEnters, exits atomic.Uint64
	waits, sleeps, handoffs, waitsAdmitted   atomic.Uint64
	canceled, passedOn                       atomic.Uint64
	waitTime                                 [HistogramBuckets]atomic.Uint64
}

// snapshot copies the counters into s (Inside and Waiting are the caller's).
func (c *counters) snapshot(inside, waiting int64) Stats {
	s := Stats{
		Enters:        c.enters.Load(),
		TicketEnters:  c.ticketEnters.Load(),
		ForceEnters:   c.forceEnters.Load(),
		Exits:         c.exits.Load(),
		Waits:         c.waits.Load(),
		Sleeps:        c.sleeps.Load(),
		Handoffs:      c.handoffs.Load(),
		WaitsAdmitted: c.waitsAdmitted.Load(),
		Canceled:      c.canceled.Load(),
		PassedOn:      c.passedOn.Load(),
		Inside:        inside,
		Waiting:       waiting,
	}
	for i := range c.waitTime {
		s.WaitTime.Buckets[i] = c.waitTime[i].Load()
	}
	return s
}

// beginWait marks the start of t's wait at now, once per enter.
func (c *counters) beginWait(t *Thread, now time.Duration) {
	if !t.waiting {
		t.waiting = true
		t.since = now
		c.waits.Add(1)
	}
}

// endWait records the end of t's wait with a seat at now, if it waited.
func (c *counters) endWait(t *Thread, now time.Duration) {
	if t.waiting {
		t.waiting = false
		c.waitsAdmitted.Add(1)
		c.waitTime[bucketOf(now-t.since)].Add(1)
	}
}

// cancelWait records that t gave up its wait.
func (c *counters) cancelWait(t *Thread) {
	if t.waiting {
		t.waiting = false
		c.canceled.Add(1)
	}
}
