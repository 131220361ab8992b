//go:build linux

package futex

import (
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Futex operations from linux/futex.h; golang.org/x/sys/unix does not export them.
const (
	opWait      = 0
	opWake      = 1
	privateFlag = 128
)

// Supported reports whether this build uses raw futex system calls (Linux only).
func Supported() bool { return true }

// futexWait sleeps while *addr == val, for at most timeout if timeout ≥ 0. Spurious
// returns (EINTR, EAGAIN, ETIMEDOUT) are fine: the caller re-checks the word.
func futexWait(addr *atomic.Uint32, val uint32, timeout time.Duration) {
	var ts *unix.Timespec
	if timeout >= 0 {
		t := unix.NsecToTimespec(int64(timeout))
		ts = &t
	}
	_, _, _ = unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(addr)),
		opWait|privateFlag, uintptr(val), uintptr(unsafe.Pointer(ts)), 0, 0)
}

// futexWake wakes up to n threads sleeping on addr.
func futexWake(addr *atomic.Uint32, n int) {
	_, _, _ = unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(addr)),
		opWake|privateFlag, uintptr(n), 0, 0, 0)
}
