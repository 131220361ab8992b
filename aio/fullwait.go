package aio

import (
	"sync"
	"sync/atomic"
)

// fullWait is how submitters that found an array full wait for a slot: InnoDB's
// array->not_full event, made fair. InnoDB's os_event_set wakes every waiter
// to race for the slot a completion freed; with many waiters that herd costs
// a scan of the array per waiter per slot, and a waiter that keeps losing
// the race waits without bound. Here waiters queue in arrival order, and
// each slot freed wakes the first of them (signal), as x/sync's semaphore
// hands a released weight to the waiter at its head. A submitter that finds
// others waiting queues behind them instead of taking a slot freed for
// them; a woken waiter that still finds the array full (a submitter that
// came before the queue formed took the slot) keeps its place at the head;
// one that takes a slot and sees another still free passes the wake on.
//
// A submitter registers (enqueue) while it holds every segment lock of the
// array, after its last look: a Complete that frees a slot after that look
// takes a segment lock after the submitter released it, and so finds the
// waiter queued. The queue has its own lock, taken under a segment lock or
// under none.
type fullWait struct {
	n       atomic.Int32 // waiters queued plus wakes not yet consumed: queued's cheap look
	mu      sync.Mutex
	q       []*waiter // under mu; q[0] is the head
	pending int       // wakes sent and not yet consumed; under mu
	pool    sync.Pool // *waiter
}

// waiter is one submitter's wait: a one-token channel, so that a wake sent
// before the submitter blocks is kept.
type waiter struct {
	ch chan struct{}
}

// queued reports whether any submitter waits for a slot or has been woken
// and not yet looked: a free slot is then not for a newcomer.
func (f *fullWait) queued() bool { return f.n.Load() > 0 }

// enqueue registers a waiter, at the head if front (a woken waiter that
// found no slot), else at the tail, and returns it.
func (f *fullWait) enqueue(front bool) *waiter {
	w, _ := f.pool.Get().(*waiter)
	if w == nil {
		w = &waiter{ch: make(chan struct{}, 1)}
	}
	f.mu.Lock()
	if front {
		f.q = append(f.q, nil)
		copy(f.q[1:], f.q)
		f.q[0] = w
	} else {
		f.q = append(f.q, w)
	}
	f.n.Add(1)
	f.mu.Unlock()
	return w
}

// signal wakes the first k waiters, one per slot freed; a cheap atomic load
// when there is none.
func (f *fullWait) signal(k int) {
	if f.n.Load() == 0 {
		return
	}
	f.mu.Lock()
	for ; k > 0 && len(f.q) > 0; k-- {
		w := f.q[0]
		copy(f.q, f.q[1:])
		f.q[len(f.q)-1] = nil
		f.q = f.q[:len(f.q)-1]
		f.pending++ // n stays: a woken waiter still counts until it consumes
		w.ch <- struct{}{}
	}
	f.mu.Unlock()
}

// signalAll wakes every waiter (Close).
func (f *fullWait) signalAll() {
	f.mu.Lock()
	k := len(f.q)
	f.mu.Unlock()
	f.signal(k)
}

// consume ends a woken waiter's claim, once it has looked (with a slot
// found or not), and reports whether anyone else is still queued.
func (f *fullWait) consume() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.pending--
	f.n.Add(-1)
	return len(f.q) > 0
}

// release returns a woken waiter (its token taken) to the pool.
func (f *fullWait) release(w *waiter) { f.pool.Put(w) }

// leave takes a waiter whose context ended out of the queue. If a wake
// reached it first, the wake goes to the next waiter, so that the slot it
// stood for is not lost.
func (f *fullWait) leave(w *waiter) {
	f.mu.Lock()
	for i, x := range f.q {
		if x == w {
			copy(f.q[i:], f.q[i+1:])
			f.q[len(f.q)-1] = nil
			f.q = f.q[:len(f.q)-1]
			f.n.Add(-1)
			f.mu.Unlock()
			f.pool.Put(w)
			return
		}
	}
	f.mu.Unlock()
	<-w.ch // woken: the token was sent under mu
	f.consume()
	f.signal(1)
	f.pool.Put(w)
}
