package concurrency

import (
	"fmt"
	"strings"
	"time"
)

// String returns what an operator reads in the counters, on one line: the
// seats and waiters now, the admissions and exits, the waits and how they
// ended, the mechanisms that acted (sleeps, handoffs, kickups, barging, lock
// holders; each only when it did), and the admitted waits' p50, p99 (upper
// bucket edges) and maximum. It leaves out the histogram's buckets, so that
// fmt's %v and %+v print this line too. For example:
//
//	inside 2, waiting 1; enters 120 (480 on tickets, 3 forced), exits 121; waits 40: 38 admitted, 1 canceled, 1 passed on; 30 handoffs; wait p50 ≤ 12µs, p99 ≤ 96µs, max 140µs
func (s Stats) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "inside %d, waiting %d; enters %d", s.Inside, s.Waiting, s.Enters)
	var also []string
	if s.TicketEnters > 0 {
		also = append(also, fmt.Sprintf("%d on tickets", s.TicketEnters))
	}
	if s.ForceEnters > 0 {
		also = append(also, fmt.Sprintf("%d forced", s.ForceEnters))
	}
	if s.LockHolderBypasses > 0 {
		also = append(also, fmt.Sprintf("%d lock holders past the limit", s.LockHolderBypasses))
	}
	if len(also) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(also, ", "))
	}
	fmt.Fprintf(&b, ", exits %d; waits %d", s.Exits, s.Waits)
	if s.Waits > 0 {
		fmt.Fprintf(&b, ": %d admitted, %d canceled", s.WaitsAdmitted, s.Canceled)
		if s.PassedOn > 0 {
			fmt.Fprintf(&b, ", %d passed on", s.PassedOn)
		}
		if s.WaitsHigh > 0 {
			fmt.Fprintf(&b, ", %d in the high class", s.WaitsHigh)
		}
	}
	if s.Sleeps > 0 {
		fmt.Fprintf(&b, "; %d sleeps", s.Sleeps)
	}
	if s.Handoffs > 0 {
		fmt.Fprintf(&b, "; %d handoffs", s.Handoffs)
		if s.StarvationHandoffs > 0 {
			fmt.Fprintf(&b, " (%d at the starvation bound)", s.StarvationHandoffs)
		}
	}
	if s.Kickups > 0 {
		fmt.Fprintf(&b, "; %d kickups", s.Kickups)
	}
	if s.BargeWakes > 0 {
		fmt.Fprintf(&b, "; %d barge wakes (%d lost)", s.BargeWakes, s.BargeLosses)
	}
	if s.WaitsAdmitted > 0 || s.MaxWait > 0 || s.WaitTime.Count() > 0 {
		fmt.Fprintf(&b, "; wait p50 ≤ %v, p99 ≤ %v, max %v", s.P50Wait, s.P99Wait, s.MaxWait)
	}
	return b.String()
}

// String returns the number of samples and the p50, p90, p99 and p100 of
// the distribution (upper bucket edges: each at most 25% above the true
// value from 4 µs up), or "no samples"; never the buckets themselves. For
// example:
//
//	40 samples: p50 ≤ 12µs, p90 ≤ 64µs, p99 ≤ 96µs, p100 ≤ 160µs
func (h Histogram) String() string {
	n := h.Count()
	if n == 0 {
		return "no samples"
	}
	q := func(p float64) time.Duration { return h.Quantile(p) }
	return fmt.Sprintf("%d samples: p50 ≤ %v, p90 ≤ %v, p99 ≤ %v, p100 ≤ %v", n, q(0.5), q(0.9), q(0.99), q(1))
}
