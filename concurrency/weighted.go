package concurrency

import (
	"context"
	"sync"
	"sync/atomic"
)

// Weighted is a semaphore of a fixed total weight with the method set and the
// contract of golang.org/x/sync/semaphore.Weighted: NewWeighted, Acquire,
// TryAcquire, Release. It is the acquire/release API of this package: a
// Release always gives the weight back, unlike a Gate's Exit, which keeps
// the seat while the thread has tickets (InnoDB's protocol, see Gate).
// Replacing semaphore.NewWeighted with concurrency.NewWeighted changes
// nothing else a caller relies on (the panic messages differ).
//
// It is built as Handoff is. The weight held and a "waiters queued" bit share
// one word, so while nobody waits Acquire, TryAcquire and Release are one
// compare-and-swap each, with no lock and no allocation; an Acquire that must
// wait queues under a mutex, and a Release that finds the bit set hands the
// weight on to the waiters at the head of the queue under that mutex.
//
// Waiters are served in the order they came, and a waiter that does not fit
// holds back every waiter behind it, as in x/sync: if a smaller request could
// pass a larger one, a stream of small requests (readers taking 1 of n, say)
// would keep a larger one (a writer taking n) waiting forever, since there
// would always be room for one more small request. For the same reason
// neither Acquire nor TryAcquire takes weight while anyone waits, even where
// it would fit.
//
// The zero Weighted has size 0 (only weight 0 can be acquired); use
// NewWeighted. A Weighted must not be copied after first use.
type Weighted struct {
	// state is the weight held (bits 0..62) and weightQueued (bit 63).
	// While weightQueued is clear, the lock-free paths own the word; once
	// it is set, only holders of mu change it, so the queue and the weight
	// held are read and written together.
	state atomic.Uint64
	size  int64

	mu         sync.Mutex
	head, tail *weightWaiter // FIFO, guarded by mu
	waiters    sync.Pool     // *weightWaiter, reused so that a wait allocates nothing
}

// weightQueued is the state bit set while at least one Acquire waits.
const weightQueued = 1 << 63

// weightWaiter is one Acquire waiting in the queue.
type weightWaiter struct {
	n          int64
	ready      chan struct{} // receives one token when the weight is granted
	granted    bool          // set under mu with the token's send
	next, prev *weightWaiter
}

// NewWeighted returns a semaphore of total weight n, none of it held. It
// panics if n is negative, as x/sync's NewWeighted does.
func NewWeighted(n int64) *Weighted {
	if n < 0 {
		panic("concurrency: NewWeighted: size < 0")
	}
	return &Weighted{size: n}
}

// Acquire acquires weight n, waiting until it is available or ctx is done.
// It returns nil on success. On failure it returns ctx.Err() and leaves the
// semaphore unchanged. A ctx already done fails at once even if n is
// available, as in x/sync: that ctx ended before the call began. A
// request larger than the semaphore's size waits for ctx without holding
// back the requests behind it (a ctx that is never done then waits forever).
// It panics if n is negative.
func (s *Weighted) Acquire(ctx context.Context, n int64) error {
	if n < 0 {
		panic("concurrency: Weighted.Acquire: n < 0")
	}
	done := ctx.Done()
	if done != nil {
		select {
		case <-done:
			return ctx.Err()
		default:
		}
	}
	// The fast path: nobody queued and room for n. A ctx done after the check
	// above ended concurrently with this call, so succeeding is allowed.
	st := s.state.Load()
	if st&weightQueued == 0 && int64(st) <= s.size-n && s.state.CompareAndSwap(st, st+uint64(n)) {
		return nil
	}
	return s.acquireSlow(ctx, done, n)
}

func (s *Weighted) acquireSlow(ctx context.Context, done <-chan struct{}, n int64) error {
	s.mu.Lock()
	if done != nil {
		// Done while this call waited for the mutex: it ended before the
		// acquisition, so the call fails (as x/sync checks under its mutex).
		select {
		case <-done:
			s.mu.Unlock()
			return ctx.Err()
		default:
		}
	}
	for {
		st := s.state.Load()
		if st&weightQueued == 0 && int64(st) <= s.size-n {
			if s.state.CompareAndSwap(st, st+uint64(n)) { // a Release made room since the fast path looked
				s.mu.Unlock()
				return nil
			}
			continue
		}
		if n > s.size {
			// It can never fit: wait for ctx without queueing, so that it
			// holds back nobody.
			s.mu.Unlock()
			<-done
			return ctx.Err()
		}
		// Setting the bit with a CAS of the word read above: if a lock-free
		// Release freed weight in between, the CAS fails and the loop looks
		// again; once it succeeds, every later Release takes mu and finds
		// this waiter in the queue. Either way the wakeup cannot be lost.
		if s.state.CompareAndSwap(st, st|weightQueued) {
			break
		}
	}
	w := s.newWaiter(n)
	s.pushBack(w)
	s.mu.Unlock()

	select {
	case <-done:
		s.mu.Lock()
		if w.granted {
			// Granted while ctx ended: pretend it was not, and give the
			// weight back to the waiters behind (as x/sync does).
			<-w.ready // sent under mu with granted: it is in the channel
			s.releaseLocked(n)
		} else {
			front := s.head == w
			s.remove(w)
			// A waiter at the head that did not fit may have held back
			// smaller ones that do fit now.
			if front && s.size > s.held() {
				s.notifyLocked()
			}
		}
		s.mu.Unlock()
		s.waiters.Put(w)
		return ctx.Err()
	case <-w.ready:
		s.waiters.Put(w)
		if done != nil {
			// Granted, but ctx ended too: select may pick either case, and
			// a caller whose ctx is done must not be told it holds weight.
			select {
			case <-done:
				s.Release(n)
				return ctx.Err()
			default:
			}
		}
		return nil
	}
}

// TryAcquire acquires weight n without waiting. It reports whether it did;
// on false the semaphore is unchanged. It fails while anyone waits in
// Acquire, even if n would fit (see Weighted). It panics if n is negative.
func (s *Weighted) TryAcquire(n int64) bool {
	if n < 0 {
		panic("concurrency: Weighted.TryAcquire: n < 0")
	}
	for {
		st := s.state.Load()
		if st&weightQueued != 0 || int64(st) > s.size-n {
			return false
		}
		if s.state.CompareAndSwap(st, st+uint64(n)) {
			return true
		}
	}
}

// Release gives back weight n and grants waiting Acquire calls, in order,
// as long as the head of the queue fits. It panics if n is negative or more
// than is held, leaving the semaphore unchanged.
func (s *Weighted) Release(n int64) {
	if n < 0 {
		panic("concurrency: Weighted.Release: n < 0")
	}
	for {
		st := s.state.Load()
		if st&weightQueued != 0 {
			s.mu.Lock()
			s.releaseLocked(n)
			s.mu.Unlock()
			return
		}
		if int64(st) < n {
			panic("concurrency: Weighted.Release: released more than held")
		}
		// Fails if an Acquire set weightQueued since the load: the loop then
		// takes the slow path, which grants that waiter.
		if s.state.CompareAndSwap(st, st-uint64(n)) {
			return
		}
	}
}

// releaseLocked gives back weight n and grants the waiters that now fit (mu
// held). It unlocks mu before it panics on an over-release.
func (s *Weighted) releaseLocked(n int64) {
	for {
		st := s.state.Load()
		if int64(st&^weightQueued) < n {
			s.mu.Unlock()
			panic("concurrency: Weighted.Release: released more than held")
		}
		if s.state.CompareAndSwap(st, st-uint64(n)) {
			break
		}
	}
	s.notifyLocked()
}

// notifyLocked grants the waiters at the head of the queue while they fit,
// stopping at the first that does not (mu held). The grant of the last
// waiter clears weightQueued in the same CAS that adds its weight.
func (s *Weighted) notifyLocked() {
	for w := s.head; w != nil; w = s.head {
		st := s.state.Load()
		if s.size-int64(st&^weightQueued) < w.n {
			return
		}
		next := st + uint64(w.n)
		if w.next == nil {
			next &^= weightQueued
		}
		if !s.state.CompareAndSwap(st, next) {
			continue
		}
		s.unlink(w)
		w.granted = true
		w.ready <- struct{}{}
	}
}

// held returns the weight held.
func (s *Weighted) held() int64 { return int64(s.state.Load() &^ weightQueued) }

func (s *Weighted) newWaiter(n int64) *weightWaiter {
	w, _ := s.waiters.Get().(*weightWaiter)
	if w == nil {
		w = &weightWaiter{ready: make(chan struct{}, 1)}
	}
	w.n, w.granted = n, false
	return w
}

func (s *Weighted) pushBack(w *weightWaiter) {
	w.prev, w.next = s.tail, nil
	if s.tail == nil {
		s.head = w
	} else {
		s.tail.next = w
	}
	s.tail = w
}

// remove takes a waiter that gives up out of the queue (mu held), clearing
// weightQueued if it was the last.
func (s *Weighted) remove(w *weightWaiter) {
	s.unlink(w)
	if s.head == nil {
		for {
			st := s.state.Load()
			if s.state.CompareAndSwap(st, st&^weightQueued) {
				return
			}
		}
	}
}

func (s *Weighted) unlink(w *weightWaiter) {
	if w.prev == nil {
		s.head = w.next
	} else {
		w.prev.next = w.next
	}
	if w.next == nil {
		s.tail = w.prev
	} else {
		w.next.prev = w.prev
	}
	w.next, w.prev = nil, nil
}
