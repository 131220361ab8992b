package futex

import (
	"math"
	"sync/atomic"
	"time"
)

const setBit = 1

// Event is an InnoDB-style event (os_event_t): a set flag and a signal count in one
// futex word. The zero value is a reset event with signal count 0, ready to use.
// An Event must not be copied after first use.
type Event struct {
	word     atomic.Uint32 // bit 0 set; bits 1..31 signal count
	waiters  atomic.Int32  // threads between registering and returning from Wait
	syscalls atomic.Uint64 // futex system calls made on this event
}

// Set sets the event and wakes every waiter, as os_event_set: a Set on an event
// that is already set does nothing. It makes a FUTEX_WAKE call only when a thread
// is waiting.
func (e *Event) Set() {
	for {
		w := e.word.Load()
		if w&setBit != 0 {
			return
		}
		// Bump the count and set the bit in one step: count is w>>1, so adding 2
		// increments it (wrapping) and OR-ing 1 sets the bit.
		if e.word.CompareAndSwap(w, (w+2)|setBit) {
			break
		}
	}
	if e.waiters.Load() > 0 {
		e.syscalls.Add(1)
		futexWake(&e.word, math.MaxInt32)
	}
}

// Reset clears the set state and returns the signal count to pass to Wait, as
// os_event_reset.
func (e *Event) Reset() uint32 {
	for {
		w := e.word.Load()
		if e.word.CompareAndSwap(w, w&^setBit) {
			return w >> 1
		}
	}
}

// IsSet reports whether the event is set.
func (e *Event) IsSet() bool { return e.word.Load()&setBit != 0 }

// SignalCount returns how many times the event has gone from reset to set,
// modulo 2^31.
func (e *Event) SignalCount() uint32 { return e.word.Load() >> 1 }

// Wait blocks until the event is set or its signal count differs from count (the
// value a previous Reset returned), as os_event_wait_low. The calling goroutine
// should be locked to its OS thread: the wait blocks the thread in the kernel.
func (e *Event) Wait(count uint32) {
	e.wait(count, -1)
}

// WaitTimeout is Wait with a limit: it returns false if d passed with the event
// still reset and its count unchanged, as os_event_wait_time_low. A d ≤ 0 only
// checks the state.
func (e *Event) WaitTimeout(count uint32, d time.Duration) bool {
	if d <= 0 {
		return e.ready(e.word.Load(), count)
	}
	return e.wait(count, d)
}

// Syscalls returns the number of FUTEX_WAIT and FUTEX_WAKE calls made on e.
func (e *Event) Syscalls() uint64 { return e.syscalls.Load() }

// Waiters returns the number of threads now inside Wait.
func (e *Event) Waiters() int { return int(e.waiters.Load()) }

func (e *Event) ready(w, count uint32) bool {
	return w&setBit != 0 || w>>1 != count&(math.MaxUint32>>1)
}

// wait sleeps until ready; d < 0 means no limit. It reports whether the event
// became ready.
func (e *Event) wait(count uint32, d time.Duration) bool {
	var deadline time.Time
	if d >= 0 {
		deadline = time.Now().Add(d)
	}
	e.waiters.Add(1)
	defer e.waiters.Add(-1)
	for {
		// Registered as a waiter before this load: a Set that changes the word after
		// it sees waiters > 0 and issues FUTEX_WAKE; one that changed it before is
		// seen here. The kernel re-checks the word under its bucket lock.
		w := e.word.Load()
		if e.ready(w, count) {
			return true
		}
		timeout := time.Duration(-1)
		if d >= 0 {
			timeout = time.Until(deadline)
			if timeout <= 0 {
				return false
			}
		}
		e.syscalls.Add(1)
		futexWait(&e.word, w, timeout)
	}
}
