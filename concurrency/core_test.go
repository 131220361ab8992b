package concurrency

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// coreMakers builds each deterministic core with cfg.
var coreMakers = []struct {
	name string
	make func(Config) (Core, error)
}{
	{"queue", func(c Config) (Core, error) { return NewQueueCore(c) }},
	{"atomic", func(c Config) (Core, error) { return NewAtomicCore(c) }},
	{"handoff", func(c Config) (Core, error) { return NewHandoffCore(c) }},
}

// checkBalance asserts the two counter identities of Stats.
func checkBalance(t *testing.T, s Stats) {
	t.Helper()
	assert.Equal(t, s.Enters+s.ForceEnters, s.Exits+uint64(s.Inside), "Enters+ForceEnters == Exits+Inside: %+v", s)
	assert.Equal(t, s.Waits, s.WaitsAdmitted+s.Canceled+uint64(s.Waiting), "Waits == WaitsAdmitted+Canceled+Waiting: %+v", s)
}

func TestConfigValidation(t *testing.T) {
	tests := []struct {
		name  string
		cfg   Config
		field string
	}{
		{"limit above 1000", Config{Limit: 1001}, "Limit = 1001, want 0..1000"},
		{"negative limit", Config{Limit: -1}, "Limit = -1"},
		{"tickets above 2^32-1", Config{Tickets: 1 << 32}, "Tickets = 4294967296, want 1..4294967295"},
		{"negative tickets", Config{Tickets: -5}, "Tickets = -5"},
		{"sleep delay above 1s", Config{SleepDelay: 2 * time.Second}, "SleepDelay = 2s, want 0..1s"},
		{"negative sleep delay", Config{SleepDelay: -time.Microsecond}, "SleepDelay = -1µs"},
		{"adaptive max above 1s", Config{AdaptiveMaxSleepDelay: time.Second + 1}, "AdaptiveMaxSleepDelay = 1.000000001s, want 0..1s"},
		{"unknown priority mode", Config{Priority: 7}, "Priority = 7"},
		{"negative kickup", Config{Kickup: -1}, "Kickup = -1ns"},
		{"starvation above 1s", Config{Starvation: 2 * time.Second}, "Starvation = 2s, want 0..1s"},
		{"negative starvation", Config{Starvation: -time.Millisecond}, "Starvation = -1ms"},
		{"lock-holder allowance above 1000", Config{LockHolderAllowance: 1001}, "LockHolderAllowance = 1001, want 0..1000"},
		{"negative lock-holder allowance", Config{LockHolderAllowance: -1}, "LockHolderAllowance = -1"},
	}
	for _, tt := range tests {
		for _, m := range coreMakers {
			t.Run(tt.name+"/"+m.name, func(t *testing.T) {
				_, err := m.make(tt.cfg)
				require.Error(t, err)
				assert.True(t, errors.Is(err, ErrInvalidConfig), "error %v does not wrap ErrInvalidConfig", err)
				assert.Contains(t, err.Error(), tt.field)
			})
		}
	}
	for _, m := range coreMakers {
		t.Run("zero config is valid/"+m.name, func(t *testing.T) {
			c, err := m.make(Config{})
			require.NoError(t, err)
			_, err = c.SetLimit(MaxLimit+1, 0)
			assert.ErrorIs(t, err, ErrInvalidConfig)
			assert.Equal(t, 0, c.Limit(), "a refused SetLimit leaves the limit unchanged")
		})
	}
}

func TestCoreAdmitsUpToLimit(t *testing.T) {
	for _, m := range coreMakers {
		t.Run(m.name, func(t *testing.T) {
			c, err := m.make(Config{Limit: 2, Tickets: 1})
			require.NoError(t, err)
			a, b, w := &Thread{}, &Thread{}, &Thread{HoldsLocks: true}
			assert.Equal(t, Admitted, c.Enter(a, 0).Verdict)
			assert.Equal(t, Admitted, c.Enter(b, 0).Verdict)
			assert.True(t, a.Inside())
			assert.Equal(t, uint32(1), a.Tickets())
			d := c.Enter(w, 0)
			assert.NotEqual(t, Admitted, d.Verdict, "a third thread must not get in at limit 2")
			s := c.Stats()
			assert.Equal(t, int64(2), s.Inside)
			assert.Equal(t, int64(1), s.Waiting)
			checkBalance(t, s)
		})
	}
}

func TestCoreTicketsKeepTheSeat(t *testing.T) {
	for _, m := range coreMakers {
		t.Run(m.name, func(t *testing.T) {
			c, err := m.make(Config{Limit: 1, Tickets: 2})
			require.NoError(t, err)
			a := &Thread{}
			// The seat, then two ticket enters; the exit after the last one frees it.
			wantExit := []Outcome{Kept, Kept, Freed}
			for i, want := range wantExit {
				require.Equal(t, Admitted, c.Enter(a, 0).Verdict, "round %d", i)
				assert.Equal(t, want, c.Exit(a, 0).Outcome, "round %d", i)
			}
			s := c.Stats()
			assert.Equal(t, uint64(1), s.Enters)
			assert.Equal(t, uint64(2), s.TicketEnters)
			assert.Equal(t, uint64(1), s.Exits)
			checkBalance(t, s)
		})
	}
}

func TestCoreForceExitAndForceEnter(t *testing.T) {
	for _, m := range coreMakers {
		t.Run(m.name, func(t *testing.T) {
			c, err := m.make(Config{Limit: 1, Tickets: 100})
			require.NoError(t, err)
			a, b := &Thread{}, &Thread{}
			require.Equal(t, Admitted, c.Enter(a, 0).Verdict)
			assert.Equal(t, Freed, c.ForceExit(a, 0).Outcome, "force exit gives the seat back despite tickets")
			assert.Equal(t, uint32(0), a.Tickets())
			require.Equal(t, Admitted, c.Enter(b, 0).Verdict)
			c.ForceEnter(a, 0) // back from a lock wait: over the limit
			assert.True(t, a.Inside())
			assert.Equal(t, uint32(1), a.Tickets())
			s := c.Stats()
			assert.Equal(t, int64(2), s.Inside, "force enter ignores the limit")
			assert.Equal(t, uint64(1), s.ForceEnters)
			assert.Equal(t, None, c.ForceExit(&Thread{}, 0).Outcome, "a thread outside holds nothing")
			checkBalance(t, c.Stats())
		})
	}
}

func TestCoreLimitZeroCountsNothing(t *testing.T) {
	for _, m := range coreMakers {
		t.Run(m.name, func(t *testing.T) {
			c, err := m.make(Config{})
			require.NoError(t, err)
			threads := make([]Thread, 5)
			for i := range threads {
				require.Equal(t, Admitted, c.Enter(&threads[i], 0).Verdict)
				c.ForceEnter(&threads[i], 0)
				assert.False(t, threads[i].Inside())
				assert.Equal(t, None, c.Exit(&threads[i], 0).Outcome)
			}
			assert.Equal(t, Stats{}, c.Stats())
		})
	}
}

func TestQueueCoreSleepsOnceThenQueues(t *testing.T) {
	tests := []struct {
		name       string
		holdsLocks bool
		want       []Verdict
	}{
		{"a thread without locks sleeps once, then queues", false, []Verdict{Sleep, Queued}},
		{"a thread holding locks queues at once", true, []Verdict{Queued}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := NewQueueCore(Config{Limit: 1, SleepDelay: 7 * time.Millisecond})
			require.NoError(t, err)
			require.Equal(t, Admitted, c.Enter(&Thread{}, 0).Verdict)
			w := &Thread{HoldsLocks: tt.holdsLocks}
			var got []Verdict
			for i := 0; i < 3; i++ {
				d := c.Enter(w, time.Duration(i)*time.Millisecond)
				got = append(got, d.Verdict)
				if d.Verdict == Sleep {
					assert.Equal(t, 7*time.Millisecond, d.Sleep)
					assert.True(t, w.HasSlept())
					continue
				}
				break
			}
			assert.Equal(t, tt.want, got)
			s := c.Stats()
			assert.Equal(t, int64(1), s.Waiting, "the thread counts as waiting once")
			assert.Equal(t, uint64(1), s.Waits)
			checkBalance(t, s)
		})
	}
}

// TestCoreHandoffOnExit: the seat of an exiting thread goes straight to the first
// queued waiter, counted on its behalf, so a newcomer cannot take it.
func TestCoreHandoffOnExit(t *testing.T) {
	queue, err := NewQueueCore(Config{Limit: 1})
	require.NoError(t, err)
	handoff, err := NewHandoffCore(Config{Limit: 1})
	require.NoError(t, err)
	for _, c := range []Core{queue, handoff} {
		a, w1, w2 := &Thread{}, &Thread{HoldsLocks: true}, &Thread{HoldsLocks: true}
		require.Equal(t, Admitted, c.Enter(a, 0).Verdict)
		require.Equal(t, Queued, c.Enter(w1, 1*time.Millisecond).Verdict)
		require.Equal(t, Queued, c.Enter(w2, 2*time.Millisecond).Verdict)
		r := c.ForceExit(a, 5*time.Millisecond)
		assert.Equal(t, Release{Outcome: HandedOff, To: w1}, r, "FIFO: the first waiter gets the seat")
		assert.True(t, w1.Inside())
		assert.NotEqual(t, Admitted, c.Enter(&Thread{HoldsLocks: true}, 6*time.Millisecond).Verdict, "a newcomer must not take a handed seat")
		s := c.Stats()
		assert.Equal(t, uint64(1), s.Handoffs)
		assert.Equal(t, uint64(1), s.WaitTime.Count())
		assert.Equal(t, 4096*time.Microsecond, s.WaitTime.Quantile(0.5), "a 4 ms (4000 µs) wait falls in the [2048, 4096) µs bucket")
		checkBalance(t, s)
	}
}

// TestCoreCancelPassesHandedSeatOn: a waiter whose context ends just after a seat
// was handed to it must pass the seat on, never drop it.
func TestCoreCancelPassesHandedSeatOn(t *testing.T) {
	queue, err := NewQueueCore(Config{Limit: 1})
	require.NoError(t, err)
	handoff, err := NewHandoffCore(Config{Limit: 1})
	require.NoError(t, err)
	for _, c := range []Core{queue, handoff} {
		a, w1, w2 := &Thread{}, &Thread{HoldsLocks: true}, &Thread{HoldsLocks: true}
		require.Equal(t, Admitted, c.Enter(a, 0).Verdict)
		require.Equal(t, Queued, c.Enter(w1, 0).Verdict)
		require.Equal(t, Queued, c.Enter(w2, 0).Verdict)
		require.Equal(t, w1, c.ForceExit(a, 0).To)
		r := c.Cancel(w1, 0) // w1 saw its context end before the wake
		assert.Equal(t, Release{Outcome: HandedOff, To: w2}, r)
		assert.False(t, w1.Inside())
		assert.Equal(t, Release{Outcome: Freed}, c.ForceExit(w2, 0))
		s := c.Stats()
		assert.Equal(t, int64(0), s.Inside)
		checkBalance(t, s)
	}
}

func TestCoreCancelWithdrawsQueuedWaiter(t *testing.T) {
	for _, m := range coreMakers {
		t.Run(m.name, func(t *testing.T) {
			c, err := m.make(Config{Limit: 1})
			require.NoError(t, err)
			a, w1, w2 := &Thread{}, &Thread{HoldsLocks: true}, &Thread{HoldsLocks: true}
			require.Equal(t, Admitted, c.Enter(a, 0).Verdict)
			require.NotEqual(t, Admitted, c.Enter(w1, 0).Verdict)
			require.NotEqual(t, Admitted, c.Enter(w2, 0).Verdict)
			assert.Equal(t, Withdrawn, c.Cancel(w1, 0).Outcome)
			r := c.ForceExit(a, 0)
			if r.Outcome == HandedOff {
				assert.Equal(t, w2, r.To, "the canceled waiter is skipped")
			} else {
				assert.Equal(t, Admitted, c.Enter(w2, 0).Verdict, "atomic: the sleeper gets the free seat on its next try")
			}
			s := c.Stats()
			assert.Equal(t, uint64(1), s.Canceled)
			assert.Equal(t, int64(1), s.Inside)
			assert.Equal(t, int64(0), s.Waiting)
			checkBalance(t, s)
		})
	}
}

func TestCoreRaisingLimitAdmitsEveryWaiterThatFits(t *testing.T) {
	queue, err := NewQueueCore(Config{Limit: 1})
	require.NoError(t, err)
	handoff, err := NewHandoffCore(Config{Limit: 1})
	require.NoError(t, err)
	for _, c := range []Core{queue, handoff} {
		a := &Thread{}
		require.Equal(t, Admitted, c.Enter(a, 0).Verdict)
		ws := make([]*Thread, 5)
		for i := range ws {
			ws[i] = &Thread{HoldsLocks: true}
			require.Equal(t, Queued, c.Enter(ws[i], 0).Verdict)
		}
		woken, err := c.SetLimit(4, 0)
		require.NoError(t, err)
		assert.Equal(t, ws[:3], woken, "limit 4 with one inside admits the first three waiters")
		woken, err = c.SetLimit(2, 0)
		require.NoError(t, err)
		assert.Empty(t, woken)
		assert.Equal(t, int64(4), c.Stats().Inside, "lowering the limit evicts nobody")
		assert.Equal(t, Freed, c.ForceExit(a, 0).Outcome, "over the lowered limit an exit frees its seat")
		assert.Equal(t, Freed, c.ForceExit(ws[0], 0).Outcome)
		assert.Equal(t, Release{Outcome: HandedOff, To: ws[3]}, c.ForceExit(ws[1], 0), "at the limit an exit hands off again")
		woken, err = c.SetLimit(0, 0)
		require.NoError(t, err)
		assert.Equal(t, ws[4:], woken, "limit 0 lets every waiter in")
		assert.False(t, ws[4].Inside(), "unchecked, holding no seat")
		checkBalance(t, c.Stats())
	}
}

func TestHandoffCorePriorityClasses(t *testing.T) {
	tests := []struct {
		name  string
		mode  PriorityMode
		order []string // which waiter gets each successive seat
	}{
		{"fifo ignores classes", FIFO, []string{"low", "trx", "hint"}},
		{"by hint serves the hinted thread first", ByHint, []string{"hint", "low", "trx"}},
		{"auto also favours a thread in a transaction", Auto, []string{"trx", "hint", "low"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := NewHandoffCore(Config{Limit: 1, Priority: tt.mode, Kickup: time.Hour})
			require.NoError(t, err)
			a := &Thread{}
			require.Equal(t, Admitted, c.Enter(a, 0).Verdict)
			waiters := map[*Thread]string{}
			for _, w := range []struct {
				name string
				t    *Thread
			}{
				{"low", &Thread{}},
				{"trx", &Thread{InTransaction: true}},
				{"hint", &Thread{Hint: 3}},
			} {
				waiters[w.t] = w.name
				require.Equal(t, Queued, c.Enter(w.t, 0).Verdict)
			}
			var got []string
			holder := a
			for range tt.order {
				r := c.ForceExit(holder, time.Second)
				require.Equal(t, HandedOff, r.Outcome)
				got = append(got, waiters[r.To])
				holder = r.To
			}
			assert.Equal(t, tt.order, got)
		})
	}
}

// TestHandoffCoreKickup: a low waiter cannot starve behind a stream of high ones;
// once older than the kickup time it joins the high queue's tail and is served
// before high waiters that arrive after that.
func TestHandoffCoreKickup(t *testing.T) {
	const ms = time.Millisecond
	c, err := NewHandoffCore(Config{Limit: 1, Priority: ByHint, Kickup: 10 * ms})
	require.NoError(t, err)
	a, old := &Thread{}, &Thread{}
	hi := []*Thread{{Hint: 3}, {Hint: 3}, {Hint: 3}}
	require.Equal(t, Admitted, c.Enter(a, 0).Verdict)
	require.Equal(t, Queued, c.Enter(old, 0).Verdict)
	require.Equal(t, Queued, c.Enter(hi[0], 1*ms).Verdict)
	assert.Equal(t, hi[0], c.ForceExit(a, 2*ms).To, "before the kickup time the high waiter goes first")
	require.Equal(t, Queued, c.Enter(hi[1], 3*ms).Verdict)
	assert.Equal(t, old, c.ForceExit(hi[0], 12*ms).To,
		"the aged low waiter joins the high queue in its place by waiting time: ahead of hi[1], who queued after it")
	require.Equal(t, Queued, c.Enter(hi[2], 13*ms).Verdict)
	assert.Equal(t, hi[1], c.ForceExit(old, 14*ms).To)
	assert.Equal(t, hi[2], c.ForceExit(hi[1], 15*ms).To)
	s := c.Stats()
	assert.Equal(t, uint64(1), s.Kickups)
	assert.Equal(t, uint64(3), s.WaitsHigh)
	assert.Equal(t, uint64(4), s.Waits)
	checkBalance(t, s)
}

func TestAtomicCoreAdaptiveDelay(t *testing.T) {
	t.Run("with nobody waiting the delay halves to 20 µs or less", func(t *testing.T) {
		c, err := NewAtomicCore(Config{Limit: 1, SleepDelay: 10 * time.Millisecond, AdaptiveMaxSleepDelay: 150 * time.Millisecond})
		require.NoError(t, err)
		th := &Thread{}
		prev := c.SleepDelay()
		for i := 0; i < 20; i++ {
			require.Equal(t, Admitted, c.Enter(th, 0).Verdict)
			c.ForceExit(th, 0)
			got := c.SleepDelay()
			if prev > 0 {
				assert.Equal(t, (prev/time.Microsecond)/2*time.Microsecond, got, "admission %d with nobody waiting halves the delay", i)
			}
			prev = got
		}
		assert.LessOrEqual(t, c.SleepDelay(), 20*time.Microsecond)
	})
	t.Run("under steady overload the delay never passes the cap", func(t *testing.T) {
		// The first admission finds nobody waiting and halves 2 ms to the 1 ms cap.
		c, err := NewAtomicCore(Config{Limit: 1, SleepDelay: 2 * time.Millisecond, AdaptiveMaxSleepDelay: time.Millisecond})
		require.NoError(t, err)
		require.Equal(t, Admitted, c.Enter(&Thread{}, 0).Verdict)
		sleepers := make([]Thread, 4)
		for round := 0; round < 100; round++ {
			for i := range sleepers {
				d := c.Enter(&sleepers[i], 0)
				require.Equal(t, Sleep, d.Verdict)
				assert.LessOrEqual(t, d.Sleep, time.Millisecond)
				assert.LessOrEqual(t, c.SleepDelay(), time.Millisecond)
			}
		}
		assert.Equal(t, time.Millisecond, c.SleepDelay(), "+1 µs per extra sleep reaches the cap and stops there")
	})
	t.Run("admitted after exactly one sleep the delay drops by 1 µs", func(t *testing.T) {
		c, err := NewAtomicCore(Config{Limit: 1, SleepDelay: 100 * time.Microsecond, AdaptiveMaxSleepDelay: time.Millisecond})
		require.NoError(t, err)
		a, w, other := &Thread{}, &Thread{}, &Thread{}
		require.Equal(t, Admitted, c.Enter(a, 0).Verdict) // nobody waits: 100 → 50
		require.Equal(t, 50*time.Microsecond, c.SleepDelay())
		require.Equal(t, Sleep, c.Enter(other, 0).Verdict) // keeps someone waiting
		require.Equal(t, Sleep, c.Enter(w, 0).Verdict)
		c.ForceExit(a, 0)
		require.Equal(t, Admitted, c.Enter(w, 0).Verdict)
		assert.Equal(t, 49*time.Microsecond, c.SleepDelay())
	})
	t.Run("adaptive max 0 keeps the delay fixed", func(t *testing.T) {
		c, err := NewAtomicCore(Config{Limit: 1, SleepDelay: 100 * time.Microsecond})
		require.NoError(t, err)
		th := &Thread{}
		for i := 0; i < 5; i++ {
			require.Equal(t, Admitted, c.Enter(th, 0).Verdict)
			c.ForceExit(th, 0)
		}
		assert.Equal(t, 100*time.Microsecond, c.SleepDelay())
	})
}

// TestHandoffCoreEnterCountCarries: the admission count kept in the state word's
// top 16 bits carries into entersHigh when it wraps, so Enters never goes back.
func TestHandoffCoreEnterCountCarries(t *testing.T) {
	c, err := NewHandoffCore(Config{Limit: 2})
	require.NoError(t, err)
	c.state.Store((enterWrap - 1) << enterShift) // one admission before the wrap
	th := &Thread{}
	for i := 0; i < 3; i++ {
		require.Equal(t, Admitted, c.Enter(th, 0).Verdict)
		require.Equal(t, Freed, c.ForceExit(th, 0).Outcome)
	}
	s := c.Stats()
	assert.Equal(t, uint64(enterWrap-1+3), s.Enters)
	assert.Equal(t, s.Enters, s.Exits)
	assert.Equal(t, int64(0), s.Inside)
}

func TestConfigValidateMatchesTheConstructors(t *testing.T) {
	bad := Config{Starvation: 2 * time.Second}
	err := bad.Validate()
	require.ErrorIs(t, err, ErrInvalidConfig)
	_, cerr := NewHandoffCore(bad)
	assert.Equal(t, cerr.Error(), err.Error())
	assert.NoError(t, DefaultConfig(8).Validate())
}
