//go:build unix

package infile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// openNonblock opens name read-only with O_NONBLOCK: open(2) of a named pipe
// then returns at once, writer or not.
func openNonblock(name string) (*os.File, error) {
	return os.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}

// readNow reads from f with one read(2) on its descriptor, not through Go's
// poller: a descriptor the poller takes (/proc/kmsg can be polled) would
// otherwise park the read until data come. EAGAIN, which O_NONBLOCK gives
// a file with no data now, is ErrWouldBlock.
func readNow(f *os.File, p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return 0, &fs.PathError{Op: "read", Path: f.Name(), Err: err}
	}
	var n int
	var rerr error
	if err := rc.Read(func(fd uintptr) bool {
		for {
			n, rerr = syscall.Read(int(fd), p)
			if rerr != syscall.EINTR {
				return true // done, data or not: never wait for readiness
			}
		}
	}); err != nil {
		return 0, &fs.PathError{Op: "read", Path: f.Name(), Err: err}
	}
	switch {
	case errors.Is(rerr, syscall.EAGAIN):
		return 0, &fs.PathError{Op: "read", Path: f.Name(), Err: ErrWouldBlock}
	case rerr != nil:
		return 0, &fs.PathError{Op: "read", Path: f.Name(), Err: rerr}
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}
