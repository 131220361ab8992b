package concurrency

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/innosim/innosim/prio"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rowLock is a row lock for the inversion tests: a one-token channel.
type rowLock chan struct{}

func (l rowLock) lock()   { l <- struct{}{} }
func (l rowLock) unlock() { <-l }

// waitUntil polls cond every 100 µs until it holds or 5 s pass.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(100 * time.Microsecond)
	}
}

// inversion runs the shape of Percona thread-pool bug 1619559 on a Handoff
// gate of limit 2: a low-class connection holds a row lock (in a transaction,
// between statements, outside the gate); six high-class connections enter and
// block on that lock, two inside and four queued; then the holder enters to
// commit. If the holder gets in, it commits (unlocks) and everyone finishes.
// aroundWait is how a blocked connection waits for the lock while inside.
// It returns the gate and the holder's Enter error (with a 300 ms context).
func inversion(t *testing.T, cfg Config, aroundWait func(g Gate, th *Thread, wait func() error) error) (*Handoff, error) {
	t.Helper()
	cfg.Limit = 2
	g, err := NewHandoff(cfg)
	require.NoError(t, err)
	lock := make(rowLock, 1)
	holder := &Thread{Hint: prio.Normal, InTransaction: true}
	require.NoError(t, Statement(context.Background(), g, holder, func() error { lock.lock(); return nil }))
	holder.HoldsLocks = true

	var wg sync.WaitGroup
	var blocked atomic.Int64 // connections at the lock
	for i := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			th := &Thread{Hint: prio.High, InTransaction: true}
			err := Statement(context.Background(), g, th, func() error {
				th.HoldsLocks = true // it holds other rows by now
				return aroundWait(g, th, func() error {
					blocked.Add(1)
					lock.lock()
					lock.unlock()
					return nil
				})
			})
			if err != nil {
				t.Errorf("blocked connection %d: %v", i, err)
			}
		}()
	}
	waitUntil(t, "the six connections wait for the lock or for a seat", func() bool {
		return blocked.Load()+g.Stats().Waiting == 6
	})
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	holderErr := Statement(ctx, g, holder, func() error { lock.unlock(); return nil }) // commit
	if holderErr != nil {
		lock.unlock() // rolled back from outside, so that the blocked connections finish
	}
	wg.Wait()
	require.Zero(t, g.Stats().Inside)
	return g, holderErr
}

// TestLockHolderIsNeverKeptOutByItsWaiters: the holder of a lock that the
// threads inside wait for is admitted within a bound, with every priority
// mode, either by the lock-holder allowance (the blocked threads forget to
// give their seats back) or because the blocked threads wait through
// WaitOutside (InnoDB's pattern). Without either it is kept out: the gate is
// full of threads waiting for it (the documented hazard the two remedies
// exist for).
func TestLockHolderIsNeverKeptOutByItsWaiters(t *testing.T) {
	inside := func(_ Gate, _ *Thread, wait func() error) error { return wait() } // blocks holding its seat
	for _, mode := range []PriorityMode{FIFO, ByHint, Auto} {
		for _, starvation := range []time.Duration{0, time.Millisecond} {
			name := fmt.Sprintf("%s/starvation=%v", mode, starvation)
			cfg := Config{Priority: mode, Starvation: starvation, Kickup: 10 * time.Millisecond}
			t.Run(name+"/allowance", func(t *testing.T) {
				c := cfg
				c.LockHolderAllowance = 1
				g, err := inversion(t, c, inside)
				require.NoError(t, err, "the holder was kept out")
				assert.Equal(t, uint64(1), g.Stats().LockHolderBypasses)
			})
			t.Run(name+"/WaitOutside", func(t *testing.T) {
				g, err := inversion(t, cfg, WaitOutside)
				require.NoError(t, err, "the holder was kept out")
				s := g.Stats()
				assert.Zero(t, s.LockHolderBypasses)
				assert.NotZero(t, s.ForceEnters, "the blocked threads came back with ForceEnter")
			})
			t.Run(name+"/neither", func(t *testing.T) {
				_, err := inversion(t, cfg, inside)
				require.ErrorIs(t, err, context.DeadlineExceeded, "kept out, as documented")
			})
		}
	}
}

// TestLockHolderAllowanceIsBounded: holders of locks enter past a full gate
// and past its queue only up to the allowance; beyond it they queue as anyone
// does, and an exit above the limit frees its seat rather than handing it on,
// so the count comes back under the limit.
func TestLockHolderAllowanceIsBounded(t *testing.T) {
	c, err := NewHandoffCore(Config{Limit: 1, LockHolderAllowance: 2})
	require.NoError(t, err)
	a, w := &Thread{}, &Thread{}
	h1, h2, h3 := &Thread{HoldsLocks: true}, &Thread{HoldsLocks: true}, &Thread{HoldsLocks: true}
	require.Equal(t, Admitted, c.Enter(a, 0).Verdict)
	require.Equal(t, Queued, c.Enter(w, 0).Verdict)
	assert.Equal(t, Admitted, c.Enter(h1, 0).Verdict, "past the queue")
	assert.Equal(t, Admitted, c.Enter(h2, 0).Verdict)
	assert.Equal(t, Queued, c.Enter(h3, 0).Verdict, "the allowance is spent")
	assert.Equal(t, int64(3), c.Stats().Inside)
	assert.Equal(t, Release{Outcome: Freed}, c.ForceExit(h1, 0), "above the limit: freed")
	assert.Equal(t, Release{Outcome: Freed}, c.ForceExit(h2, 0))
	assert.Equal(t, Release{Outcome: HandedOff, To: w}, c.ForceExit(a, 0), "at the limit: handed on in order")
	s := c.Stats()
	assert.Equal(t, uint64(2), s.LockHolderBypasses)
	assert.Equal(t, int64(1), s.Inside)
	checkBalance(t, s)
}

// TestStatementGivesTheSeatBackWhateverTheTickets: 64 goroutines run
// statements through a gate of limit 8, each statement on a fresh Thread that
// is dropped afterwards (the mistake behind "56 of 64 goroutines timed out"
// when statements ended with Exit, which keeps the seat on a ticket): with
// Statement every statement gives its seat back, also when fn fails or
// panics, so every goroutine finishes and nothing is left inside. Ending the
// statements with Exit instead leaks a seat per dropped Thread, and after 8
// the gate admits nobody (the documented hazard).
func TestStatementGivesTheSeatBackWhateverTheTickets(t *testing.T) {
	for _, p := range []Policy{PolicyQueue, PolicyAtomic, PolicySemaphore, PolicyHandoff, PolicyAdaptive} {
		t.Run(p.String(), func(t *testing.T) {
			g, err := New(p, Config{Limit: 8})
			require.NoError(t, err)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			errFn := errors.New("statement failed")
			var wg sync.WaitGroup
			for i := range 64 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for j := range 20 {
						th := &Thread{}
						err := func() (err error) {
							defer func() {
								if r := recover(); r != nil {
									err = fmt.Errorf("recovered: %v", r)
								}
							}()
							return Statement(ctx, g, th, func() error {
								switch (i + j) % 7 {
								case 0:
									return errFn
								case 1:
									panic("statement panicked")
								}
								return nil
							})
						}()
						if err != nil && !errors.Is(err, errFn) && err.Error() != "recovered: statement panicked" {
							t.Errorf("goroutine %d: %v", i, err)
							return
						}
						assert.False(t, th.Inside())
					}
				}()
			}
			wg.Wait()
			if p != PolicySemaphore { // Semaphore counts only waits
				assert.Zero(t, g.Stats().Inside)
			}
		})
	}
	t.Run("Exit instead leaks the seats", func(t *testing.T) {
		g, err := NewHandoff(Config{Limit: 8})
		require.NoError(t, err)
		for range 8 {
			th := &Thread{}
			require.NoError(t, g.Enter(context.Background(), th))
			g.Exit(th) // keeps the seat on a ticket; th is then dropped
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		require.ErrorIs(t, g.Enter(ctx, &Thread{}), context.DeadlineExceeded)
		assert.Equal(t, int64(8), g.Stats().Inside)
	})
}

// TestWaitOutsideWithoutASeatOnlyWaits: a thread that holds no seat (limit 0,
// or never entered) runs the wait and takes no seat afterwards.
func TestWaitOutsideWithoutASeatOnlyWaits(t *testing.T) {
	g, err := NewHandoff(Config{Limit: 2})
	require.NoError(t, err)
	th := &Thread{}
	ran := false
	require.NoError(t, WaitOutside(g, th, func() error { ran = true; return nil }))
	assert.True(t, ran)
	assert.False(t, th.Inside())
	assert.Zero(t, g.Stats().ForceEnters)

	require.NoError(t, g.Enter(context.Background(), th))
	errWait := errors.New("lock wait timeout")
	require.ErrorIs(t, WaitOutside(g, th, func() error {
		assert.False(t, th.Inside(), "outside during the wait")
		return errWait
	}), errWait)
	assert.True(t, th.Inside(), "back inside after the wait, whatever it returned")
	assert.Equal(t, uint32(1), th.Tickets())
	g.ForceExit(th)
	assert.Zero(t, g.Stats().Inside)
}
