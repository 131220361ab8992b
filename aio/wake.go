package aio

import "strconv"

// WakePolicy decides which handler threads a submission wakes.
type WakePolicy uint8

const (
	// WakeAll wakes the handler of every global segment on each submission, as
	// os_aio_simulated_wake_handler_threads does in MySQL 5.5–5.7 (called after
	// each read batch and on the array-full path). With 16 + 16 handler threads
	// that is 34 wakes for one request, nearly all wasted: study D. InnoDB first
	// looks for a reserved slot in each segment under the array mutex and sets
	// the event only if it finds one; here the event is set unconditionally and
	// the handler finds the segment empty, which is the same work moved to the
	// woken thread and lets the waste be counted.
	WakeAll WakePolicy = iota
	// WakeTargeted wakes only the handler of the segment whose slot received
	// the request, as os_aio_simulated_wake_handler_thread(segment) does for a
	// single read. The fix for study D.
	WakeTargeted
	// WakeDeferred wakes nobody on submission; the segments that received
	// requests are remembered, and Flush (Core.Flush, Array.Flush) wakes exactly
	// those. It is InnoDB's wake_later read-ahead batch
	// (os_aio_simulated_put_read_threads_to_sleep … wake_handler_threads) made
	// targeted. The caller must Flush, or the requests wait for the next
	// array-full wake or Close.
	WakeDeferred
)

// String returns "all", "targeted" or "deferred" (the benchmark names).
func (p WakePolicy) String() string {
	switch p {
	case WakeAll:
		return "all"
	case WakeTargeted:
		return "targeted"
	case WakeDeferred:
		return "deferred"
	}
	return "wake(" + strconv.Itoa(int(p)) + ")"
}

// HandlerMode is how the real driver runs its handler threads.
type HandlerMode uint8

const (
	// HandlerGoroutine runs each handler as a goroutine sleeping on a
	// channel-based event. Portable.
	HandlerGoroutine HandlerMode = iota
	// HandlerFutex runs each handler on its own locked OS thread
	// (runtime.LockOSThread) sleeping on a raw futex word (internal/futex), as
	// InnoDB's handler threads sleep on os_event_t. Linux only: elsewhere New
	// returns an error wrapping ErrInvalidConfig. Each woken handler needs a Go
	// P to run: with fewer Ps (GOMAXPROCS) than locked threads it can wait for
	// Go's sysmon, up to milliseconds (see the package doc).
	HandlerFutex
)

// String returns "goroutine" or "futex" (the benchmark names).
func (m HandlerMode) String() string {
	switch m {
	case HandlerGoroutine:
		return "goroutine"
	case HandlerFutex:
		return "futex"
	}
	return "mode(" + strconv.Itoa(int(m)) + ")"
}
