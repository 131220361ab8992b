//go:build race || innosim_checkthreads

package concurrency

// checkThreads turns on the per-call Thread ownership check (see
// ErrThreadShared).
const checkThreads = true
