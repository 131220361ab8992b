package aio

import (
	"errors"
	"strconv"
)

// IOMode is how the real driver does a segment's I/O: InnoDB's choice between
// simulated and native AIO (innodb_use_native_aio).
type IOMode uint8

const (
	// IOSimulated is simulated AIO (innodb_use_native_aio=0): each segment's
	// handler thread picks its waiting requests and does one synchronous read
	// or write per batch through the Backend, woken by the wake policy. The
	// zero value.
	IOSimulated IOMode = iota
	// IONative is native AIO (innodb_use_native_aio=1) through Linux
	// io_uring: each segment owns a ring; a submission reserves a slot as in
	// simulated AIO and pushes its request to the segment's ring, and the
	// segment's handler thread waits in io_uring_enter for its own ring's
	// completions and runs them, as InnoDB's handler threads wait in
	// io_getevents on their segment's io_context (os_aio_linux_handle). No
	// submitter wakes a handler: the kernel wakes the one whose ring
	// completed. See Config.IO for what the other fields mean in this mode.
	IONative
)

// String returns "simulated" or "native" (the benchmark names).
func (m IOMode) String() string {
	switch m {
	case IOSimulated:
		return "simulated"
	case IONative:
		return "native"
	}
	return "io(" + strconv.Itoa(int(m)) + ")"
}

// ErrNativeUnavailable is wrapped by New's error when Config.IO is IONative and
// this process cannot use io_uring. The message says why: not Linux, the
// kernel.io_uring_disabled sysctl, a seccomp filter or security module
// (EPERM), a kernel without io_uring or without what the driver needs (ENOSYS,
// or features of Linux 5.6), or memory for the rings refused (ENOMEM, against
// RLIMIT_MEMLOCK on kernels before 5.12). The system call's errno, where there
// is one, is wrapped too. A process or system out of file descriptors
// (EMFILE, ENFILE) is not a refusal: New's error then wraps that errno and
// not ErrNativeUnavailable, since simulated AIO needs descriptors as well.
var ErrNativeUnavailable = errors.New("native AIO (io_uring) unavailable")

// NativeAvailable reports whether this process can use native AIO: nil, or
// the reason it cannot, wrapping ErrNativeUnavailable (not Linux, io_uring
// disabled or refused, a kernel before 5.6), or EMFILE or ENFILE when out of
// file descriptors. It sets up one small ring and closes it.
func NativeAvailable() error { return probeNative() }
