package concurrency

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Gate is the admission API a storage engine calls, implemented by every policy.
// All methods are safe for concurrent use by many threads, each with its own
// Thread. A Thread that holds another gate's seat is refused by every method
// that takes it, with ErrThreadOfOtherGate (Enter's error; the panic value of
// the others), and the gate is left unchanged.
type Gate interface {
	// Enter admits t, waiting if the policy makes it wait. It returns nil once t
	// may run inside, or ctx.Err() if ctx ends while t waits; t then holds no
	// seat. ctx is consulted only when t has to wait: a thread admitted at once
	// is admitted even with a done context — except by Semaphore, which takes a
	// seat as x/sync's Acquire does and fails a done context first.
	Enter(ctx context.Context, t *Thread) error
	// TryEnter admits t if Enter would admit it without waiting (a ticket,
	// a free seat the policy lets t take now) and reports whether it did; on
	// false nothing changed and t holds no seat. It is x/sync's TryAcquire
	// for a gate. It never blocks, and panics, as Exit does, for a Thread of
	// another gate (ErrThreadOfOtherGate).
	TryEnter(t *Thread) bool
	// Exit marks the end of t's work inside: t keeps its seat while it has
	// tickets, else gives it back (handing it to a waiter, for Queue and
	// Handoff). It does nothing if t holds no seat. It is InnoDB's per-row
	// exit, not the end of a statement: end a statement with ForceExit, or
	// run it with Statement, or the seat stays with t.
	Exit(t *Thread)
	// ForceExit gives t's seat back whatever its tickets: before a lock wait or
	// at the end of a statement, as srv_conc_force_exit_innodb.
	ForceExit(t *Thread)
	// ForceEnter gives t a seat regardless of the limit, with one ticket: after
	// a lock wait, as srv_conc_force_enter_innodb. It does nothing with limit 0.
	ForceEnter(t *Thread)
	// SetLimit changes the limit at run time (0..1000, 0 = unlimited). Raising it
	// admits waiters that now fit (Queue, Handoff; Atomic's sleepers notice on
	// their next try); lowering it evicts nobody. The error wraps
	// ErrInvalidConfig for a value out of range, or errors.ErrUnsupported for a
	// policy whose limit is fixed (Unlimited, Semaphore).
	SetLimit(n int) error
	// Limit returns the current limit (0 = unlimited).
	Limit() int
	// Stats returns a snapshot of the counters (see Stats).
	Stats() Stats
}

// Policy names an admission policy for New.
type Policy uint8

// The policies, in the order the benchmarks list them.
const (
	PolicyUnlimited Policy = iota // innodb_thread_concurrency = 0
	PolicyQueue                   // MySQL 5.5's mutex + FIFO gate
	PolicyAtomic                  // MySQL 5.6–8.0's atomics + adaptive sleep
	PolicySemaphore               // golang.org/x/sync/semaphore
	PolicyHandoff                 // innosim's lock-free handoff gate
	PolicyAdaptive                // Handoff with its limit found online (AIMD)
)

var policyNames = [...]string{"unlimited", "queue", "atomic", "semaphore", "handoff", "adaptive"}

// Policies lists every policy, for sweeps.
func Policies() []Policy {
	return []Policy{PolicyUnlimited, PolicyQueue, PolicyAtomic, PolicySemaphore, PolicyHandoff, PolicyAdaptive}
}

// String returns the policy's name as the benchmarks spell it ("queue", ...).
func (p Policy) String() string {
	if int(p) < len(policyNames) {
		return policyNames[p]
	}
	return fmt.Sprintf("policy(%d)", p)
}

// ParsePolicy returns the policy named s ("unlimited", "queue", "atomic",
// "semaphore", "handoff", "adaptive"); the error wraps ErrInvalidConfig.
func ParsePolicy(s string) (Policy, error) {
	for i, n := range policyNames {
		if n == s {
			return Policy(i), nil
		}
	}
	return 0, fmt.Errorf("concurrency: policy %q, want one of %v: %w", s, policyNames, ErrInvalidConfig)
}

// New returns a gate of policy p configured by cfg. PolicyUnlimited ignores cfg
// (its limit is always 0). PolicyAdaptive takes cfg.Limit as the largest limit
// it may choose (0: 1000) and AIMD defaults otherwise (NewAdaptive sets them
// all). The error wraps ErrInvalidConfig.
func New(p Policy, cfg Config) (Gate, error) {
	switch p {
	case PolicyUnlimited:
		return Unlimited{}, nil
	case PolicyQueue:
		return NewQueue(cfg)
	case PolicyAtomic:
		return NewAtomic(cfg)
	case PolicySemaphore:
		return NewSemaphore(cfg)
	case PolicyHandoff:
		return NewHandoff(cfg)
	case PolicyAdaptive:
		if _, err := cfg.validate(); err != nil {
			return nil, err
		}
		return NewAdaptive(cfg, AIMDConfig{Max: cfg.Limit})
	}
	return nil, fmt.Errorf("concurrency: policy %d, want 0..%d: %w", p, len(policyNames)-1, ErrInvalidConfig)
}

// errFixedLimit is SetLimit's error for a policy that cannot change its limit.
func errFixedLimit(policy string) error {
	return fmt.Errorf("concurrency: %s: the limit is fixed: %w", policy, errors.ErrUnsupported)
}

// clock is a real driver's time source for its core: time since the gate was made.
type clock struct{ start time.Time }

func newClock() clock { return clock{start: time.Now()} }

func (c clock) now() time.Duration { return time.Since(c.start) }

// wake hands the token to a thread named by a core as the new owner of a seat.
func wake(t *Thread) {
	if t != nil {
		t.wake <- struct{}{}
	}
}

// wakeFor wakes the thread a release names, if the release asks for a wake
// (HandedOff, Woken); a Reserved thread already has one on its way.
func wakeFor(r Release) {
	if r.Outcome == HandedOff || r.Outcome == Woken {
		wake(r.To)
	}
}

// sleepCtx sleeps d, or returns ctx.Err() if ctx ends first. d ≤ 0 only checks ctx.
func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	done := ctx.Done()
	if done == nil {
		time.Sleep(d)
		return nil
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
		return nil
	case <-done:
		return ctx.Err()
	}
}
