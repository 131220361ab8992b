package machine

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/innosim/innosim/prio"
)

// scanQueue is the run queue the machine had before runQueue, kept here to
// compare with: under the fair class a binary heap of thread ids ordered by
// better, reading the threads' keys and writing their heap indexes; under TS
// an unordered slice scanned with better for every pick.
type scanQueue struct{ ids []int32 }

func (m *Machine) scanPush(q *scanQueue, id int32) {
	q.ids = append(q.ids, id)
	if m.cfg.Scheduler.fair() {
		m.scanUp(q, len(q.ids)-1)
	}
}

func (m *Machine) scanBest(q *scanQueue) int {
	if m.cfg.Scheduler.fair() {
		return 0
	}
	best := 0
	for i, id := range q.ids {
		if m.better(&m.threads[id], &m.threads[q.ids[best]]) {
			best = i
		}
	}
	return best
}

func (m *Machine) scanTake(q *scanQueue, i int) int32 {
	id, last := q.ids[i], len(q.ids)-1
	q.ids[i] = q.ids[last]
	m.threads[q.ids[i]].qi = int32(i)
	q.ids = q.ids[:last]
	if m.cfg.Scheduler.fair() && i < last {
		m.scanDown(q, i)
		m.scanUp(q, i)
	}
	return id
}

func (m *Machine) scanUp(q *scanQueue, i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !m.better(&m.threads[q.ids[i]], &m.threads[q.ids[p]]) {
			return
		}
		m.scanSwap(q, i, p)
		i = p
	}
}

func (m *Machine) scanDown(q *scanQueue, i int) {
	r := q.ids
	for {
		b, l := i, 2*i+1
		if l < len(r) && m.better(&m.threads[r[l]], &m.threads[r[b]]) {
			b = l
		}
		if rt := l + 1; rt < len(r) && m.better(&m.threads[r[rt]], &m.threads[r[b]]) {
			b = rt
		}
		if b == i {
			return
		}
		m.scanSwap(q, i, b)
		i = b
	}
}

func (m *Machine) scanSwap(q *scanQueue, i, j int) {
	r := q.ids
	r[i], r[j] = r[j], r[i]
	m.threads[r[i]].qi = int32(i)
	m.threads[r[j]].qi = int32(j)
}

// BenchmarkRunQueue times a pick, a take and an enqueue of the thread after
// a slice (its vruntime, or its TS level, moved on), with n threads queued,
// on the run queue (runq) and on the structure it replaced (scan), in one
// run: the ratio of their ns/op is what the change saves.
func BenchmarkRunQueue(b *testing.B) {
	for _, s := range []Scheduler{CFS, TS} {
		for _, n := range []int{16, 256, 4096} {
			for _, kind := range []string{"scan", "runq"} {
				b.Run(fmt.Sprintf("%v/%d/%s", s, n, kind), func(b *testing.B) {
					m, err := New(Config{CPUs: 1, Scheduler: s})
					if err != nil {
						b.Fatal(err)
					}
					m.threads = make([]thread, n)
					rng := rand.New(rand.NewPCG(1, 2))
					q, old := &m.sets[ServerCores], &scanQueue{}
					push := func(id int32) {
						t := &m.threads[id]
						t.state = stRunnable
						m.seq++
						t.enqKey = m.seq
						if kind == "runq" {
							m.rqPush(&q.rq, id, false)
						} else {
							t.qi = int32(len(old.ids))
							m.scanPush(old, id)
						}
					}
					for i := range m.threads {
						t := &m.threads[i]
						t.buddyOf, t.vr, t.cpupri, t.hint = -1, int64(rng.IntN(1_000_000)), rng.IntN(tsLevels), prio.Hint(rng.IntN(3)-1)
						push(int32(i))
					}
					b.ReportAllocs()
					b.ResetTimer()
					for range b.N {
						var id int32
						if kind == "runq" {
							id = m.takeRunnable(q, m.bestRunnable(q))
						} else {
							id = m.scanTake(old, m.scanBest(old))
						}
						t := &m.threads[id]
						t.vr += 3_000_000
						t.cpupri = tsQuantumExpired(t.cpupri)
						if t.cpupri == 0 {
							t.cpupri = tsSleepReturn(rng.IntN(tsLevels))
						}
						push(id)
					}
				})
			}
		}
	}
}
