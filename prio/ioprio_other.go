//go:build !linux

package prio

// SetIOPrio sets the I/O priority of thread tid on Linux; elsewhere it
// returns an *OSError wrapping ErrNotSupported.
func SetIOPrio(tid int, p IOPrio) error {
	return &OSError{Call: "ioprio_set", Tid: tid, Arg: int(p), Err: ErrNotSupported}
}

// GetIOPrio returns the I/O priority of thread tid on Linux; elsewhere it
// returns an *OSError wrapping ErrNotSupported.
func GetIOPrio(tid int) (IOPrio, error) {
	return 0, &OSError{Call: "ioprio_get", Tid: tid, Err: ErrNotSupported}
}
