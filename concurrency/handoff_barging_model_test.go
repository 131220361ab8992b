package concurrency

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/innosim/innosim/prio"
	"github.com/stretchr/testify/require"
)

// TestBargingModelNoSeatFreeWhileWaitersSleep drives a barging HandoffCore
// single-threaded through random steps — newcomers entering or forced in,
// threads inside entering on tickets and exiting, woken waiters trying again or canceling, queued waiters canceling,
// the limit changing — as a driver would, and checks after every step:
//
//   - no lost wakeup: while waiters sleep in the queue, every free seat has a
//     woken waiter on its way to it (inside + woken ≥ limit);
//   - nobody is admitted past the limit (ForceEnter aside);
//   - the counters balance, and the state word's waiter count is the queued
//     plus the woken threads.
func TestBargingModelNoSeatFreeWhileWaitersSleep(t *testing.T) {
	for _, starvation := range []time.Duration{0, 5 * ms} { // 0: strict handoff, as a reference
		for _, mode := range []PriorityMode{FIFO, ByHint, Auto} {
			for seed := range uint64(40) {
				t.Run(fmt.Sprintf("starvation=%v/%s/seed=%d", starvation, mode, seed), func(t *testing.T) {
					runBargingModel(t, starvation, mode, seed, 400)
				})
			}
		}
	}
}

func runBargingModel(t *testing.T, starvation time.Duration, mode PriorityMode, seed uint64, steps int) {
	rng := rand.New(rand.NewPCG(seed, 7))
	limit := 1 + rng.IntN(3)
	c, err := NewHandoffCore(Config{Limit: limit, Tickets: 2, Starvation: starvation, Priority: mode, Kickup: 3 * ms})
	require.NoError(t, err)
	threads := make([]*Thread, 8)
	for i := range threads {
		threads[i] = &Thread{Hint: prio.Hint(rng.IntN(2)) + prio.Normal, InTransaction: rng.IntN(2) == 0}
	}
	now := time.Duration(0)
	var woken []*Thread // told to compete (Release.To with Woken), not yet tried
	var drop func(w *Thread)
	take := func(r Release) {
		switch r.Outcome {
		case Woken:
			require.True(t, r.To.Woken())
			woken = append(woken, r.To)
		case HandedOff:
			require.True(t, r.To.Inside() || c.Limit() == 0)
		case Reserved:
			// A woken waiter past the starvation time got the seat: it is
			// inside, no longer woken, and its wake is the one already sent.
			require.True(t, r.To.Inside() || c.Limit() == 0)
			require.False(t, r.To.Woken())
			drop(r.To)
		}
	}
	drop = func(w *Thread) {
		for i, x := range woken {
			if x == w {
				woken = append(woken[:i], woken[i+1:]...)
				return
			}
		}
		t.Fatalf("thread %p was not woken", w)
	}
	for step := range steps {
		now += time.Duration(rng.IntN(3)) * ms
		th := threads[rng.IntN(len(threads))]
		before := c.Stats().Inside
		what := ""
		switch {
		case th.Woken():
			if rng.IntN(4) == 0 {
				what = "cancel woken"
				drop(th)
				take(c.Cancel(th, now))
			} else {
				what = "retry"
				drop(th)
				d := c.Enter(th, now)
				if d.Verdict == Admitted && c.Limit() != 0 {
					require.Less(t, before, int64(c.Limit()), "step %d: retry admitted past the limit", step)
				}
			}
		case th.Queued():
			if rng.IntN(4) == 0 {
				what = "cancel queued"
				take(c.Cancel(th, now))
			}
		case th.Inside():
			switch rng.IntN(3) {
			case 0:
				what = "force exit"
				take(c.ForceExit(th, now))
			case 1:
				what = "exit" // kept while tickets last
				take(c.Exit(th, now))
			default:
				what = "enter inside" // a ticket, or admitted again unchanged
				require.Equal(t, Admitted, c.Enter(th, now).Verdict)
				require.Equal(t, before, c.Stats().Inside)
			}
		default:
			switch rng.IntN(10) {
			case 1:
				what = "force enter"
				c.ForceEnter(th, now)
			case 0:
				what = "set limit"
				served, err := c.SetLimit(rng.IntN(4), now)
				require.NoError(t, err)
				_ = served // handed seats: the threads are inside (or unchecked at 0)
			default:
				what = "enter"
				if d := c.Enter(th, now); d.Verdict == Admitted && c.Limit() != 0 && th.Inside() {
					require.Less(t, before, int64(c.Limit()), "step %d: newcomer admitted past the limit", step)
				}
			}
		}
		// A woken waiter given its free seat on another thread's exit
		// (starvation) leaves the woken set without a Release naming it.
		for i := 0; i < len(woken); {
			if !woken[i].Woken() {
				require.True(t, woken[i].Inside() || c.Limit() == 0, "step %d: left the woken set without a seat", step)
				woken = append(woken[:i], woken[i+1:]...)
				continue
			}
			i++
		}
		s := c.Stats()
		checkBalance(t, s)
		c.mu.Lock()
		listed := c.listed()
		if starvation > 0 {
			// The bound: every waiter, queued or woken, is due no later than
			// the deadline an exit compares its clock with, so the first exit
			// after that serves the longest of them.
			for _, l := range []*waitList{&c.low, &c.high, &c.woken} {
				for w := l.head; w != nil; w = w.next {
					if l == &c.low && mode != FIFO && c.high.n > 0 {
						// A low waiter behind high ones is due at its kickup.
						require.LessOrEqual(t, c.deadline.Load(), int64(w.since+c.kickup), "step %d (%s): kickup deadline", step, what)
						continue
					}
					require.LessOrEqual(t, c.deadline.Load(), int64(w.since+c.bound), "step %d (%s): deadline past a waiter's bound", step, what)
				}
			}
		}
		c.mu.Unlock()
		require.Equal(t, int64(listed+len(woken)), s.Waiting, "step %d (%s): waiter count", step, what)
		if lim := c.Limit(); lim > 0 && listed > 0 {
			require.GreaterOrEqual(t, s.Inside+int64(len(woken)), int64(lim),
				"step %d (%s): %d seat(s) of %d taken, %d waiter(s) asleep, %d woken: a free seat nobody comes for",
				step, what, s.Inside, lim, listed, len(woken))
		}
	}
}
