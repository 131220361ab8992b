//go:build !race && !innosim_checkthreads

package concurrency

// checkThreads turns on the per-call Thread ownership check (see
// ErrThreadShared): off in ordinary builds, where it would cost two atomic
// operations per call on the gate's fast path.
const checkThreads = false
