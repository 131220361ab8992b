//go:build !linux

package prio

import "time"

// ThreadCPUTime returns the CPU time the calling OS thread has used, from
// clock_gettime(CLOCK_THREAD_CPUTIME_ID). Call it from a goroutine locked to its
// thread (runtime.LockOSThread), or the figure mixes threads. This is how
// BenchmarkPriority measures each thread's share; off Linux it returns
// ErrNotSupported.
func ThreadCPUTime() (time.Duration, error) { return 0, ErrNotSupported }
