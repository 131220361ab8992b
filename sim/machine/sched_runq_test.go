package machine

import (
	"math/rand/v2"
	"testing"

	"github.com/innosim/innosim/prio"
	"github.com/stretchr/testify/require"
)

// Whatever the order of enqueues (front and back) and removals (the best,
// or any queued thread, as a runnable thread that blocks), bestRunnable
// must name the thread a scan of the whole queue with better would: under
// the fair class the smallest vruntime, then the earliest enqueue (front
// enqueues first); under TS the highest dispatch priority, a thread that
// has waited more than ts_maxwait below ts_lwait counting at ts_lwait, then
// the earliest enqueue.
func TestRunQueueGivesTheScansBest(t *testing.T) {
	for _, s := range []Scheduler{CFS, EEVDF, TS} {
		t.Run(s.String(), func(t *testing.T) {
			const n = 300
			m, err := New(Config{CPUs: 1, Scheduler: s})
			require.NoError(t, err)
			m.threads = make([]thread, n)
			for i := range m.threads {
				m.threads[i].qi, m.threads[i].buddyOf = -1, -1
			}
			q := &m.sets[ServerCores]
			rng := rand.New(rand.NewPCG(1, 2))
			queued := map[int32]bool{}
			scan := func() int32 {
				best := int32(-1)
				for id := range queued {
					if best < 0 || m.better(&m.threads[id], &m.threads[best]) {
						best = id
					}
				}
				return best
			}
			raised, peak := 0, 0
			for step := range 40000 {
				if rng.IntN(50) == 0 {
					m.e.Run(m.e.Now() + int64(rng.IntN(300_000_000))) // waits past ts_maxwait
				}
				id := int32(rng.IntN(n))
				switch {
				case !queued[id] && rng.IntN(3) > 0:
					th := &m.threads[id]
					th.vr = int64(rng.IntN(50)) // ties on vruntime are common
					th.cpupri = rng.IntN(tsLevels)
					th.hint = prio.Hint(rng.IntN(9) - 4)
					m.enqueue(id, rng.IntN(4) == 0)
					queued[id] = true
				case queued[id] && rng.IntN(4) == 0:
					m.dequeue(q, &m.threads[id])
					delete(queued, id)
				default:
					want := scan()
					got := m.bestRunnable(q)
					require.Equal(t, want, got, "step %d", step)
					if got >= 0 {
						if th := &m.threads[got]; s == TS && m.tsLevel(th) < tsLwait && m.tsPrio(th) == tsLwait {
							raised++
						}
						m.takeRunnable(q, got)
						delete(queued, got)
					}
				}
				require.Equal(t, len(queued), q.rq.n, "step %d", step)
				if s.fair() {
					live := 0
					for i, e := range q.rq.fair {
						if m.rqLive(&e) {
							live++
						}
						require.True(t, i == 0 || !e.before(&q.rq.fair[(i-1)/rqArity]), "step %d: heap order at %d", step, i)
					}
					require.Equal(t, len(queued), live, "step %d: an entry for each queued thread", step)
					peak = max(peak, len(queued))
					require.LessOrEqual(t, len(q.rq.fair), 2*peak+64, "step %d: stale entries are dropped", step)
				}
			}
			if s == TS {
				require.Positive(t, raised, "some picks are of threads ts_maxwait raised")
			}
		})
	}
}
