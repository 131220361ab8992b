package concurrency

import (
	"testing"
	"time"

	"github.com/innosim/innosim/prio"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const ms = time.Millisecond

func newBargingCore(t *testing.T, limit int) *HandoffCore {
	t.Helper()
	c, err := NewHandoffCore(Config{Limit: limit, Starvation: 10 * ms})
	require.NoError(t, err)
	return c
}

// TestBargingExitFreesTheSeatAndWakesOneWaiter: with barging, an exit frees its
// seat and wakes the first waiter to compete for it; a newcomer that comes
// first takes it, and the woken waiter goes back to the head of the queue.
func TestBargingExitFreesTheSeatAndWakesOneWaiter(t *testing.T) {
	c := newBargingCore(t, 1)
	a, w1, w2, n := &Thread{}, &Thread{}, &Thread{}, &Thread{}
	require.Equal(t, Admitted, c.Enter(a, 0).Verdict)
	require.Equal(t, Queued, c.Enter(w1, 1*ms).Verdict)
	require.Equal(t, Queued, c.Enter(w2, 2*ms).Verdict)

	assert.Equal(t, Release{Outcome: Woken, To: w1}, c.ForceExit(a, 3*ms))
	assert.True(t, w1.Woken())
	assert.False(t, w1.Inside(), "woken to compete, not handed the seat")
	assert.Equal(t, int64(0), c.Stats().Inside, "the seat is free")

	require.Equal(t, Admitted, c.Enter(n, 3*ms).Verdict, "a newcomer barges")
	assert.Equal(t, Queued, c.Enter(w1, 4*ms).Verdict, "the woken waiter lost the seat")
	assert.Equal(t, w1, c.low.head, "and is back at the head of its queue, ahead of w2")

	assert.Equal(t, Release{Outcome: Woken, To: w1}, c.ForceExit(n, 5*ms))
	assert.Equal(t, Admitted, c.Enter(w1, 5*ms).Verdict, "nobody barged this time")
	assert.True(t, w1.Inside())
	s := c.Stats()
	assert.Equal(t, uint64(0), s.Handoffs, "no seat was handed over")
	assert.Equal(t, int64(1), s.Waiting, "w2 still waits")
	checkBalance(t, s)
}

// TestBargingWakesOneWaiterPerFreeSeat: an exit wakes a waiter unless the woken
// waiters that have not tried yet already cover every free seat. Two exits in a
// row free two seats and wake two waiters: with one woken waiter for two free
// seats, the one that tried would take a seat and leave the other free while
// w2 sleeps, until some later exit (a lost wakeup).
func TestBargingWakesOneWaiterPerFreeSeat(t *testing.T) {
	c := newBargingCore(t, 2)
	a, b, w1, w2, w3 := &Thread{}, &Thread{}, &Thread{}, &Thread{}, &Thread{}
	require.Equal(t, Admitted, c.Enter(a, 0).Verdict)
	require.Equal(t, Admitted, c.Enter(b, 0).Verdict)
	require.Equal(t, Queued, c.Enter(w1, 0).Verdict)
	require.Equal(t, Queued, c.Enter(w2, 0).Verdict)
	require.Equal(t, Queued, c.Enter(w3, 0).Verdict)

	assert.Equal(t, Release{Outcome: Woken, To: w1}, c.ForceExit(a, 0))
	assert.Equal(t, Release{Outcome: Woken, To: w2}, c.ForceExit(b, 0), "two seats free, one woken waiter: wake another")
	assert.Equal(t, Admitted, c.Enter(w1, 0).Verdict)
	assert.Equal(t, Admitted, c.Enter(w2, 0).Verdict)
	assert.False(t, w3.Woken())

	// One free seat already has its woken waiter: the next exit wakes nobody
	// else, and the woken waiter finds a seat when it tries.
	assert.Equal(t, Release{Outcome: Woken, To: w3}, c.ForceExit(w1, 0))
	n := &Thread{}
	require.Equal(t, Admitted, c.Enter(n, 0).Verdict, "a newcomer barges")
	w4 := &Thread{}
	require.Equal(t, Queued, c.Enter(w4, 0).Verdict)
	assert.Equal(t, Release{Outcome: Freed}, c.ForceExit(w2, 0), "w3 has not tried yet and one seat is free: no second wake")
	assert.Equal(t, Admitted, c.Enter(w3, 0).Verdict)
	assert.False(t, w4.Woken())
	s := c.Stats()
	assert.Equal(t, int64(2), s.Inside)
	assert.Equal(t, int64(1), s.Waiting)
	checkBalance(t, s)
}

// TestBargingStarvingWaiterIsHandedTheNextSeat: an exit that finds the head
// of the queue waiting the Starvation time or longer hands its seat strictly
// to it instead of freeing it for barging; before that, freed seats go to
// whoever comes first.
func TestBargingStarvingWaiterIsHandedTheNextSeat(t *testing.T) {
	c := newBargingCore(t, 1)
	a, w, n1, n2 := &Thread{}, &Thread{}, &Thread{}, &Thread{}
	require.Equal(t, Admitted, c.Enter(a, 0).Verdict)
	require.Equal(t, Queued, c.Enter(w, 0).Verdict)
	require.Equal(t, Release{Outcome: Woken, To: w}, c.ForceExit(a, 3*ms))
	require.Equal(t, Admitted, c.Enter(n1, 3*ms).Verdict, "a newcomer barges")
	require.Equal(t, Queued, c.Enter(w, 4*ms).Verdict, "w lost, after 4 ms < 10 ms")

	s := c.Stats()
	assert.Equal(t, uint64(1), s.BargeWakes)
	assert.Equal(t, uint64(1), s.BargeLosses, "w was woken once and lost once")
	assert.Equal(t, Release{Outcome: HandedOff, To: w}, c.ForceExit(n1, 10*ms), "w has waited 10 ms: the seat goes straight to it")
	assert.True(t, w.Inside())
	assert.Equal(t, Queued, c.Enter(n2, 10*ms).Verdict, "the seat was never free")
	assert.Equal(t, Release{Outcome: Woken, To: n2}, c.ForceExit(w, 11*ms), "n2 has waited 1 ms: barging again")
	s = c.Stats()
	assert.Equal(t, uint64(1), s.StarvationHandoffs)
	assert.Equal(t, uint64(1), s.Handoffs)
	assert.Equal(t, 10*ms, s.MaxWait)
	checkBalance(t, s)
}

// TestBargingBoundHoldsWhileTheWokenGoroutineDoesNotRun: the bound does not
// depend on when the scheduler runs a woken waiter. w is woken to compete and
// does not run; barging threads take every freed seat; the first exit after w
// has waited the Starvation time reserves that exit's seat for w (Reserved: no
// second wake), so that when w finally runs, 20 ms later, it is inside, and
// its wait is counted to the reservation.
func TestBargingBoundHoldsWhileTheWokenGoroutineDoesNotRun(t *testing.T) {
	c := newBargingCore(t, 1)
	a, w, n1, n2, n3 := &Thread{}, &Thread{}, &Thread{}, &Thread{}, &Thread{}
	require.Equal(t, Admitted, c.Enter(a, 0).Verdict)
	require.Equal(t, Queued, c.Enter(w, 0).Verdict)
	require.Equal(t, Release{Outcome: Woken, To: w}, c.ForceExit(a, 1*ms))
	require.Equal(t, Admitted, c.Enter(n1, 1*ms).Verdict, "barges: w has not run")
	require.Equal(t, Release{Outcome: Freed}, c.ForceExit(n1, 5*ms), "w, woken, still has the free seat to come for")
	require.Equal(t, Admitted, c.Enter(n2, 5*ms).Verdict, "barges again")

	assert.Equal(t, Release{Outcome: Reserved, To: w}, c.ForceExit(n2, 10*ms))
	assert.True(t, w.Inside())
	assert.False(t, w.Woken())
	assert.Equal(t, Queued, c.Enter(n3, 10*ms).Verdict, "w's seat is kept for it")
	assert.Equal(t, Admitted, c.Enter(w, 30*ms).Verdict, "w runs at last and is inside")
	s := c.Stats()
	assert.Equal(t, uint64(1), s.StarvationHandoffs)
	assert.Equal(t, 10*ms, s.MaxWait, "the wait ended with the reservation")
	assert.Equal(t, int64(1), s.Waiting, "n3")
	checkBalance(t, s)
}

// TestBargingStarvingWokenWaiterTakesItsFreeSeat: a woken waiter that has not
// run and has waited the Starvation time, whose free seat no barging thread
// took, is given that seat on the next exit; the exiting thread's seat is then
// freed as in barging. Handing it the exiting seat instead would leave the
// free seat claimed by nobody while others sleep.
func TestBargingStarvingWokenWaiterTakesItsFreeSeat(t *testing.T) {
	c := newBargingCore(t, 2)
	a, b, w, q := &Thread{}, &Thread{}, &Thread{}, &Thread{}
	require.Equal(t, Admitted, c.Enter(a, 0).Verdict)
	require.Equal(t, Admitted, c.Enter(b, 0).Verdict)
	require.Equal(t, Queued, c.Enter(w, 0).Verdict)
	require.Equal(t, Queued, c.Enter(q, 2*ms).Verdict)
	require.Equal(t, Release{Outcome: Woken, To: w}, c.ForceExit(a, 1*ms))

	assert.Equal(t, Release{Outcome: Woken, To: q}, c.ForceExit(b, 10*ms),
		"w gets the free seat; b's seat is freed and q woken to compete for it")
	assert.True(t, w.Inside())
	assert.False(t, w.Woken())
	assert.Equal(t, Admitted, c.Enter(q, 10*ms).Verdict)
	s := c.Stats()
	assert.Equal(t, int64(2), s.Inside)
	assert.Equal(t, int64(0), s.Waiting)
	assert.Equal(t, uint64(1), s.StarvationHandoffs)
	checkBalance(t, s)
}

// TestBargingCancelOfAWokenWaiterPassesTheChanceOn: a woken waiter whose
// context ends before it tries must not strand the freed seat: the next waiter
// is woken in its place. The outcome is not Withdrawn, since a wake is on its
// way to the canceled thread and its driver must consume it.
func TestBargingCancelOfAWokenWaiterPassesTheChanceOn(t *testing.T) {
	c := newBargingCore(t, 1)
	a, w1, w2 := &Thread{}, &Thread{}, &Thread{}
	require.Equal(t, Admitted, c.Enter(a, 0).Verdict)
	require.Equal(t, Queued, c.Enter(w1, 0).Verdict)
	require.Equal(t, Queued, c.Enter(w2, 0).Verdict)
	require.Equal(t, Release{Outcome: Woken, To: w1}, c.ForceExit(a, 0))

	assert.Equal(t, Release{Outcome: Woken, To: w2}, c.Cancel(w1, 0))
	assert.False(t, w1.Woken())
	assert.False(t, w1.Inside())
	assert.Equal(t, Admitted, c.Enter(w2, 0).Verdict)
	s := c.Stats()
	assert.Equal(t, uint64(1), s.Canceled)
	assert.Equal(t, int64(0), s.Waiting)
	checkBalance(t, s)

	// With the seat already taken by a barger, the canceled waiter wakes nobody.
	w3, w4 := &Thread{}, &Thread{}
	require.Equal(t, Queued, c.Enter(w3, 0).Verdict)
	require.Equal(t, Queued, c.Enter(w4, 0).Verdict)
	require.Equal(t, Release{Outcome: Woken, To: w3}, c.ForceExit(w2, 0))
	require.Equal(t, Admitted, c.Enter(&Thread{}, 0).Verdict)
	assert.Equal(t, Release{Outcome: None}, c.Cancel(w3, 0))
	checkBalance(t, c.Stats())
}

// TestBargingSetLimitServesQueuedWaitersOnly: raising the limit while a woken
// waiter has not tried yet hands seats to the queued waiters; the woken one
// finds its own seat when it tries.
func TestBargingSetLimitServesQueuedWaitersOnly(t *testing.T) {
	c := newBargingCore(t, 1)
	a, w1, w2 := &Thread{}, &Thread{}, &Thread{}
	require.Equal(t, Admitted, c.Enter(a, 0).Verdict)
	require.Equal(t, Queued, c.Enter(w1, 0).Verdict)
	require.Equal(t, Queued, c.Enter(w2, 0).Verdict)
	require.Equal(t, Release{Outcome: Woken, To: w1}, c.ForceExit(a, 0))
	require.Equal(t, Admitted, c.Enter(a, 0).Verdict, "a barges back in")

	served, err := c.SetLimit(3, 0)
	require.NoError(t, err)
	assert.Equal(t, []*Thread{w2}, served)
	assert.Equal(t, Admitted, c.Enter(w1, 0).Verdict)
	s := c.Stats()
	assert.Equal(t, int64(3), s.Inside)
	assert.Equal(t, int64(0), s.Waiting)
	checkBalance(t, s)
}

// TestBargingKickedUpWaiterIsServedStrictly: with priority classes, a low
// waiter that has waited the kickup time is served as a starving one, strictly,
// even when the kickup time is shorter than the Starvation time; a woken low
// waiter that loses after the kickup time goes back to the high queue, where it
// was served from, ahead of the high waiters that queued after it.
func TestBargingKickedUpWaiterIsServedStrictly(t *testing.T) {
	for _, mode := range []PriorityMode{ByHint, Auto} {
		t.Run(mode.String(), func(t *testing.T) {
			c, err := NewHandoffCore(Config{Limit: 1, Starvation: time.Second, Priority: mode, Kickup: 10 * ms})
			require.NoError(t, err)
			a, low, high, n := &Thread{}, &Thread{}, &Thread{Hint: prio.High}, &Thread{}
			require.Equal(t, Admitted, c.Enter(a, 0).Verdict)
			require.Equal(t, Queued, c.Enter(low, 0).Verdict)
			require.Equal(t, Release{Outcome: Woken, To: low}, c.ForceExit(a, 5*ms), "before the kickup time: barging")
			require.Equal(t, Admitted, c.Enter(n, 5*ms).Verdict, "a newcomer barges")
			require.Equal(t, Queued, c.Enter(high, 11*ms).Verdict)
			require.Equal(t, Queued, c.Enter(low, 12*ms).Verdict, "low lost the seat, after the kickup time")
			assert.Equal(t, low, c.high.head, "back in the high queue, ahead of the later high waiter")
			assert.Equal(t, Release{Outcome: HandedOff, To: low}, c.ForceExit(n, 13*ms), "served strictly")
			s := c.Stats()
			assert.Equal(t, uint64(1), s.StarvationHandoffs)
			checkBalance(t, s)
		})
	}
}

// TestBargingSetLimitLeavesTheWokenWaiterItsSeat: raising the limit while a
// woken waiter is on its way to a free seat hands out only the seats beyond
// that one; handing that seat too to a queued waiter behind it would make the
// head of the queue lose it (and, after a long wait, turn starvation mode on).
func TestBargingSetLimitLeavesTheWokenWaiterItsSeat(t *testing.T) {
	c := newBargingCore(t, 1)
	a, w1, w2, w3 := &Thread{}, &Thread{}, &Thread{}, &Thread{}
	require.Equal(t, Admitted, c.Enter(a, 0).Verdict)
	require.Equal(t, Queued, c.Enter(w1, 0).Verdict)
	require.Equal(t, Queued, c.Enter(w2, 0).Verdict)
	require.Equal(t, Queued, c.Enter(w3, 0).Verdict)
	require.Equal(t, Release{Outcome: Woken, To: w1}, c.ForceExit(a, 0))

	served, err := c.SetLimit(2, 0)
	require.NoError(t, err)
	assert.Equal(t, []*Thread{w2}, served, "one new seat; the freed one is w1's")
	assert.Equal(t, Admitted, c.Enter(w1, 0).Verdict)
	assert.True(t, w3.Queued())
	s := c.Stats()
	assert.Equal(t, int64(2), s.Inside)
	assert.Equal(t, int64(1), s.Waiting)
	checkBalance(t, s)
}
