package machine

import "math/bits"

// runQueue is a set of cores' runnable threads, kept in the order the
// scheduler picks them (Machine.better): under CFS and EEVDF a 4-ary
// min-heap of (virtual runtime, enqueue order), the keys copied into the
// entries so that a sift reads and writes one array and not the threads (a
// thread taken off the queue other than at its head leaves its entry as a
// stale one, dropped when it reaches the head or the heap is rebuilt);
// under TS one
// FIFO per dispatch priority with a bitmap of the non-empty ones, as
// Solaris's dispatch queues (disp_q and dqactmap in disp.c), so the pick is
// the first thread of the highest non-empty priority. A queued thread's
// keys do not change while it waits (its virtual runtime, CPU and user
// priority change only while it runs or sleeps); only TS's ts_maxwait raises
// a thread that has waited long, which the queue finds from the threads
// below ts_lwait kept in the order they were queued.
type runQueue struct {
	n int // queued threads

	// fair is the fair class's heap, of the queued threads' entries and
	// stale ones: an entry is a queued thread's while the thread is queued
	// (thread.qi 0) with the entry's key (thread.enqKey).
	fair []rqEntry

	// head and tail are each TS priority's first and last thread, linked
	// through thread.rqNext and rqPrev (-1 at the ends), valid when bit p of
	// active is set: priority p has a thread. oldHead and oldTail are the
	// first and last of the threads queued below tsLwait, in the order
	// they were queued (so by thread.enqAt), linked through thread.ageNext
	// and agePrev. thread.qi is a TS thread's priority while it is queued.
	// The zero value is an empty queue.
	head, tail       [tsLevels]int32
	active           uint64
	old              int // threads queued below tsLwait
	oldHead, oldTail int32
}

// rqEntry is a thread in the fair class's heap with its keys.
type rqEntry struct {
	vr, key int64 // thread.vr and thread.enqKey when it was queued
	id      int32
}

// before is Machine.better for two fair-class entries.
func (a *rqEntry) before(b *rqEntry) bool {
	return a.vr < b.vr || a.vr == b.vr && a.key < b.key
}

// rqArity is the fair heap's fan-out: a 4-ary heap is half as deep as a
// binary one, and a node's four children share a cache line or two.
const rqArity = 4

// push queues thread id (its enqKey, enqAt and, under the fair class, vr
// already set), at the front of its priority under TS if front.
func (m *Machine) rqPush(q *runQueue, id int32, front bool) {
	q.n++
	t := &m.threads[id]
	if m.cfg.Scheduler.fair() {
		t.qi = 0
		if len(q.fair) >= 2*q.n+64 {
			m.rqRebuild(q)
		}
		q.fair = append(q.fair, rqEntry{})
		q.rqUp(len(q.fair)-1, rqEntry{vr: t.vr, key: t.enqKey, id: id})
		return
	}
	p := int32(m.tsLevel(t))
	t.qi = p
	switch {
	case q.active&(1<<p) == 0:
		t.rqPrev, t.rqNext = -1, -1
		q.head[p], q.tail[p] = id, id
		q.active |= 1 << p
	case front:
		t.rqPrev, t.rqNext = -1, q.head[p]
		m.threads[q.head[p]].rqPrev = id
		q.head[p] = id
	default:
		t.rqPrev, t.rqNext = q.tail[p], -1
		m.threads[q.tail[p]].rqNext = id
		q.tail[p] = id
	}
	if p < tsLwait {
		t.agePrev, t.ageNext = -1, -1
		if q.old > 0 {
			t.agePrev = q.oldTail
			m.threads[q.oldTail].ageNext = id
		} else {
			q.oldHead = id
		}
		q.oldTail = id
		q.old++
	}
}

// rqBest returns the queued thread that should run next (better than every
// other), or -1 when none is queued.
func (m *Machine) rqBest(q *runQueue) int32 {
	if q.n == 0 {
		return -1
	}
	if m.cfg.Scheduler.fair() {
		for !m.rqLive(&q.fair[0]) {
			q.rqPop()
		}
		return q.fair[0].id
	}
	top := int32(63 - bits.LeadingZeros64(q.active))
	if top > tsLwait {
		return q.head[top] // no waiter raised to ts_lwait can pass it
	}
	// the threads that have waited more than ts_maxwait below ts_lwait run
	// at ts_lwait: they and priority ts_lwait's own go by enqueue order
	best := int32(-1)
	if top == tsLwait {
		best = q.head[top]
	}
	now := m.e.Now()
	for id := q.oldHead; q.old > 0 && id >= 0 && now-m.threads[id].enqAt > tsMaxWait; id = m.threads[id].ageNext {
		if best < 0 || m.threads[id].enqKey < m.threads[best].enqKey {
			best = id
		}
	}
	if best >= 0 {
		return best
	}
	return q.head[top]
}

// rqRemove takes queued thread t off q.
func (m *Machine) rqRemove(q *runQueue, t *thread) {
	q.n--
	if m.cfg.Scheduler.fair() {
		// the thread leaves the queue (thread.qi -1, which dequeue sets);
		// at the head its entry goes at once, elsewhere when it gets there
		if q.n == 0 {
			q.fair = q.fair[:0]
		} else if h := &q.fair[0]; h.key == t.enqKey && &m.threads[h.id] == t {
			q.rqPop()
		}
		return
	}
	p := t.qi
	if t.rqPrev >= 0 {
		m.threads[t.rqPrev].rqNext = t.rqNext
	} else {
		q.head[p] = t.rqNext
	}
	if t.rqNext >= 0 {
		m.threads[t.rqNext].rqPrev = t.rqPrev
	} else {
		q.tail[p] = t.rqPrev
	}
	if t.rqPrev < 0 && t.rqNext < 0 {
		q.active &^= 1 << p
	}
	if p < tsLwait {
		q.old--
		if t.agePrev >= 0 {
			m.threads[t.agePrev].ageNext = t.ageNext
		} else {
			q.oldHead = t.ageNext
		}
		if t.ageNext >= 0 {
			m.threads[t.ageNext].agePrev = t.agePrev
		} else {
			q.oldTail = t.agePrev
		}
	}
}

// rqLive reports whether fair-heap entry e is its thread's: the thread is
// queued, with e's key.
func (m *Machine) rqLive(e *rqEntry) bool {
	t := &m.threads[e.id]
	return t.qi >= 0 && t.state == stRunnable && t.enqKey == e.key
}

// rqPop removes the fair heap's head: the hole it leaves goes down to a
// leaf by the lesser child, and the last entry goes up from there (an
// entry from the bottom mostly belongs near it, so this takes fewer
// comparisons than sifting it down from the head).
func (q *runQueue) rqPop() {
	h := q.fair
	last := len(h) - 1
	e := h[last]
	q.fair = h[:last]
	if last == 0 {
		return
	}
	h = h[:last]
	i := 0
	for {
		c := rqArity*i + 1
		if c >= last {
			break
		}
		b := c
		for j := c + 1; j < min(c+rqArity, last); j++ {
			if h[j].before(&h[b]) {
				b = j
			}
		}
		h[i] = h[b]
		i = b
	}
	q.rqUp(i, e)
}

// rqRebuild drops the fair heap's stale entries and restores its order.
func (m *Machine) rqRebuild(q *runQueue) {
	h := q.fair[:0]
	for _, e := range q.fair {
		if m.rqLive(&e) {
			h = append(h, e)
		}
	}
	q.fair = h
	for i := (len(h) - 2) / rqArity; i >= 0; i-- {
		q.rqDown(i, h[i])
	}
}

// rqUp places entry e at index i of the fair heap or above it, moving the
// entries it passes down; rqDown places it at i or below, moving those it
// passes up.
func (q *runQueue) rqUp(i int, e rqEntry) {
	h := q.fair
	for i > 0 {
		p := (i - 1) / rqArity
		if !e.before(&h[p]) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = e
}

func (q *runQueue) rqDown(i int, e rqEntry) {
	h := q.fair
	n := len(h)
	for {
		c := rqArity*i + 1
		if c >= n {
			break
		}
		b := c
		for j := c + 1; j < min(c+rqArity, n); j++ {
			if h[j].before(&h[b]) {
				b = j
			}
		}
		if !h[b].before(&e) {
			break
		}
		h[i] = h[b]
		i = b
	}
	h[i] = e
}
