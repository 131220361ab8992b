package concurrency_test

import (
	"context"
	"fmt"
	"time"

	"github.com/innosim/innosim/concurrency"
	"github.com/innosim/innosim/prio"
)

// A statement enters the engine, works, and gives its seat back at its end.
func ExampleNewQueue() {
	g, err := concurrency.NewQueue(concurrency.DefaultConfig(2))
	if err != nil {
		panic(err)
	}
	a, b, c := &concurrency.Thread{}, &concurrency.Thread{}, &concurrency.Thread{HoldsLocks: true}
	ctx := context.Background()
	_ = g.Enter(ctx, a)
	_ = g.Enter(ctx, b)

	admitted := make(chan error)
	go func() { admitted <- g.Enter(ctx, c) }() // holds locks: queues without sleeping
	for g.Stats().Waiting == 0 {
		time.Sleep(time.Millisecond)
	}
	g.ForceExit(a) // end of a's statement: its seat goes straight to c
	fmt.Println("c admitted:", <-admitted == nil, "inside:", c.Inside())
	g.ForceExit(b)
	g.ForceExit(c)
	s := g.Stats()
	fmt.Printf("enters %d, waits %d, handoffs %d, inside %d\n", s.Enters, s.Waits, s.Handoffs, s.Inside)
	// Output:
	// c admitted: true inside: true
	// enters 3, waits 1, handoffs 1, inside 0
}

// Tickets: after the first admission, the next Tickets enters pass without
// touching the gate, and Exit keeps the seat until they are spent.
func ExampleNewAtomic() {
	cfg := concurrency.DefaultConfig(4)
	cfg.Tickets = 2
	g, err := concurrency.NewAtomic(cfg)
	if err != nil {
		panic(err)
	}
	t := &concurrency.Thread{}
	for i := 0; i < 3; i++ {
		_ = g.Enter(context.Background(), t)
		g.Exit(t)
		fmt.Println("round", i, "inside after exit:", t.Inside())
	}
	s := g.Stats()
	fmt.Printf("enters %d, ticket enters %d, exits %d\n", s.Enters, s.TicketEnters, s.Exits)
	// Output:
	// round 0 inside after exit: true
	// round 1 inside after exit: true
	// round 2 inside after exit: false
	// enters 1, ticket enters 2, exits 1
}

// A thread about to wait for a row lock gives its seat back, and takes one back
// afterwards regardless of the limit, so lock waits cannot deadlock the gate.
func ExampleNewHandoff() {
	g, err := concurrency.NewHandoff(concurrency.Config{Limit: 1, Priority: concurrency.Auto})
	if err != nil {
		panic(err)
	}
	t, other := &concurrency.Thread{InTransaction: true}, &concurrency.Thread{}
	_ = g.Enter(context.Background(), t)
	g.ForceExit(t) // blocking on a row lock: free the seat
	_ = g.Enter(context.Background(), other)
	g.ForceEnter(t) // the lock was granted: back inside, over the limit
	fmt.Println("inside:", g.Stats().Inside, "tickets:", t.Tickets())
	g.ForceExit(t)
	g.ForceExit(other)
	fmt.Println("inside:", g.Stats().Inside)
	// Output:
	// inside: 2 tickets: 1
	// inside: 0
}

// With Starvation set, Handoff lets threads barge: an exit frees its seat and
// wakes one waiter to compete for it, and whoever enters first takes it.
func ExampleHandoffCore_barging() {
	c, _ := concurrency.NewHandoffCore(concurrency.Config{Limit: 1, Starvation: time.Millisecond})
	a, w, newcomer := &concurrency.Thread{}, &concurrency.Thread{}, &concurrency.Thread{}
	c.Enter(a, 0)
	fmt.Println(c.Enter(w, 0).Verdict)
	r := c.ForceExit(a, 0)
	fmt.Println(r.Outcome, r.To == w)
	fmt.Println(c.Enter(newcomer, 0).Verdict) // barges ahead of w
	fmt.Println(c.Enter(w, 0).Verdict)        // w lost: back to the head of the queue
	// Output:
	// queued
	// woken true
	// admitted
	// queued
}

// A canceled wait returns the context's error and holds no seat.
func ExampleNewSemaphore() {
	g, err := concurrency.NewSemaphore(concurrency.Config{Limit: 1})
	if err != nil {
		panic(err)
	}
	a, b := &concurrency.Thread{}, &concurrency.Thread{}
	_ = g.Enter(context.Background(), a)
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	fmt.Println(g.Enter(ctx, b), b.Inside())
	// Output:
	// context deadline exceeded false
}

func ExampleUnlimited() {
	var g concurrency.Unlimited
	t := &concurrency.Thread{}
	fmt.Println(g.Enter(context.Background(), t), t.Inside(), g.Stats() == concurrency.Stats{})
	// Output:
	// <nil> false true
}

// Configuration errors name the field and its range.
func ExampleNew() {
	_, err := concurrency.New(concurrency.PolicyQueue, concurrency.Config{Limit: 2000})
	fmt.Println(err)
	p, _ := concurrency.ParsePolicy("handoff")
	g, _ := concurrency.New(p, concurrency.DefaultConfig(8))
	fmt.Println(p, g.Limit())
	// Output:
	// concurrency: Limit = 2000, want 0..1000: invalid config
	// handoff 8
}

// Driving the MySQL 5.5 core by hand, as the simulator does: decisions come back
// as values, and the caller does the sleeping and the waking.
func ExampleQueueCore() {
	c, _ := concurrency.NewQueueCore(concurrency.Config{Limit: 1, SleepDelay: 10 * time.Millisecond})
	a, w := &concurrency.Thread{}, &concurrency.Thread{}
	fmt.Println(c.Enter(a, 0).Verdict)
	d := c.Enter(w, time.Millisecond)
	fmt.Println(d.Verdict, d.Sleep)                      // no locks held: sleep once first
	fmt.Println(c.Enter(w, 11*time.Millisecond).Verdict) // still full: queue
	r := c.ForceExit(a, 15*time.Millisecond)
	fmt.Println(r.Outcome, r.To == w, w.Inside())
	fmt.Println(c.Stats().WaitTime.Quantile(0.5)) // 14 ms waited, in the [12.288, 14.336) ms bucket
	// Output:
	// admitted
	// sleep 10ms
	// queued
	// handed-off true true
	// 14.336ms
}

// The MySQL 5.6+ core never queues: it tells the thread to sleep and retry, and
// adapts the sleep delay.
func ExampleAtomicCore() {
	c, _ := concurrency.NewAtomicCore(concurrency.Config{Limit: 1, SleepDelay: 100 * time.Microsecond, AdaptiveMaxSleepDelay: 150 * time.Millisecond})
	a, w := &concurrency.Thread{}, &concurrency.Thread{}
	c.Enter(a, 0) // nobody waits: the delay halves to 50 µs
	for i := 0; i < 3; i++ {
		d := c.Enter(w, 0)
		fmt.Println(d.Verdict, d.Sleep)
	}
	c.ForceExit(a, 0) // wakes nobody
	fmt.Println(c.Enter(w, 0).Verdict, c.SleepDelay())
	// Output:
	// sleep 50µs
	// sleep 50µs
	// sleep 51µs
	// admitted 26µs
}

// Handoff's core with priority classes: a high-priority waiter is served first.
func ExampleHandoffCore() {
	c, _ := concurrency.NewHandoffCore(concurrency.Config{Limit: 1, Priority: concurrency.ByHint})
	a := &concurrency.Thread{}
	low, high := &concurrency.Thread{Hint: prio.Background}, &concurrency.Thread{Hint: prio.High}
	c.Enter(a, 0)
	fmt.Println(c.Enter(low, 0).Verdict, c.Enter(high, 0).Verdict)
	r := c.ForceExit(a, time.Millisecond)
	fmt.Println(r.Outcome, r.To == high)
	woken, _ := c.SetLimit(2, time.Millisecond)
	fmt.Println(len(woken), woken[0] == low)
	// Output:
	// queued queued
	// handed-off true
	// 1 true
}

// The AIMD controller by hand: +1 per window within tolerance of the best mean
// time inside, ×0.9 above it.
func ExampleAIMD() {
	a, _ := concurrency.NewAIMD(concurrency.AIMDConfig{Initial: 10, Window: 1})
	for _, inside := range []time.Duration{100, 120, 140, 300, 300, 110} {
		lim, _ := a.Observe(inside * time.Microsecond)
		fmt.Print(lim, " ")
	}
	fmt.Println()
	// Output:
	// 11 12 13 11 9 10
}

// An adaptive gate starts at the controller's initial limit and moves it as
// rounds report their time inside.
func ExampleNewAdaptive() {
	g, err := concurrency.NewAdaptive(concurrency.DefaultConfig(0), concurrency.AIMDConfig{Initial: 4, Max: 64})
	if err != nil {
		panic(err)
	}
	t := &concurrency.Thread{}
	_ = g.Enter(context.Background(), t)
	g.ForceExit(t)
	fmt.Println(g.Limit())
	// Output:
	// 4
}

// ExampleStatement runs statements on a gate of limit 1, each with a Thread of
// its own that is dropped afterwards: Statement gives the seat back at the
// end of each, so the next one enters. (Ending them with Exit would keep the
// first seat on a ticket, and the second statement would wait forever.)
func ExampleStatement() {
	g, err := concurrency.NewHandoff(concurrency.Config{Limit: 1})
	if err != nil {
		panic(err)
	}
	for i := range 3 {
		t := &concurrency.Thread{}
		err := concurrency.Statement(context.Background(), g, t, func() error {
			fmt.Println("statement", i, "inside:", t.Inside())
			return nil
		})
		fmt.Println("  error:", err, "inside after:", t.Inside())
	}
	// Output:
	// statement 0 inside: true
	//   error: <nil> inside after: false
	// statement 1 inside: true
	//   error: <nil> inside after: false
	// statement 2 inside: true
	//   error: <nil> inside after: false
}

// ExampleWaitOutside: a thread about to wait for a row lock gives its seat
// back for the wait and takes one back afterwards, with one ticket, as InnoDB
// does around a lock wait; the holder of the lock can enter meanwhile.
func ExampleWaitOutside() {
	g, err := concurrency.NewHandoff(concurrency.Config{Limit: 1})
	if err != nil {
		panic(err)
	}
	waiter, holder := &concurrency.Thread{}, &concurrency.Thread{HoldsLocks: true}
	if err := g.Enter(context.Background(), waiter); err != nil {
		panic(err)
	}
	err = concurrency.WaitOutside(g, waiter, func() error {
		// The lock wait: the holder enters, commits and leaves.
		return concurrency.Statement(context.Background(), g, holder, func() error {
			fmt.Println("holder inside; waiter inside:", waiter.Inside())
			return nil
		})
	})
	fmt.Println("after the wait:", err, waiter.Inside(), waiter.Tickets())
	g.ForceExit(waiter)
	// Output:
	// holder inside; waiter inside: false
	// after the wait: <nil> true 1
}
