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
	// WaitsHigh counts the waits of threads in the high class (Handoff with
	// Priority ByHint or Auto); Waits - WaitsHigh waited in the low (or only)
	// class.
	WaitsHigh uint64
	// Kickups counts low-class waiters moved to the high queue after waiting
	// Config.Kickup (Handoff, as MariaDB's thread_pool_prio_kickup_timer).
	Kickups uint64
	// StarvationHandoffs counts seats handed strictly to a waiter that had
	// waited Config.Starvation or longer, instead of freed for barging
	// (Handoff with Starvation > 0; included in Handoffs).
	StarvationHandoffs uint64
	// BargeWakes counts waiters woken to compete for a freed seat (Handoff
	// with Starvation > 0, Release outcome Woken), and BargeLosses those of
	// them that found the seat taken by a barging thread when they ran and
	// queued again. Many losses per wake mean exits pay for wakes (a channel
	// send, and a futex wake when a P is idle) that admit nobody.
	BargeWakes, BargeLosses uint64
	// LockHolderBypasses counts threads holding locks admitted past a full
	// gate by Config.LockHolderAllowance (Handoff; included in Enters).
	LockHolderBypasses uint64
	// Inside is the number of seats held now (srv_conc.n_active).
	Inside int64
	// Waiting is the number of threads sleeping or queued now (srv_conc.n_waiting).
	Waiting int64
	// WaitTime is the distribution of the time from the first refusal to the
	// admission, one sample per admitted wait.
	WaitTime Histogram
	// P50Wait, P99Wait are WaitTime's median and 99th percentile (upper bucket
	// edges, so at most 25% above the true value); MaxWait is the longest
	// admitted wait, exact. All 0 with no admitted wait.
	P50Wait, P99Wait, MaxWait time.Duration
}

// HistogramOctaves is the number of powers of two of microseconds a
// Histogram resolves (2^40 µs is about 12.7 days).
const HistogramOctaves = 40

// HistogramBuckets is the number of buckets of a Histogram: one for durations
// under 1 µs, one each for [1, 2) and [2, 4) µs, then four per octave.
const HistogramBuckets = 3 + 4*(HistogramOctaves-2)

// Histogram counts durations in log-linear buckets of microseconds: bucket 0
// holds durations under 1 µs, buckets 1 and 2 hold [1, 2) and [2, 4) µs, and
// each further octave [2^o, 2^(o+1)) µs (2 ≤ o < HistogramOctaves) is split
// into four buckets of equal width, so that from 4 µs up a bucket's upper edge
// is at most 25% above any duration it holds; the last bucket also holds
// everything longer.
// The zero value is empty; Add is not safe for concurrent use (the policies keep
// their own atomic form and return copies).
type Histogram struct {
	Buckets [HistogramBuckets]uint64
}

// Add counts one duration d (a negative d counts as 0).
func (h *Histogram) Add(d time.Duration) { h.Buckets[bucketOf(d)]++ }

// Merge adds o's counts to h.
func (h *Histogram) Merge(o Histogram) {
	for i, c := range o.Buckets {
		h.Buckets[i] += c
	}
}

// Sub returns h minus an earlier snapshot o of the same counters: the samples
// counted between the two.
func (h Histogram) Sub(o Histogram) Histogram {
	for i, c := range o.Buckets {
		h.Buckets[i] -= c
	}
	return h
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
	if i < 3 {
		return time.Duration(uint64(1)<<uint(i)) * time.Microsecond
	}
	o, sub := uint(2+(i-3)/4), uint64((i-3)%4)
	return time.Duration(uint64(1)<<o+(sub+1)<<(o-2)) * time.Microsecond
}

// bucketOf returns the bucket for duration d.
func bucketOf(d time.Duration) int {
	if d < time.Microsecond {
		return 0
	}
	us := uint64(d / time.Microsecond)
	o := bits.Len64(us) - 1
	switch {
	case o < 2:
		return 1 + o
	case o >= HistogramOctaves:
		return HistogramBuckets - 1
	}
	return 3 + 4*(o-2) + int(us>>uint(o-2))&3
}

// counters is the live form of Stats. Every field is atomic so that a ticket
// enter (which takes no lock) and a reader can touch them at any time; a
// single-threaded caller sees plain deterministic counts.
type counters struct {
	enters, ticketEnters, forceEnters, exits atomic.Uint64
	waits, sleeps, handoffs, waitsAdmitted   atomic.Uint64
	canceled, passedOn                       atomic.Uint64
	waitsHigh, kickups, starvationHandoffs   atomic.Uint64
	lockBypasses, bargeWakes, bargeLosses    atomic.Uint64
	maxWait                                  atomic.Int64 // ns
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
		WaitsHigh:     c.waitsHigh.Load(),
		Kickups:       c.kickups.Load(),
		Inside:        inside,
		Waiting:       waiting,
		MaxWait:       time.Duration(c.maxWait.Load()),

		StarvationHandoffs: c.starvationHandoffs.Load(),
		LockHolderBypasses: c.lockBypasses.Load(),
		BargeWakes:         c.bargeWakes.Load(),
		BargeLosses:        c.bargeLosses.Load(),
	}
	for i := range c.waitTime {
		s.WaitTime.Buckets[i] = c.waitTime[i].Load()
	}
	s.P50Wait = s.WaitTime.Quantile(0.5)
	s.P99Wait = s.WaitTime.Quantile(0.99)
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
		d := now - t.since
		c.waitTime[bucketOf(d)].Add(1)
		for m := c.maxWait.Load(); int64(d) > m && !c.maxWait.CompareAndSwap(m, int64(d)); m = c.maxWait.Load() {
		}
	}
}

// cancelWait records that t gave up its wait.
func (c *counters) cancelWait(t *Thread) {
	if t.waiting {
		t.waiting = false
		c.canceled.Add(1)
	}
}
