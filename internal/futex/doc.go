// Package futex provides an InnoDB-style event built on a raw Linux futex word.
//
// The event follows os_event_t in MySQL 5.5–5.7 (os0sync.cc, later os0event.cc): it
// has a set state and a signal count. Set marks the event set and bumps the count;
// Reset clears the set state and returns the count; Wait(count) blocks until the
// event is set or the count has moved past the value the caller saw at Reset. That
// count is what makes the pattern
//
//	c := ev.Reset()
//	if !haveWork() {
//		ev.Wait(c)
//	}
//
// free of lost wakeups: a Set that lands between Reset and Wait changes the count,
// so Wait returns at once instead of sleeping through it.
//
// Layout of the 32-bit futex word:
//
//	bit 0      set
//	bits 1..31 signal count (wraps)
//
// A waiter registers in a waiter count before it re-reads the word and calls
// FUTEX_WAIT with the value it read; the kernel sleeps only if the word still holds
// that value. Set changes the word first and calls FUTEX_WAKE only when the waiter
// count is non-zero, so an event nobody waits on costs no system call. Syscalls
// counts the FUTEX_WAIT and FUTEX_WAKE calls made, the figure behind study D's
// futex-spinlock share.
//
// The futex calls are Linux only; Supported reports whether this build has them.
// Elsewhere the event still works (it yields the processor in a loop), so tests
// build everywhere, but callers that promise raw futexes must refuse to start.
package futex
