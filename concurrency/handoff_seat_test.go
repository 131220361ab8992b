package concurrency

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHandoffSeatNeverSeenFreeWhileWaiting: an exit that finds waiters passes its
// seat on without freeing it first, so while anyone waits every seat is taken
// (the state word never shows waiters with inside under the limit). A sampler
// reads the state word while threads cycle through the gate; an exit that freed
// the seat and then took it back for the waiter would show the gap.
func TestHandoffSeatNeverSeenFreeWhileWaiting(t *testing.T) {
	tests := []struct {
		name              string
		limit, goroutines int
	}{
		{"limit 1, 4 threads", 1, 4},
		{"limit 2, 8 threads", 2, 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := NewHandoff(Config{Limit: tt.limit})
			require.NoError(t, err)
			var stop atomic.Bool
			var gaps, samples, busy atomic.Uint64
			sampled := make(chan struct{})
			go func() {
				defer close(sampled)
				lim := uint64(tt.limit)
				for !stop.Load() {
					s := g.core.state.Load()
					samples.Add(1)
					if waitersOf(s) != 0 {
						busy.Add(1)
						if insideOf(s) < lim {
							gaps.Add(1)
						}
					}
				}
			}()
			var wg sync.WaitGroup
			for range tt.goroutines {
				wg.Go(func() {
					th := &Thread{}
					for range 2000 {
						if err := g.Enter(context.Background(), th); err != nil {
							t.Error(err)
							return
						}
						g.ForceExit(th)
					}
				})
			}
			wg.Wait()
			stop.Store(true)
			<-sampled
			assert.Zero(t, gaps.Load(), "samples showing a waiter and a free seat (of %d with waiters, %d in all)", busy.Load(), samples.Load())
			s := g.Stats()
			assert.Equal(t, uint64(tt.goroutines*2000), s.Enters)
			checkBalance(t, s)
		})
	}
}

// TestHandoffCoreExitWithWaiterKeepsSeatCounted: the two halves of an exit with
// a waiter queued. leave reports the waiter and leaves the seat counted; handOff
// moves the waiter inside in its place: inside stays at the limit throughout.
func TestHandoffCoreExitWithWaiterKeepsSeatCounted(t *testing.T) {
	c, err := NewHandoffCore(Config{Limit: 1})
	require.NoError(t, err)
	a, w := &Thread{}, &Thread{}
	require.Equal(t, Admitted, c.Enter(a, 0).Verdict)
	require.Equal(t, Queued, c.Enter(w, 0).Verdict)

	require.False(t, c.leave(a), "a waiter is queued: the seat must be handed off")
	assert.False(t, a.Inside())
	assert.Equal(t, int64(1), c.Stats().Inside, "the seat stays counted until it is handed on")
	assert.Equal(t, int64(1), c.Stats().Waiting)

	assert.Equal(t, Release{Outcome: HandedOff, To: w}, c.handOff(0))
	s := c.Stats()
	assert.Equal(t, int64(1), s.Inside)
	assert.Zero(t, s.Waiting)
	assert.True(t, w.Inside())
	checkBalance(t, s)

	assert.True(t, c.leave(w), "nobody waits: the seat is freed at once")
	assert.Zero(t, c.Stats().Inside)
	checkBalance(t, c.Stats())
}

// TestHandoffCoreFastPathsDecideOnlyTheUncontendedCase: fastEnter and
// fastLeave, the inlined one-CAS paths, act only when a seat is free (and, in
// strict handoff, nobody waits) or nobody waits; everything else is left,
// unchanged, to the slow paths.
func TestHandoffCoreFastPathsDecideOnlyTheUncontendedCase(t *testing.T) {
	tests := []struct {
		name       string
		starvation time.Duration
		limit      int
		state      uint64 // the state word before the enter
		tickets    uint32
		enters     bool
	}{
		{"a free seat and nobody waiting: enters", 0, 2, 1, 0, true},
		{"all seats taken: refuses", 0, 2, 2, 0, false},
		{"strict, a free seat but a waiter: refuses (no overtaking)", 0, 2, 1 + oneWaiter, 0, false},
		{"barging, a free seat and a waiter: enters", time.Millisecond, 2, 1 + oneWaiter, 0, true},
		{"barging, all seats taken and a waiter: refuses", time.Millisecond, 2, 2 + oneWaiter, 0, false},
		{"the admission count about to wrap: refuses (only the slow path wraps)", 0, 2, enterLast, 0, false},
		{"limit 0: refuses (tryEnter admits unchecked)", 0, 0, 0, 0, false},
		{"a ticket to spend: refuses (tryEnter counts it)", 0, 2, 0, 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := NewHandoffCore(Config{Limit: tt.limit, Tickets: 5, Starvation: tt.starvation})
			require.NoError(t, err)
			c.state.Store(tt.state)
			th := &Thread{tickets: tt.tickets}
			assert.Equal(t, tt.enters, c.fastEnter(th))
			want := tt.state
			if tt.enters {
				want += 1 + oneEnter
			}
			assert.Equal(t, want, c.state.Load())
			assert.Equal(t, tt.enters, th.Inside())
		})
	}

	c, err := NewHandoffCore(Config{Limit: 2})
	require.NoError(t, err)
	th := &Thread{inside: true}
	c.state.Store(2 + oneWaiter)
	assert.False(t, c.fastLeave(th), "a waiter is counted: the seat is left for handOff")
	assert.Equal(t, uint64(2+oneWaiter), c.state.Load())
	assert.True(t, th.Inside())
	c.state.Store(2)
	assert.True(t, c.fastLeave(th), "nobody waits: freed with one CAS")
	assert.Equal(t, uint64(1), c.state.Load())
	assert.False(t, th.Inside())
}

// TestDefaultConfigBargesAndZeroStarvationIsStrict: DefaultConfig's Handoff
// is bounded barging (a newcomer takes a seat freed while a thread waits), and
// Starvation 0 is strict handoff (the freed seat is the waiter's).
func TestDefaultConfigBargesAndZeroStarvationIsStrict(t *testing.T) {
	assert.Equal(t, time.Millisecond, DefaultConfig(1).Starvation)
	for _, tt := range []struct {
		name       string
		starvation time.Duration
		newcomerIn bool
	}{
		{"DefaultConfig: the newcomer barges", DefaultConfig(1).Starvation, true},
		{"Starvation 0: the seat is the waiter's", 0, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := DefaultConfig(1)
			cfg.Starvation = tt.starvation
			c, err := NewHandoffCore(cfg)
			require.NoError(t, err)
			holder, waiter, newcomer := &Thread{}, &Thread{}, &Thread{}
			require.Equal(t, Admitted, c.Enter(holder, 0).Verdict)
			require.Equal(t, Queued, c.Enter(waiter, 0).Verdict)
			c.ForceExit(holder, 0)
			assert.Equal(t, tt.newcomerIn, c.Enter(newcomer, 0).Verdict == Admitted)
		})
	}
}
