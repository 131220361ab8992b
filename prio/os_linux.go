//go:build linux

package prio

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// System returns the operating system's priority calls: on Linux, the system calls
// through golang.org/x/sys/unix; elsewhere, a layer whose every call fails with
// ErrNotSupported.
func System() OS { return linuxOS{} }

// linuxOS makes the real system calls. golang.org/x/sys/unix has no wrappers for
// sched_setscheduler, sched_setparam, sched_getscheduler and sched_getparam, so
// those go through unix.Syscall with a one-int sched_param.
type linuxOS struct{}

func (linuxOS) Gettid() int { return unix.Gettid() }

func (linuxOS) Getpriority(tid int) (int, error) {
	return unix.Getpriority(unix.PRIO_PROCESS, tid)
}

func (linuxOS) Setpriority(tid, nice int) error {
	return unix.Setpriority(unix.PRIO_PROCESS, tid, nice)
}

func (linuxOS) Getscheduler(tid int) (Class, int, error) {
	c, _, errno := unix.Syscall(unix.SYS_SCHED_GETSCHEDULER, uintptr(tid), 0, 0)
	if errno != 0 {
		return 0, 0, errno
	}
	var param int32
	_, _, errno = unix.Syscall(unix.SYS_SCHED_GETPARAM, uintptr(tid), uintptr(unsafe.Pointer(&param)), 0)
	if errno != 0 {
		return 0, 0, errno
	}
	return Class(c), int(param), nil
}

func (linuxOS) Setscheduler(tid int, class Class, priority int) error {
	param := int32(priority)
	_, _, errno := unix.Syscall(unix.SYS_SCHED_SETSCHEDULER, uintptr(tid), uintptr(class), uintptr(unsafe.Pointer(&param)))
	if errno != 0 {
		return errno
	}
	return nil
}

func (linuxOS) Setparam(tid, priority int) error {
	param := int32(priority)
	_, _, errno := unix.Syscall(unix.SYS_SCHED_SETPARAM, uintptr(tid), uintptr(unsafe.Pointer(&param)), 0)
	if errno != 0 {
		return errno
	}
	return nil
}
