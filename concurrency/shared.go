package concurrency

import (
	"errors"
	"fmt"
	"sync/atomic"
)

// ErrThreadShared is wrapped by the error Enter returns, and is the panic value
// of Exit, ForceExit and ForceEnter, when the call finds its Thread in use by
// another goroutine's call: one Thread shared by two goroutines, a misuse
// (each goroutine, connection or request owns its Thread). Queue and Handoff
// detect it in every build when the other goroutine is waiting with the
// Thread (its Enter would otherwise corrupt the wait queue); built with -race
// or the innosim_checkthreads tag, every gate checks every call, at the cost
// of two atomic operations per call. The failing call is always the
// misusing one: the goroutine that holds the Thread carries on.
var ErrThreadShared = errors.New("Thread in use by another goroutine (one Thread per goroutine or connection)")

func errShared(op string) error { return fmt.Errorf("concurrency: %s: %w", op, ErrThreadShared) }

// claim marks t in use by one Gate call (checkThreads builds); it reports
// false if another goroutine's call holds t.
func (t *Thread) claim() bool { return atomic.CompareAndSwapUint32(&t.busy, 0, 1) }

// unclaim ends the call that claimed t.
func (t *Thread) unclaim() { atomic.StoreUint32(&t.busy, 0) }

// mustClaim claims t for a call that cannot return an error (Exit, ForceExit,
// ForceEnter): it panics in the misusing goroutine, as sync.Mutex does for an
// unlock of an unlocked mutex, rather than corrupt a count that an innocent
// goroutine then trips over.
func (t *Thread) mustClaim(op string) {
	if !t.claim() {
		panic(errShared(op))
	}
}
