//go:build linux

package prio

import (
	"fmt"
	"time"

	"golang.org/x/sys/unix"
)

// ThreadCPUTime returns the CPU time the calling OS thread has used, from
// clock_gettime(CLOCK_THREAD_CPUTIME_ID). Call it from a goroutine locked to its
// thread (runtime.LockOSThread), or the figure mixes threads. This is how
// BenchmarkPriority measures each thread's share; off Linux it returns
// ErrNotSupported.
func ThreadCPUTime() (time.Duration, error) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0, fmt.Errorf("prio: clock_gettime(CLOCK_THREAD_CPUTIME_ID): %w", err)
	}
	return time.Duration(ts.Nano()), nil
}
