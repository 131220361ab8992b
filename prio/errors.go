package prio

import (
	"errors"
	"fmt"
)

// ErrInvalidConfig is wrapped by every configuration error (New with a bad Config,
// WeightOfNice with a nice outside -20..19, Thread.Apply with a hint outside
// Idle..Interrupt). The message names the field and its
// allowed range, e.g. "prio: Policy = 9, want 0..3 (off, legacy, nice, idle): invalid config".
var ErrInvalidConfig = errors.New("invalid config")

// ErrNotSupported is returned by every call of the OS layer on an operating system
// where innosim does not apply priorities (anything but Linux), and wrapped by the
// Thread and Applier calls that needed it.
var ErrNotSupported = errors.New("prio: thread priorities not supported on this operating system")

// ErrReleased is returned by Thread.Apply and Thread.Restore after Unlock or
// Release: the Thread no longer owns its OS thread.
var ErrReleased = errors.New("prio: thread already unlocked or released")

// OSError is a system call refused by the operating system. The thread's scheduling
// is unchanged by a refused call (the kernel checks before it changes anything), so
// the work continues at the priority in force, which Thread.State reports.
//
// Err is the errno (syscall.Errno) or ErrNotSupported, so errors.Is(err, unix.EPERM),
// errors.Is(err, unix.EACCES), errors.Is(err, unix.EINVAL) and
// errors.Is(err, os.ErrPermission) all work on an error that wraps an OSError.
type OSError struct {
	Call string // the system call: "setpriority", "sched_setscheduler", "sched_setparam", ...
	Tid  int    // the thread the call named
	Arg  int    // the nice, class or priority it asked for
	Err  error  // the errno or ErrNotSupported
}

// Error formats the call, e.g. "prio: setpriority(PRIO_PROCESS, 4242, -5): permission denied".
func (e *OSError) Error() string {
	return fmt.Sprintf("prio: %s(%d, %d): %v", e.Call, e.Tid, e.Arg, e.Err)
}

// Unwrap returns the errno.
func (e *OSError) Unwrap() error { return e.Err }
