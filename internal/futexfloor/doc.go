// Package futexfloor runs BenchmarkAIOWake's futex-mode load with no Go in the
// way: C threads (pthreads) on raw futex words, so that the root package's
// BenchmarkAIOWakeFloor can show what the kernel alone charges on this machine.
//
// The load is internal/aiobench's: Submitters threads each hand one request at
// a time to handler thread (j + Submitters×i) mod handlers and sleep until it
// is served; every handler sleeps on its own event until a request arrives.
// The event is the one internal/futex implements (a set flag and a waiter
// count; FUTEX_WAKE only when someone waits), written in C. A handler serves a
// request by clearing its flag and setting the submitter's event: no slots, no
// merge, no I/O, no locks, and, unlike the real driver, no Go runtime, whose
// locked threads must each get a P (GOMAXPROCS of them) to run after a wake.
//
// What it is for: whether targeted wake's cost at many handler threads comes
// from the kernel or from Go. Under this load the 4-handler case is special
// (submitter j only ever talks to handler j, so each pair settles on one CPU
// and a handler often finds its next request before it sleeps), and how much
// that is worth is a property of the machine's scheduler and wake path. This
// package measures it where the aio package cannot change it; the root
// package's BenchmarkAIOWakeFloor reports it beside BenchmarkAIOWake.
//
// It needs Linux and cgo (a C compiler); elsewhere Supported is false and Start
// returns ErrUnsupported.
package futexfloor
