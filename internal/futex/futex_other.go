//go:build !linux

package futex

import (
	"runtime"
	"sync/atomic"
	"time"
)

// Supported reports whether this build uses raw futex system calls (Linux only).
func Supported() bool { return false }

// futexWait yields once; the caller's loop re-checks the word. Correct but slow:
// callers that promise raw futexes refuse to start when Supported is false.
func futexWait(addr *atomic.Uint32, val uint32, timeout time.Duration) {
	if timeout != 0 {
		runtime.Gosched()
	}
}

func futexWake(addr *atomic.Uint32, n int) {}
