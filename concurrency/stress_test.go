package concurrency

import (
	"context"
	"math/rand/v2"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/innosim/innosim/prio"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stressLong reports whether INNOSIM_STRESS=long asks for the long runs (a
// million enter/exit pairs per gate).
func stressLong() bool { return os.Getenv("INNOSIM_STRESS") == "long" }

// stressGates are the gates the stress suite drives. bounded says whether
// the gate promises never to have more threads inside than its limit plus
// allowance (Atomic overbooks, then undoes); allowance is the lock-holder
// allowance the gate is made with (a third of the stress threads hold locks);
// changes whether SetLimit works at run time; observable whether its Stats
// count waits and cancellations.
var stressGates = []struct {
	name       string
	make       func(Config) (Gate, error)
	bounded    bool
	changes    bool
	observable bool
	allowance  int
}{
	{"queue", func(c Config) (Gate, error) { return NewQueue(c) }, true, true, true, 0},
	{"atomic", func(c Config) (Gate, error) { return NewAtomic(c) }, false, true, true, 0},
	{"semaphore", func(c Config) (Gate, error) { return NewSemaphore(c) }, true, false, false, 0},
	{"handoff", func(c Config) (Gate, error) { return NewHandoff(c) }, true, true, true, 0},
	{"handoff-barging", func(c Config) (Gate, error) { c.Starvation = 50 * time.Microsecond; return NewHandoff(c) }, true, true, true, 0},
	{"handoff-lock-holders", func(c Config) (Gate, error) { c.LockHolderAllowance = 2; return NewHandoff(c) }, true, true, true, 2},
	{"handoff-barging-lock-holders", func(c Config) (Gate, error) {
		c.Starvation, c.LockHolderAllowance = 50*time.Microsecond, 2
		return NewHandoff(c)
	}, true, true, true, 2},
	{"adaptive", func(c Config) (Gate, error) {
		return NewAdaptive(c, AIMDConfig{Max: c.Limit, Initial: c.Limit, Window: 50})
	}, true, false, true, 0},
}

// stressCounts is what one run did, for the log and the checks.
type stressCounts struct {
	attempts, admitted, failed, overLimit, limitChanges atomic.Uint64
	maxInside                                           atomic.Int64
}

// TestStressInsideNeverPassesTheLimit sends enter/exit pairs from many
// goroutines through each gate with a short burst inside, 10% of enters under
// a context that ends at a random moment (some already ended), one round in
// twenty waiting outside the gate (WaitOutside, as around a row-lock wait),
// tickets kept now and then (Exit) and given back otherwise (ForceExit): once
// with the limit fixed at 2, and once (gates whose limit can change) with the
// limit moved between 1 and 6 every 50 µs by a timer and every 200 pairs by
// the workers. A seatLedger of the threads on seats the limit bounds, checked
// at every admission, must never pass the limit (the highest one in force,
// while it changes) for the gates that promise it; seats taken back by
// WaitOutside's ForceEnter are beyond the limit by contract and not counted.
// Afterwards: every attempt either entered or failed, the
// failures are exactly the Canceled and PassedOn counts, the counters
// balance, nobody is inside or waiting, and no seat was leaked: with the limit
// at 4, four new threads enter at once and a fifth must wait.
//
// INNOSIM_STRESS=long makes it a million pairs per gate.
func TestStressInsideNeverPassesTheLimit(t *testing.T) {
	pairs := 40_000
	if stressLong() {
		pairs = 1_000_000
	}
	for _, g := range stressGates {
		phases := []struct {
			name     string
			maxLimit int
			changing bool
		}{
			{"limit=2", 2, false},
			{"limit=1..6-changing", 6, true},
		}
		for _, ph := range phases {
			if ph.changing && !g.changes {
				continue
			}
			t.Run("gate="+g.name+"/"+ph.name, func(t *testing.T) {
				cfg := Config{Limit: ph.maxLimit, Tickets: 3, SleepDelay: 20 * time.Microsecond,
					AdaptiveMaxSleepDelay: 200 * time.Microsecond, Priority: Auto}
				gate, err := g.make(cfg)
				require.NoError(t, err)
				var c stressCounts
				runStress(t, gate, ph.changing, ph.maxLimit, ph.maxLimit+g.allowance, pairs, &c)

				st := gate.Stats()
				require.Equal(t, uint64(pairs), c.attempts.Load())
				require.Equal(t, c.attempts.Load(), c.admitted.Load()+c.failed.Load(), "every enter entered or failed")
				if g.bounded {
					require.Zero(t, c.overLimit.Load(), "threads inside passed the limit (at most %d seen)", c.maxInside.Load())
				}
				if g.observable {
					require.Equal(t, c.failed.Load(), st.Canceled+st.PassedOn, "every failed enter is counted: %+v", st)
					require.Equal(t, st.Enters+st.ForceEnters, st.Exits+uint64(st.Inside), "seats balance: %+v", st)
					require.Equal(t, st.Waits, st.WaitsAdmitted+st.Canceled+uint64(st.Waiting), "waits balance: %+v", st)
				}
				require.Zero(t, st.Inside, "a seat is held after every thread left: %+v", st)
				require.Zero(t, st.Waiting)
				requireNoSeatLeaked(t, gate, g.changes)
				t.Logf("%d pairs: %d entered (%d on tickets), %d failed (canceled %d, passed on %d), %d waits, %d handoffs, %d limit changes, at most %d inside",
					pairs, c.admitted.Load(), st.TicketEnters, c.failed.Load(), st.Canceled, st.PassedOn,
					st.Waits, st.Handoffs, c.limitChanges.Load(), c.maxInside.Load())
			})
		}
	}
}

// seatLedger counts, for a stress, the threads on seats that the limit
// bounds: seats taken by Enter, not seats taken back by WaitOutside's
// ForceEnter, which are beyond the limit by contract for as long as their
// thread holds them — through an Exit that keeps the seat on its ticket and
// the ticket enters that follow, not only until the round's end. A thread is
// counted from the return of the Enter that seated it to the start of the
// call that gives the seat back, so the count never exceeds the seats really
// held; and it is one counter, so a check reads one consistent number. A
// harness that took a forced seat as ended with its round, or compared a
// count of threads inside with a count of forced seats read after it (the
// forced thread can leave between the two reads), counts two threads inside a
// limit-1 gate that has never held two on seats the limit bounds (see
// TestStrictHandoffExplorerFindsWhatItChecks and
// TestSeatLedgerCountsAForcedSeatUntilItIsGivenBack).
type seatLedger struct{ n atomic.Int64 }

// seatHolder is one goroutine's side of a seatLedger.
type seatHolder struct{ counted, forced bool }

// entered records an Enter on th that returned nil and reports the count,
// and whether th is counted: false for a seat taken back by ForceEnter (a
// ticket enter runs on it) and for no seat (limit 0).
func (l *seatLedger) entered(h *seatHolder, th *Thread) (int64, bool) {
	if !th.Inside() || h.forced {
		return 0, false
	}
	if h.counted { // a ticket enter on the seat already counted
		return l.n.Load(), true
	}
	h.counted = true
	return l.n.Add(1), true
}

// giving records that th is about to call Exit (force false: it gives the
// seat back only with no tickets left), ForceExit or WaitOutside (force true).
func (l *seatLedger) giving(h *seatHolder, th *Thread, force bool) {
	if h.counted && (force || th.Tickets() == 0) {
		h.counted = false
		l.n.Add(-1)
	}
}

// gave records the return of that call; after WaitOutside, th holds a forced
// seat if it is inside.
func (l *seatLedger) gave(t *testing.T, h *seatHolder, th *Thread, waitedOutside bool) {
	if waitedOutside {
		h.forced = th.Inside()
		return
	}
	if !th.Inside() {
		h.forced = false
		if h.counted {
			t.Errorf("Exit gave a seat back with tickets left")
		}
	}
}

func runStress(t *testing.T, gate Gate, changes bool, maxLimit, bound, pairs int, c *stressCounts) {
	const goroutines = 12
	var seats seatLedger
	stop := make(chan struct{})
	var changer sync.WaitGroup
	if changes {
		changer.Add(1)
		go func() {
			defer changer.Done()
			limits := []int{1, 4, maxLimit, 2, 5, 3}
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				case <-time.After(50 * time.Microsecond):
				}
				if err := gate.SetLimit(limits[i%len(limits)]); err != nil {
					t.Errorf("SetLimit: %v", err)
					return
				}
				c.limitChanges.Add(1)
			}
		}()
	}
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 42))
			th := &Thread{HoldsLocks: w%3 == 0, InTransaction: w%2 == 0, Hint: prio.Hint(w%5 - 2)}
			var h seatHolder
			defer func() {
				seats.giving(&h, th, true)
				gate.ForceExit(th)
			}()
			for next.Add(1) <= int64(pairs) {
				c.attempts.Add(1)
				ctx, cancel := context.Background(), context.CancelFunc(func() {})
				switch x := rng.IntN(100); {
				case x < 2:
					ctx = ended
				case x < 10:
					ctx, cancel = context.WithTimeout(ctx, time.Duration(rng.IntN(100))*time.Microsecond)
				}
				err := gate.Enter(ctx, th)
				cancel()
				if err != nil {
					c.failed.Add(1)
					if th.Inside() {
						t.Errorf("a failed Enter left the thread inside")
					}
					continue
				}
				c.admitted.Add(1)
				if n, counted := seats.entered(&h, th); counted {
					if n > int64(bound) {
						c.overLimit.Add(1)
					}
					for old := c.maxInside.Load(); n > old && !c.maxInside.CompareAndSwap(old, n); old = c.maxInside.Load() {
					}
				}
				for range rng.IntN(64) { // a short burst inside
					_ = rng.Uint64()
				}
				if rng.IntN(4) == 0 {
					runtime.Gosched() // let others try to enter while this one is inside
				}
				if rng.IntN(20) == 0 { // a lock wait, outside the gate
					seats.giving(&h, th, true)
					if err := WaitOutside(gate, th, func() error { runtime.Gosched(); return nil }); err != nil {
						t.Errorf("WaitOutside: %v", err)
					}
					seats.gave(t, &h, th, true)
				}
				if changes && rng.IntN(200) == 0 {
					// Change the limit from inside the load too: a timer
					// goroutine alone may not run while the workers spin.
					if err := gate.SetLimit(1 + rng.IntN(maxLimit)); err != nil {
						t.Errorf("SetLimit: %v", err)
					}
					c.limitChanges.Add(1)
				}
				if rng.IntN(3) == 0 {
					seats.giving(&h, th, false)
					gate.Exit(th) // keeps the seat while tickets last
				} else {
					seats.giving(&h, th, true)
					gate.ForceExit(th)
				}
				seats.gave(t, &h, th, false)
			}
		}()
	}
	wg.Wait()
	close(stop)
	changer.Wait()
	if n := seats.n.Load(); n != 0 {
		t.Errorf("the seat ledger counts %d threads after all left", n)
	}
}

// requireNoSeatLeaked checks that the gate's seats are all free: with the
// limit at 4 (or the fixed limit), that many new threads enter without
// waiting, and one more cannot enter before its context ends.
func requireNoSeatLeaked(t *testing.T, gate Gate, changes bool) {
	t.Helper()
	limit := gate.Limit()
	if changes {
		limit = 4
		require.NoError(t, gate.SetLimit(limit))
	}
	threads := make([]*Thread, limit)
	for i := range threads {
		threads[i] = &Thread{}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		require.NoError(t, gate.Enter(ctx, threads[i]), "seat %d of %d is free", i+1, limit)
		cancel()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	extra := &Thread{}
	require.Error(t, gate.Enter(ctx, extra), "a seat beyond the limit")
	cancel()
	for _, th := range threads {
		gate.ForceExit(th)
	}
	require.Zero(t, gate.Stats().Inside)
}

// TestSeatLedgerCountsAForcedSeatUntilItIsGivenBack walks the interleaving
// behind a stress harness's "two threads inside a limit-1 Handoff gate": A
// waits outside, B takes the seat A freed, A comes back on a forced seat (one
// ticket), A's Exit keeps that seat on the ticket and A's next Enter runs on
// it. The gate holds two seats, by contract (Stats().Inside is 2), but only
// B's is bounded by the limit; the ledger counts B alone throughout, and A
// again only once it has given the forced seat back and entered anew.
func TestSeatLedgerCountsAForcedSeatUntilItIsGivenBack(t *testing.T) {
	g, err := NewHandoff(Config{Limit: 1, Tickets: 5, Priority: Auto})
	require.NoError(t, err)
	ctx := context.Background()
	var seats seatLedger
	a, b := &Thread{InTransaction: true}, &Thread{}
	var ha, hb seatHolder
	enter := func(h *seatHolder, th *Thread) int64 {
		require.NoError(t, g.Enter(ctx, th))
		n, _ := seats.entered(h, th)
		return n
	}

	require.Equal(t, int64(1), enter(&ha, a))
	seats.giving(&ha, a, true)
	require.NoError(t, WaitOutside(g, a, func() error {
		require.Equal(t, int64(1), enter(&hb, b), "B takes the seat A gave back")
		return nil
	}))
	seats.gave(t, &ha, a, true)
	require.True(t, ha.forced)

	seats.giving(&ha, a, false)
	g.Exit(a)
	seats.gave(t, &ha, a, false)
	require.True(t, a.Inside(), "Exit keeps the forced seat on its ticket")
	require.NoError(t, g.Enter(ctx, a)) // the ticket enter, on the forced seat
	_, counted := seats.entered(&ha, a)
	assert.False(t, counted, "a ticket enter on a forced seat is not bounded by the limit")
	assert.Equal(t, int64(1), seats.n.Load())
	assert.Equal(t, int64(2), g.Stats().Inside, "B's seat and A's forced seat")

	seats.giving(&hb, b, true)
	g.ForceExit(b)
	seats.gave(t, &hb, b, false)
	seats.giving(&ha, a, false)
	g.Exit(a) // no tickets left: the forced seat goes back
	seats.gave(t, &ha, a, false)
	assert.False(t, a.Inside())
	assert.Zero(t, seats.n.Load())
	assert.Equal(t, int64(1), enter(&ha, a), "a new seat of A's is bounded again")
	seats.giving(&ha, a, true)
	g.ForceExit(a)
	assert.Zero(t, seats.n.Load())
	assert.Zero(t, g.Stats().Inside)
}
