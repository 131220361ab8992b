package concurrency

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSharedThreadEnterWhileAnotherGoroutineWaitsFails: goroutine A waits in
// Enter with Thread t (the gate is full); goroutine B calls Enter with the same
// t. B's call must fail with ErrThreadShared at once, in every build, and A
// must be unaffected: admitted when the seat frees, with the counters
// balanced. Before, B queued t a second time, corrupting the wait queue: A
// and B hung (Queue, Handoff).
func TestSharedThreadEnterWhileAnotherGoroutineWaitsFails(t *testing.T) {
	gates := []struct {
		name string
		make func() (Gate, error)
	}{
		{"queue", func() (Gate, error) { return NewQueue(Config{Limit: 1}) }},
		{"queue-sleeping", func() (Gate, error) { return NewQueue(Config{Limit: 1, SleepDelay: 100 * time.Millisecond}) }},
		{"handoff", func() (Gate, error) { return NewHandoff(Config{Limit: 1}) }},
		{"handoff-barging", func() (Gate, error) { return NewHandoff(Config{Limit: 1, Starvation: time.Second}) }},
		{"adaptive", func() (Gate, error) { return NewAdaptive(Config{}, AIMDConfig{Max: 1, Initial: 1}) }},
	}
	for _, gg := range gates {
		t.Run(gg.name, func(t *testing.T) {
			g, err := gg.make()
			require.NoError(t, err)
			holder, shared := &Thread{}, &Thread{}
			require.NoError(t, g.Enter(context.Background(), holder))
			aDone := make(chan error, 1)
			go func() { aDone <- g.Enter(context.Background(), shared) }()
			waitUntil(t, "A waits", func() bool { return g.Stats().Waiting == 1 })

			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			err = g.Enter(ctx, shared) // B, misusing A's Thread
			require.ErrorIs(t, err, ErrThreadShared)
			assert.Contains(t, err.Error(), "concurrency: Enter: ")
			// The same call past the per-call check of -race builds: the
			// check every build makes, under the gate's mutex.
			require.ErrorIs(t, enterUnchecked(ctx, g, shared), ErrThreadShared)

			g.ForceExit(holder)
			require.NoError(t, <-aDone, "A is admitted as if B had not called")
			assert.True(t, shared.Inside())
			g.ForceExit(shared)
			s := g.Stats()
			assert.Zero(t, s.Inside)
			assert.Zero(t, s.Waiting)
			checkBalance(t, s)
		})
	}
}

// TestSharedThreadWokenInBargingIsNotSeatedTwice: with barging, a Thread
// woken to compete for a freed seat is still in its goroutine's Enter; a
// second goroutine's Enter with it must be refused, not seated on the free
// seat by the lock-free path while the first goroutine takes another.
func TestSharedThreadWokenInBargingIsNotSeatedTwice(t *testing.T) {
	c, err := NewHandoffCore(Config{Limit: 2, Starvation: time.Second})
	require.NoError(t, err)
	a, b, shared := &Thread{}, &Thread{}, &Thread{}
	require.Equal(t, Admitted, c.Enter(a, 0).Verdict)
	require.Equal(t, Admitted, c.Enter(b, 0).Verdict)
	require.Equal(t, Queued, c.Enter(shared, 0).Verdict)
	require.Equal(t, Release{Outcome: Woken, To: shared}, c.ForceExit(a, 0))
	assert.False(t, c.tryEnter(shared), "the lock-free path leaves a waiting Thread to the slow path")
	_, ok := c.enterSlow(shared, 0)
	assert.False(t, ok, "which refuses it")
	assert.Equal(t, Admitted, c.Enter(shared, 0).Verdict, "its own goroutine still gets the seat")
	s := c.Stats()
	assert.Equal(t, int64(2), s.Inside)
	checkBalance(t, s)
}

// TestSharedThreadEveryCallIsChecked (built with -race or -tags
// innosim_checkthreads): while goroutine A is inside a Gate call with Thread
// t, goroutine B's Enter with t fails with ErrThreadShared and B's Exit,
// ForceExit and ForceEnter panic with it, in B; A's call and the gate's counts
// are unaffected. Before, two goroutines exiting one Thread drove Atomic's
// Inside negative (and then past the limit), and Semaphore panicked in
// whichever goroutine released next, often an innocent one.
func TestSharedThreadEveryCallIsChecked(t *testing.T) {
	if !checkThreads {
		t.Skip("the per-call check is built with -race or -tags innosim_checkthreads")
	}
	for _, p := range []Policy{PolicyQueue, PolicyAtomic, PolicySemaphore, PolicyHandoff, PolicyAdaptive} {
		t.Run(p.String(), func(t *testing.T) {
			g, err := New(p, Config{Limit: 1, SleepDelay: time.Millisecond, AdaptiveMaxSleepDelay: time.Millisecond})
			require.NoError(t, err)
			holder, shared := &Thread{}, &Thread{}
			require.NoError(t, g.Enter(context.Background(), holder))
			ctx, cancel := context.WithCancel(context.Background())
			aDone := make(chan error, 1)
			go func() { aDone <- g.Enter(ctx, shared) }() // A: waits in Enter, holding the Thread
			waitUntil(t, "A's call holds the Thread", func() bool { return atomicLoadBusy(shared) })

			require.ErrorIs(t, g.Enter(context.Background(), shared), ErrThreadShared)
			for name, call := range map[string]func(*Thread){"Exit": g.Exit, "ForceExit": g.ForceExit, "ForceEnter": g.ForceEnter} {
				func() {
					defer func() {
						r := recover()
						err, _ := r.(error)
						assert.True(t, errors.Is(err, ErrThreadShared), "%s: recovered %v", name, r)
					}()
					call(shared)
				}()
			}
			cancel()
			assert.ErrorIs(t, <-aDone, context.Canceled, "A's wait ends as its context says")
			assert.False(t, shared.Inside())
			g.ForceExit(holder)
			if p != PolicySemaphore {
				s := g.Stats()
				assert.Zero(t, s.Inside, "no seat gained or lost: %+v", s)
				checkBalance(t, s)
			}
			require.NoError(t, g.Enter(context.Background(), shared), "the Thread is free again")
			g.ForceExit(shared)
		})
	}
}

// enterUnchecked is g.Enter without the per-call Thread check of -race and
// innosim_checkthreads builds.
func enterUnchecked(ctx context.Context, g Gate, t *Thread) error {
	switch g := g.(type) {
	case *Queue:
		return g.enter(ctx, t)
	case *Handoff:
		return g.enter(ctx, t)
	case *Adaptive:
		return g.h.enter(ctx, t)
	}
	return g.Enter(ctx, t)
}
