package machine

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// Under CFS the run queue is a heap; whatever the order of enqueues and
// takes, bestRunnable must name the thread a scan of the whole queue with
// better would: the smallest vruntime, then the earliest enqueue (front
// enqueues first); and each queued thread knows its index in the heap.
func TestCFSRunQueueHeapGivesTheScansBest(t *testing.T) {
	const n = 300
	m, err := New(Config{CPUs: 1, Scheduler: CFS})
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
	for step := 0; step < 20000; step++ {
		if id := int32(rng.IntN(n)); !queued[id] && rng.IntN(3) > 0 {
			m.threads[id].vr = int64(rng.IntN(50)) // ties on vruntime are common
			m.enqueue(id, rng.IntN(4) == 0)
			queued[id] = true
		} else if i := m.bestRunnable(q); i >= 0 {
			want := scan()
			got := m.takeRunnable(q, i)
			require.Equal(t, want, got, "step %d", step)
			delete(queued, got)
		}
		require.Len(t, q.runq, len(queued))
		for i, id := range q.runq {
			require.Equal(t, int32(i), m.threads[id].qi, "step %d: thread %d's heap index", step, id)
		}
	}
}
