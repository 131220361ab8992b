package concurrency

import (
	"fmt"
	"testing"
	"time"

	"github.com/innosim/innosim/prio"
	"github.com/stretchr/testify/require"
)

// TestKickupAdmitsALowWaiterBehindAStreamOfHighOnes: limit 2, six high-class
// threads running 1 ms statements back to back (each one, done, enters again at
// once), so the gate never empties and the high queue never drains, and one
// low-class thread queued among them. The low waiter must be admitted within
// the kickup time plus one statement: once it has waited the kickup time, the
// next seat that turns over is its. It was served behind the high waiters
// queued at the kickup moment (appended to the high queue's tail), and with
// barging, where the exiting thread takes its own seat back first, not before
// the starvation time (here 1 s).
func TestKickupAdmitsALowWaiterBehindAStreamOfHighOnes(t *testing.T) {
	const (
		kickup    = 10 * ms
		statement = ms
	)
	for _, mode := range []PriorityMode{ByHint, Auto} {
		for _, starvation := range []time.Duration{0, time.Second} {
			t.Run(fmt.Sprintf("%s/starvation=%v", mode, starvation), func(t *testing.T) {
				c, err := NewHandoffCore(Config{Limit: 2, Priority: mode, Kickup: kickup, Starvation: starvation})
				require.NoError(t, err)
				high := make([]*Thread, 6)
				for i := range high {
					high[i] = &Thread{Hint: prio.High}
				}
				low := &Thread{Hint: prio.Normal}
				now := time.Duration(0)
				var woken []*Thread
				take := func(r Release) {
					if r.Outcome == Woken {
						woken = append(woken, r.To)
					}
				}
				// Two high threads inside, the low one queued first, then the
				// other high ones behind it.
				for _, h := range high[:2] {
					require.Equal(t, Admitted, c.Enter(h, now).Verdict)
				}
				require.Equal(t, Queued, c.Enter(low, now).Verdict)
				for _, h := range high[2:] {
					require.Equal(t, Queued, c.Enter(h, statement/2).Verdict)
				}
				admitted := time.Duration(-1)
				for now = statement; now <= 5*kickup && admitted < 0; now += statement {
					// Every thread inside at the start of the step ends its
					// statement and enters again at once (barging first),
					// then the woken ones try for the freed seats.
					var ending []*Thread
					for _, h := range high {
						if h.Inside() {
							ending = append(ending, h)
						}
					}
					for _, h := range ending {
						take(c.ForceExit(h, now))
						c.Enter(h, now)
					}
					for len(woken) > 0 {
						w := woken[0]
						woken = woken[1:]
						if w.Woken() {
							c.Enter(w, now)
						}
					}
					if low.Inside() {
						admitted = now
					}
					require.Equal(t, int64(2), c.Stats().Inside, "at %v the gate has a free seat", now)
				}
				require.GreaterOrEqual(t, admitted, time.Duration(0), "the low waiter was never admitted")
				require.LessOrEqual(t, admitted, kickup+statement, "admitted after %v", admitted)
				require.NotZero(t, c.Stats().Kickups)
			})
		}
	}
}
