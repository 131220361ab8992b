package concurrency

import (
	"errors"
	"fmt"
)

// ErrThreadOfOtherGate is wrapped by the error Enter returns (and Statement and
// WaitOutside, which do not run their function then), and is wrapped by the
// panic value of Exit, ForceExit and ForceEnter, when the Thread holds a
// seat that another gate gave it: one Thread used with two gates at once, a
// misuse. Without the check, Exit would free a seat this gate never counted
// (its inside count going below the threads really inside, so that more than
// the limit get in) and Enter would admit the thread on the other gate's
// tickets. Every build checks, in every gate that counts seats (Queue, Atomic,
// Semaphore, Handoff, Adaptive; Unlimited counts nothing and ignores it); the
// check reads two fields of the caller's own Thread. The failing call leaves
// both gates and the Thread unchanged: give the seat back to the gate that
// gave it (ForceExit there), then use the Thread with the other.
var ErrThreadOfOtherGate = errors.New("Thread holds a seat of another gate (ForceExit it there first)")

// ofOtherGate reports whether t holds a seat that a gate other than g gave it.
func (t *Thread) ofOtherGate(g Gate) bool { return t.inside && t.gate != g }

// admittedBy records g as the gate of t's seat, if t holds one.
func (t *Thread) admittedBy(g Gate) {
	if t.inside {
		t.gate = g
	}
}

func errOtherGate(op string) error {
	return fmt.Errorf("concurrency: %s: %w", op, ErrThreadOfOtherGate)
}

// mustBeOf panics, in the misusing goroutine, if t holds another gate's seat;
// it is the check of the calls that cannot return an error (see mustClaim).
func (t *Thread) mustBeOf(g Gate, op string) {
	if t.ofOtherGate(g) {
		panic(errOtherGate(op))
	}
}
