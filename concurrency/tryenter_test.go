package concurrency

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sync/semaphore"
)

// tryEnterGates is every gate that counts seats, by name.
var tryEnterGates = []struct {
	name string
	make func(Config) (Gate, error)
}{
	{"queue", func(c Config) (Gate, error) { return NewQueue(c) }},
	{"atomic", func(c Config) (Gate, error) { return NewAtomic(c) }},
	{"semaphore", func(c Config) (Gate, error) { return NewSemaphore(c) }},
	{"handoff", func(c Config) (Gate, error) { return NewHandoff(c) }},
	{"handoff-barging", func(c Config) (Gate, error) { c.Starvation = time.Millisecond; return NewHandoff(c) }},
	{"adaptive", func(c Config) (Gate, error) { return NewAdaptive(c, AIMDConfig{Initial: c.Limit, Max: c.Limit}) }},
}

// TestTryEnterTakesOnlyASeatFreeNow: TryEnter admits where Enter would
// admit at once (a free seat, a ticket) and otherwise reports false with
// nothing changed: the thread holds no seat, no wait is counted, and the
// seat it did not get is still there for the next thread.
func TestTryEnterTakesOnlyASeatFreeNow(t *testing.T) {
	for _, m := range tryEnterGates {
		t.Run(m.name, func(t *testing.T) {
			cfg := testConfig(1)
			cfg.Tickets = 2
			g, err := m.make(cfg)
			require.NoError(t, err)
			a, b := &Thread{}, &Thread{}
			require.True(t, g.TryEnter(a), "a free seat")
			assert.True(t, a.Inside())
			before := g.Stats()
			assert.False(t, g.TryEnter(b), "the gate is full")
			assert.False(t, b.Inside())
			assert.Equal(t, before, g.Stats(), "a refused TryEnter changes no counter")

			g.Exit(a) // keeps the seat: two tickets
			assert.True(t, g.TryEnter(a), "a ticket")
			g.ForceExit(a)
			assert.True(t, g.TryEnter(b), "the seat a gave back")
			g.ForceExit(b)
			s := g.Stats()
			assert.Zero(t, s.Inside)
			assert.Zero(t, s.Waits)
			checkBalance(t, s)
		})
	}
	t.Run("unlimited", func(t *testing.T) {
		assert.True(t, Unlimited{}.TryEnter(&Thread{}))
	})
}

// TestTryEnterDoesNotOvertakeAWaiter: in the gates that serve waiters in
// order (strict Handoff, Semaphore as x/sync's TryAcquire, Queue), a seat
// handed to a waiter is not there for TryEnter, and while the waiter is
// parked TryEnter does not admit past it.
func TestTryEnterDoesNotOvertakeAWaiter(t *testing.T) {
	for _, m := range tryEnterGates[:4] {
		if m.name == "atomic" {
			continue // Atomic has no queue: a freed seat goes to whoever polls first
		}
		t.Run(m.name, func(t *testing.T) {
			cfg := testConfig(1)
			cfg.SleepDelay = 0
			g, err := m.make(cfg)
			require.NoError(t, err)
			a, w, b := &Thread{}, &Thread{HoldsLocks: true}, &Thread{}
			require.NoError(t, g.Enter(context.Background(), a))
			done := enterAsync(context.Background(), g, w)
			waitFor(t, "w waits", settle(g, 1))
			if sg, ok := g.(*Semaphore); ok {
				// Counted as waiting before it calls Acquire; x/sync's
				// TryAcquire(0) fails once it is in the queue.
				waitFor(t, "w queued in x/sync", func() bool { return !sg.sem.TryAcquire(0) })
			}
			assert.False(t, g.TryEnter(b), "full, and w waits")
			g.ForceExit(a) // hands the seat to w
			require.NoError(t, <-done)
			assert.False(t, g.TryEnter(b), "the seat went to w")
			g.ForceExit(w)
			assert.True(t, g.TryEnter(b))
			g.ForceExit(b)
		})
	}
}

// TestHandoffTryEnterAcrossTheAdmissionCountWrap: the lock-free attempt
// declines the admission that wraps the state word's count (wraps happen
// under the mutex only); TryEnter then admits under the mutex instead of
// reporting a free seat as taken.
func TestHandoffTryEnterAcrossTheAdmissionCountWrap(t *testing.T) {
	g, err := NewHandoff(Config{Limit: 1, Tickets: 1})
	require.NoError(t, err)
	var th Thread
	for i := 0; i < enterWrap-1; i++ {
		require.True(t, g.TryEnter(&th))
		g.ForceExit(&th)
	}
	require.True(t, g.TryEnter(&th), "the admission that wraps the count")
	g.ForceExit(&th)
	assert.Equal(t, uint64(enterWrap), g.Stats().Enters)
}

// TestSemaphoreEnterFailsOnADoneContextAsAcquire: the Semaphore gate takes a
// seat as x/sync's Acquire does, so a context already done fails the enter
// even with every seat free, and the failure is counted as a canceled wait;
// a ticket enter takes no seat and goes ahead.
func TestSemaphoreEnterFailsOnADoneContextAsAcquire(t *testing.T) {
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	require.ErrorIs(t, semaphore.NewWeighted(1).Acquire(ended, 1), context.Canceled, "x/sync's own behaviour")

	g, err := NewSemaphore(Config{Limit: 1, Tickets: 2})
	require.NoError(t, err)
	th := &Thread{}
	assert.ErrorIs(t, g.Enter(ended, th), context.Canceled)
	assert.False(t, th.Inside())
	s := g.Stats()
	assert.Equal(t, uint64(1), s.Waits)
	assert.Equal(t, uint64(1), s.Canceled)
	checkBalance(t, s)

	require.NoError(t, g.Enter(context.Background(), th))
	g.Exit(th) // kept on a ticket
	assert.NoError(t, g.Enter(ended, th), "a ticket enter takes no seat")
	g.ForceExit(th)
	assert.True(t, g.TryEnter(th), "the seat came back")
	g.ForceExit(th)
}
