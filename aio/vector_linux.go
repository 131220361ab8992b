//go:build linux

package aio

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

func vectorIO(f File, bufs [][]byte, off int64, write bool) (int, error) {
	file, ok := f.(*os.File)
	if !ok {
		return eachBuffer(f, bufs, off, write)
	}
	rc, err := file.SyscallConn()
	if err != nil {
		return eachBuffer(f, bufs, off, write)
	}
	total := 0
	var ioErr error
	// Control keeps the descriptor open for the call without switching the
	// file to blocking mode (as Fd would); regular files block anyway.
	err = rc.Control(func(fd uintptr) {
		for len(bufs) > 0 {
			var n int
			if write {
				n, ioErr = unix.Pwritev(int(fd), bufs, off)
			} else {
				n, ioErr = unix.Preadv(int(fd), bufs, off)
			}
			if ioErr == unix.EINTR {
				ioErr = nil
				continue
			}
			if n > 0 {
				total += n
				off += int64(n)
				bufs = advance(bufs, n)
			}
			if ioErr != nil {
				return
			}
			if n == 0 && len(bufs) > 0 {
				if !write {
					ioErr = io.EOF
				}
				return
			}
		}
	})
	if err != nil {
		// Control fails only for a closed file: its ReadAt or WriteAt says
		// so as os.File does (os.ErrClosed), where Control's error does not.
		return eachBuffer(f, bufs, off, write)
	}
	err = ioErr
	if err != nil && err != io.EOF {
		// As os.File's ReadAt and WriteAt do: the error names the call and
		// the file (io.EOF stays bare, as there).
		op := "preadv"
		if write {
			op = "pwritev"
		}
		err = &os.PathError{Op: op, Path: file.Name(), Err: err}
	}
	return total, err
}

// advance drops n bytes from the front of bufs, slicing into the first
// partly transferred buffer. It changes bufs' elements (the caller's scratch).
func advance(bufs [][]byte, n int) [][]byte {
	for n > 0 && len(bufs) > 0 {
		if n < len(bufs[0]) {
			bufs[0] = bufs[0][n:]
			return bufs
		}
		n -= len(bufs[0])
		bufs = bufs[1:]
	}
	for len(bufs) > 0 && len(bufs[0]) == 0 {
		bufs = bufs[1:]
	}
	return bufs
}

// fdatasync is fdatasync(2) on an *os.File's descriptor (held open by
// Control for the call), else s.Sync. Its error names the file as
// os.File.Sync's does.
func fdatasync(f File, s syncer) error {
	file, ok := f.(*os.File)
	if !ok {
		return s.Sync()
	}
	rc, err := file.SyscallConn()
	if err != nil {
		return s.Sync()
	}
	var serr error
	if err := rc.Control(func(fd uintptr) {
		for {
			if serr = unix.Fdatasync(int(fd)); serr != unix.EINTR {
				return
			}
		}
	}); err != nil {
		return s.Sync() // closed: Sync says so, as os.File does
	}
	if serr != nil {
		return &os.PathError{Op: "fdatasync", Path: file.Name(), Err: serr}
	}
	return nil
}
