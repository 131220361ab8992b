package concurrency

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/innosim/innosim/prio"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gateMakers builds each blocking policy with cfg. observable reports whether the
// gate's Stats show waiters (Semaphore counts nothing).
var gateMakers = []struct {
	name       string
	make       func(Config) (Gate, error)
	observable bool
	handsOff   bool // an exit hands the seat to a waiter (no polling)
}{
	{"queue", func(c Config) (Gate, error) { return NewQueue(c) }, true, true},
	{"atomic", func(c Config) (Gate, error) { return NewAtomic(c) }, true, false},
	{"semaphore", func(c Config) (Gate, error) { return NewSemaphore(c) }, false, true},
	{"handoff", func(c Config) (Gate, error) { return NewHandoff(c) }, true, true},
	{"handoff-barging", func(c Config) (Gate, error) { c.Starvation = time.Millisecond; return NewHandoff(c) }, true, true},
}

// testConfig is a small, fast configuration: a 200 µs sleep keeps Atomic's
// polling prompt without spinning.
func testConfig(limit int) Config {
	return Config{Limit: limit, Tickets: 1, SleepDelay: 200 * time.Microsecond, AdaptiveMaxSleepDelay: time.Millisecond}
}

// waitFor polls cond until it holds or 5 s pass. It synchronises a test with a
// goroutine's progress; it is never a performance assertion.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	require.Eventually(t, cond, 5*time.Second, 100*time.Microsecond, what)
}

// enterAsync starts t's Enter and returns the channel its result arrives on.
func enterAsync(ctx context.Context, g Gate, t *Thread) <-chan error {
	done := make(chan error, 1)
	go func() { done <- g.Enter(ctx, t) }()
	return done
}

// settle waits until the gate counts want threads waiting.
func settle(g Gate, want int64) func() bool {
	return func() bool { return g.Stats().Waiting >= want }
}

// TestCancelledWaiterLeaksNoSeat: limit 1; A inside; W1 waits and its context is
// canceled; W2 waits; A exits → W2 is admitted, and no seat is lost. This is the
// shape of a bug once fixed in x/sync/semaphore.
func TestCancelledWaiterLeaksNoSeat(t *testing.T) {
	for _, m := range gateMakers {
		t.Run(m.name, func(t *testing.T) {
			g, err := m.make(testConfig(1))
			require.NoError(t, err)
			a, w1, w2 := &Thread{}, &Thread{HoldsLocks: true}, &Thread{HoldsLocks: true}
			require.NoError(t, g.Enter(context.Background(), a))

			ctx1, cancel1 := context.WithCancel(context.Background())
			done1 := enterAsync(ctx1, g, w1)
			waitFor(t, "W1 waits", settle(g, 1))
			cancel1()
			assert.ErrorIs(t, <-done1, context.Canceled)
			assert.False(t, w1.Inside(), "a canceled waiter holds no seat")

			done2 := enterAsync(context.Background(), g, w2)
			waitFor(t, "W2 waits", settle(g, 1))
			select {
			case err := <-done2:
				t.Fatalf("W2 got in while A was inside (err %v)", err)
			default:
			}
			g.ForceExit(a)
			select {
			case err := <-done2:
				require.NoError(t, err)
			case <-time.After(5 * time.Second):
				t.Fatal("W2 was not admitted after A exited: the seat leaked")
			}
			assert.True(t, w2.Inside())
			g.ForceExit(w2)
			require.NoError(t, g.Enter(context.Background(), a), "the one seat is free again")
			g.ForceExit(a)
			if m.observable {
				s := g.Stats()
				assert.Equal(t, int64(0), s.Inside)
				assert.Equal(t, int64(0), s.Waiting)
				assert.Equal(t, uint64(1), s.Canceled)
				checkBalance(t, s)
			}
		})
	}
}

// TestRaisingLimitAdmitsWaitersThatFit: a public adaptive limiter once lost this
// wakeup — waiters stayed parked after the limit went up.
func TestRaisingLimitAdmitsWaitersThatFit(t *testing.T) {
	for _, m := range gateMakers {
		if m.name == "semaphore" {
			continue // a Weighted cannot be resized: see TestFixedLimitPolicies
		}
		t.Run(m.name, func(t *testing.T) {
			g, err := m.make(testConfig(1))
			require.NoError(t, err)
			a := &Thread{}
			require.NoError(t, g.Enter(context.Background(), a))
			ws := make([]Thread, 4)
			var admitted atomic.Int32
			var wg sync.WaitGroup
			for i := range ws {
				ws[i].HoldsLocks = true
				wg.Add(1)
				go func() {
					defer wg.Done()
					if assert.NoError(t, g.Enter(context.Background(), &ws[i])) {
						admitted.Add(1)
					}
				}()
			}
			waitFor(t, "four waiters", func() bool { return g.Stats().Waiting == 4 })
			require.NoError(t, g.SetLimit(3))
			waitFor(t, "two admitted at limit 3", func() bool { return admitted.Load() == 2 })
			assert.Equal(t, int64(3), g.Stats().Inside)
			assert.Equal(t, int64(2), g.Stats().Waiting)
			require.NoError(t, g.SetLimit(8))
			wg.Wait()
			assert.Equal(t, int32(4), admitted.Load())
			assert.Equal(t, int64(5), g.Stats().Inside)
			g.ForceExit(a)
			for i := range ws {
				g.ForceExit(&ws[i])
			}
			s := g.Stats()
			assert.Equal(t, int64(0), s.Inside)
			checkBalance(t, s)
		})
	}
}

func TestFixedLimitPolicies(t *testing.T) {
	tests := []struct {
		name string
		g    Gate
	}{
		{"unlimited", Unlimited{}},
		{"semaphore", func() Gate { g, _ := NewSemaphore(Config{Limit: 2}); return g }()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.NoError(t, tt.g.SetLimit(tt.g.Limit()), "setting the same limit is fine")
			err := tt.g.SetLimit(5)
			assert.ErrorIs(t, err, errors.ErrUnsupported)
		})
	}
}

// TestTicketsLetTheHolderFinishItsRun: limit 1, tickets 10; two long transactions
// of 100 enter/exit rounds and one short one. A seat changes hands only when its
// holder has spent its tickets, so every run of one holder is 11 rounds (the seat
// plus 10 tickets) or a multiple of it, except a thread's last; the short one gets
// in only after a long one has spent its tickets.
func TestTicketsLetTheHolderFinishItsRun(t *testing.T) {
	for _, m := range gateMakers {
		t.Run(m.name, func(t *testing.T) {
			cfg := testConfig(1)
			cfg.Tickets = 10
			g, err := m.make(cfg)
			require.NoError(t, err)
			var mu sync.Mutex
			var log []string
			run := func(name string, rounds int, th *Thread) {
				for i := 0; i < rounds; i++ {
					if !assert.NoError(t, g.Enter(context.Background(), th)) {
						return
					}
					mu.Lock()
					log = append(log, name)
					mu.Unlock()
					g.Exit(th)
				}
				g.ForceExit(th) // end of the transaction
			}
			var wg sync.WaitGroup
			for _, w := range []struct {
				name   string
				rounds int
			}{{"long1", 100}, {"long2", 100}, {"short", 1}} {
				wg.Add(1)
				go func() { defer wg.Done(); run(w.name, w.rounds, &Thread{HoldsLocks: true}) }()
			}
			wg.Wait()
			require.Len(t, log, 201)
			last := map[string]int{}
			for i, n := range log {
				last[n] = i
			}
			for i := 0; i < len(log); {
				j := i
				for j < len(log) && log[j] == log[i] {
					j++
				}
				if j-1 != last[log[i]] {
					assert.Zero(t, (j-i)%11, "%s held the seat for %d rounds at %d: a seat changes hands only when its tickets are spent", log[i], j-i, i)
				}
				if log[i] == "short" && i > 0 {
					assert.GreaterOrEqual(t, i, 11, "the short transaction got in before a long one spent its tickets")
				}
				i = j
			}
			if m.observable {
				s := g.Stats()
				assert.Equal(t, uint64(201), s.Enters+s.TicketEnters)
				checkBalance(t, s)
			}
		})
	}
}

// TestStressNeverOverLimit runs many threads through a small gate with some
// contexts that time out mid-wait, and checks that the inside count never passes
// the limit (Queue, Handoff, Semaphore) and that the counters balance.
func TestStressNeverOverLimit(t *testing.T) {
	const (
		limit      = 3
		goroutines = 12
		rounds     = 300
	)
	for _, m := range gateMakers {
		t.Run(m.name, func(t *testing.T) {
			g, err := m.make(testConfig(limit))
			require.NoError(t, err)
			var inside, maxInside atomic.Int64
			var admitted, canceled atomic.Int64
			var wg sync.WaitGroup
			for w := 0; w < goroutines; w++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					th := &Thread{HoldsLocks: w%2 == 0, Hint: prio.Hint(w % 3)}
					for i := 0; i < rounds; i++ {
						ctx, cancel := context.Background(), context.CancelFunc(func() {})
						if i%7 == w%7 {
							ctx, cancel = context.WithTimeout(ctx, 50*time.Microsecond)
						}
						err := g.Enter(ctx, th)
						cancel()
						if err != nil {
							canceled.Add(1)
							continue
						}
						admitted.Add(1)
						n := inside.Add(1)
						for old := maxInside.Load(); n > old && !maxInside.CompareAndSwap(old, n); old = maxInside.Load() {
						}
						for k := 0; k < 50; k++ { // a short burst inside
							_ = fmt.Sprint(k)
						}
						inside.Add(-1)
						if i%5 == 0 {
							g.Exit(th) // keep the seat on a ticket now and then
						} else {
							g.ForceExit(th)
						}
					}
					g.ForceExit(th)
				}()
			}
			wg.Wait()
			if m.name != "atomic" {
				assert.LessOrEqual(t, maxInside.Load(), int64(limit), "threads inside passed the limit")
			}
			assert.Equal(t, int64(goroutines*rounds), admitted.Load()+canceled.Load())
			if m.observable {
				s := g.Stats()
				assert.Equal(t, int64(0), s.Inside, "%+v", s)
				assert.Equal(t, int64(0), s.Waiting, "%+v", s)
				assert.Equal(t, uint64(canceled.Load()), s.Canceled+s.PassedOn, "every failed Enter is counted")
				checkBalance(t, s)
			}
		})
	}
}

// TestStressChangingLimit moves the limit up and down while threads enter and
// exit; every enter completes and the counters balance.
func TestStressChangingLimit(t *testing.T) {
	for _, m := range gateMakers {
		if m.name == "semaphore" {
			continue
		}
		t.Run(m.name, func(t *testing.T) {
			g, err := m.make(testConfig(2))
			require.NoError(t, err)
			var wg sync.WaitGroup
			stop := make(chan struct{})
			wg.Add(1)
			go func() {
				defer wg.Done()
				limits := []int{1, 4, 0, 2, 3}
				for i := 0; ; i++ {
					select {
					case <-stop:
						return
					default:
					}
					assert.NoError(t, g.SetLimit(limits[i%len(limits)]))
					time.Sleep(100 * time.Microsecond)
				}
			}()
			var workers sync.WaitGroup
			for w := 0; w < 8; w++ {
				workers.Add(1)
				go func() {
					defer workers.Done()
					th := &Thread{HoldsLocks: true}
					for i := 0; i < 300; i++ {
						if assert.NoError(t, g.Enter(context.Background(), th)) {
							g.ForceExit(th)
						}
					}
				}()
			}
			workers.Wait()
			close(stop)
			wg.Wait()
			s := g.Stats()
			assert.Equal(t, int64(0), s.Inside, "%+v", s)
			assert.Equal(t, int64(0), s.Waiting, "%+v", s)
			checkBalance(t, s)
		})
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	for _, p := range Policies() {
		if p == PolicyUnlimited {
			continue
		}
		t.Run(p.String(), func(t *testing.T) {
			_, err := New(p, Config{Limit: 5000})
			assert.ErrorIs(t, err, ErrInvalidConfig)
			assert.Contains(t, err.Error(), "Limit = 5000, want 0..1000")
		})
	}
	_, err := ParsePolicy("fifo")
	assert.ErrorIs(t, err, ErrInvalidConfig)
	p, err := ParsePolicy("handoff")
	require.NoError(t, err)
	assert.Equal(t, PolicyHandoff, p)
}

// TestHandoffAllocatesNothing: neither the fast path nor a wait allocates (the
// parking channel is made once per Thread, before this loop).
func TestHandoffAllocatesNothing(t *testing.T) {
	g, err := NewHandoff(Config{Limit: 1})
	require.NoError(t, err)
	ctx := context.Background()
	a := &Thread{}
	fast := testing.AllocsPerRun(1000, func() {
		_ = g.Enter(ctx, a)
		g.ForceExit(a)
	})
	assert.Zero(t, fast, "uncontended enter and exit")

	// Ping-pong the one seat between two goroutines that yield while inside, so
	// that every enter waits and every exit hands off. AllocsPerRun runs with
	// GOMAXPROCS 1, which makes the alternation strict; it counts b's
	// allocations too.
	b := &Thread{}
	var stop atomic.Bool
	done := make(chan struct{})
	go func() {
		defer close(done)
		for !stop.Load() {
			_ = g.Enter(ctx, b)
			runtime.Gosched()
			g.ForceExit(b)
		}
	}()
	waited := testing.AllocsPerRun(200, func() {
		_ = g.Enter(ctx, a)
		runtime.Gosched()
		g.ForceExit(a)
	})
	stop.Store(true)
	<-done
	assert.Zero(t, waited, "enters that wait and exits that hand off")
	s := g.Stats()
	assert.Greater(t, s.Waits, uint64(100), "the test exercised the wait path")
	assert.Greater(t, s.Handoffs, uint64(100))
}

// TestSetLimitOutOfRangeIsInvalidConfig pins that every policy refuses a limit
// outside 0..MaxLimit with ErrInvalidConfig, the fixed-limit ones included
// (Unlimited, Semaphore and Adaptive said only errors.ErrUnsupported, as if
// -1 were a limit they merely could not switch to).
func TestSetLimitOutOfRangeIsInvalidConfig(t *testing.T) {
	for _, p := range Policies() {
		t.Run(p.String(), func(t *testing.T) {
			g, err := New(p, Config{Limit: 4, Tickets: 1})
			if err != nil {
				t.Fatal(err)
			}
			if c, ok := g.(interface{ Close() }); ok {
				defer c.Close()
			}
			for _, n := range []int{-1, MaxLimit + 1} {
				err := g.SetLimit(n)
				if !errors.Is(err, ErrInvalidConfig) {
					t.Errorf("SetLimit(%d) = %v, want an error wrapping ErrInvalidConfig", n, err)
				}
			}
		})
	}
}

// TestWaitOutsideComesBackOverAFullGate: a thread that gave its seat back
// for a lock wait takes one back afterwards regardless of the limit
// (ForceEnter, as srv_conc_force_enter_innodb), even when the lock holder
// filled the gate meanwhile; its seat then counts, so a newcomer waits until
// both have left, and enters once they have. The Semaphore gate used to
// leave the thread outside (an x/sync Weighted cannot be overbooked).
func TestWaitOutsideComesBackOverAFullGate(t *testing.T) {
	makers := append(gateMakers[:len(gateMakers):len(gateMakers)], struct {
		name       string
		make       func(Config) (Gate, error)
		observable bool
		handsOff   bool
	}{"adaptive", func(c Config) (Gate, error) {
		return NewAdaptive(c, AIMDConfig{Initial: c.Limit, Max: c.Limit})
	}, true, true})
	for _, m := range makers {
		t.Run(m.name, func(t *testing.T) {
			g, err := m.make(testConfig(1))
			require.NoError(t, err)
			ctx := context.Background()
			waiter, holder, newcomer := &Thread{}, &Thread{HoldsLocks: true}, &Thread{}
			require.NoError(t, g.Enter(ctx, waiter))
			require.NoError(t, WaitOutside(g, waiter, func() error {
				return g.Enter(ctx, holder) // takes the freed seat and keeps it
			}))
			assert.True(t, waiter.Inside(), "back inside after the wait, over the full gate")
			assert.Equal(t, uint32(1), waiter.Tickets())
			if m.observable {
				assert.Equal(t, int64(2), g.Stats().Inside)
			}

			g.ForceExit(holder)
			short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
			defer cancel()
			assert.ErrorIs(t, g.Enter(short, newcomer), context.DeadlineExceeded, "the forced seat counts against the limit")
			g.ForceExit(waiter)
			require.NoError(t, g.Enter(ctx, newcomer), "both left: a seat is free")
			g.ForceExit(newcomer)
			if m.observable {
				s := g.Stats()
				assert.Zero(t, s.Inside)
				checkBalance(t, s)
			}
		})
	}
}
