package concurrency

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

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
