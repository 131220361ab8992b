//go:build linux

package prio

import "golang.org/x/sys/unix"

// ioprioWhoProcess is IOPRIO_WHO_PROCESS: the who argument names a thread (a
// tid; 0 is the calling thread).
const ioprioWhoProcess = 1

// SetIOPrio sets the I/O priority of thread tid (0: the calling thread) with
// ioprio_set(IOPRIO_WHO_PROCESS, tid, p): the priority of the I/O the thread
// issues from then on (see IOPrio for what the schedulers do with it). The
// caller locks its goroutine to the thread first, or the priority lands on
// whichever thread the goroutine runs on and stays there. A refusal is an
// *OSError wrapping the errno (EPERM for IOClassRT without privileges,
// EINVAL for a value the kernel does not know); on systems other than Linux
// the error wraps ErrNotSupported.
func SetIOPrio(tid int, p IOPrio) error {
	_, _, errno := unix.Syscall(unix.SYS_IOPRIO_SET, ioprioWhoProcess, uintptr(tid), uintptr(p))
	if errno != 0 {
		return &OSError{Call: "ioprio_set", Tid: tid, Arg: int(p), Err: errno}
	}
	return nil
}

// GetIOPrio returns the I/O priority of thread tid (0: the calling thread),
// with ioprio_get(IOPRIO_WHO_PROCESS, tid). A thread that never set one
// reports what the kernel derives from its nice (be/4 at nice 0).
func GetIOPrio(tid int) (IOPrio, error) {
	v, _, errno := unix.Syscall(unix.SYS_IOPRIO_GET, ioprioWhoProcess, uintptr(tid), 0)
	if errno != 0 {
		return 0, &OSError{Call: "ioprio_get", Tid: tid, Err: errno}
	}
	return IOPrio(v), nil
}
