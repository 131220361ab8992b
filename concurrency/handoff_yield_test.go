package concurrency

import (
	"context"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBargingExitYieldsItsPToTheWaiter: on one P, a barging exit that wakes a
// waiter (Woken) or serves a starving one (HandedOff) lets the waiter run before
// the exiting goroutine goes on, so that the waiter takes the seat it was woken
// for instead of waiting a time slice behind its waker. Without the yield the
// exiting goroutine, which never blocks, would go on first every time. Go's
// scheduler takes a goroutine from the global run queue (where the yielding one
// goes) before the local one on one schedule in 61, so the test asks for most
// rounds, not all.
func TestBargingExitYieldsItsPToTheWaiter(t *testing.T) {
	for _, tc := range []struct {
		name       string
		starvation time.Duration
		outcome    func(Stats) uint64
	}{
		{"a waiter woken to compete", time.Second, func(s Stats) uint64 { return s.BargeWakes }},
		{"a starving waiter handed the seat", time.Nanosecond, func(s Stats) uint64 { return s.StarvationHandoffs }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
			const rounds = 20
			g, err := NewHandoff(Config{Limit: 1, Starvation: tc.starvation})
			require.NoError(t, err)
			ctx := context.Background()
			waiterFirst := 0
			for range rounds {
				a, w := &Thread{}, &Thread{}
				require.NoError(t, g.Enter(ctx, a))
				var mu sync.Mutex
				var order []string
				done := make(chan struct{})
				go func() {
					defer close(done)
					assert.NoError(t, g.Enter(ctx, w))
					mu.Lock()
					order = append(order, "waiter")
					mu.Unlock()
					g.ForceExit(w)
				}()
				waitFor(t, "the waiter queues", func() bool { return g.Stats().Waiting == 1 })
				g.ForceExit(a)
				mu.Lock()
				order = append(order, "exiter")
				if order[0] == "waiter" {
					waiterFirst++
				}
				mu.Unlock()
				<-done
			}
			assert.GreaterOrEqual(t, waiterFirst, rounds/2, "the waiter ran before its waker went on in %d of %d rounds", waiterFirst, rounds)
			s := g.Stats()
			assert.Equal(t, uint64(rounds), tc.outcome(s), "every round passed the seat this way")
			checkBalance(t, s)
		})
	}
}
