// Package infile opens the files innosim's commands read (fit's CSV,
// compare's benchmark outputs, profile's CPU profile, validate's -table and
// -rotation, the cost profiles of run and validate, run's -cnf through
// mycnf) so that a wrong path fails at once, in bounded time and memory,
// instead of hanging the command: only a regular file is read; a named pipe
// without a writer cannot block the open, nor a file with no data to give
// (/proc/kmsg) a read; and ReadAll refuses a file larger than its bound
// before reading it.
//
// A read the kernel itself holds (a FUSE or hard-mounted NFS file that does
// not answer) can still wait: the command's second Ctrl-C ends it.
package infile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// ErrNotRegular is matched by the error for a path that names a directory,
// a named pipe, a device or a socket: reading a pipe or a terminal can wait
// forever, and a device (/dev/zero) can be endless.
var ErrNotRegular = errors.New("not a regular file")

// ErrWouldBlock is matched by the error of a read from a file that has no
// data to give and would make the read wait for some: /proc/kmsg, which
// stat calls a regular file, waits for the kernel's next message.
var ErrWouldBlock = errors.New("no data to read without waiting: not a file on disk")

// ErrTooLarge is matched by ReadAll's error for a file past its bound.
var ErrTooLarge = errors.New("file too large")

// Regular returns nil when fi, the information of the file at name, is a
// regular file; else an *fs.PathError wrapping ErrNotRegular that names the
// file and its type ("open x: not a regular file (a named pipe)").
func Regular(name string, fi fs.FileInfo) error {
	m := fi.Mode()
	if m.IsRegular() {
		return nil
	}
	kind := "special file"
	switch {
	case m.IsDir():
		kind = "directory"
	case m&fs.ModeNamedPipe != 0:
		kind = "named pipe"
	case m&fs.ModeSocket != 0:
		kind = "socket"
	case m&fs.ModeCharDevice != 0:
		kind = "character device"
	case m&fs.ModeDevice != 0:
		kind = "device"
	}
	return &fs.PathError{Op: "open", Path: name, Err: fmt.Errorf("%w (a %s)", ErrNotRegular, kind)}
}

// File is a regular file open for reading (Open).
type File struct {
	f    *os.File
	size int64 // stat's size when opened
}

// Open opens the file at name for reading only if it is a regular file. It
// checks before opening, since opening a named pipe for reading waits for
// a writer; opens without blocking (O_NONBLOCK where the system has it), so
// that a pipe swapped in between cannot make it wait either; and checks the
// open file again. Its errors are *fs.PathError naming name (os.Open's, or
// one wrapping ErrNotRegular).
func Open(name string) (*File, error) {
	fi, err := os.Stat(name)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			pe.Op = "open" // what the caller asked for: "open x: no such file or directory"
		}
		return nil, err
	}
	if err := Regular(name, fi); err != nil {
		return nil, err
	}
	f, err := openNonblock(name)
	if err != nil {
		return nil, err
	}
	if fi, err = f.Stat(); err == nil {
		err = Regular(name, fi)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return &File{f: f, size: fi.Size()}, nil
}

// Name returns the name given to Open.
func (f *File) Name() string { return f.f.Name() }

// Size returns the file's size in bytes when it was opened (0 for a file
// whose size the system does not give, as those of /proc).
func (f *File) Size() int64 { return f.size }

// Read reads up to len(p) bytes, as os.File.Read does, but never waits for
// data: a file that has none to give now returns an *fs.PathError wrapping
// ErrWouldBlock.
func (f *File) Read(p []byte) (int, error) { return readNow(f.f, p) }

// Close closes the file.
func (f *File) Close() error { return f.f.Close() }

// ReadAll reads the whole regular file at name (Open), at most max bytes:
// a file whose size is larger is refused before a byte is read, and one
// that gives more than max bytes while read (a file that grows, one whose
// size the system does not give) after max+1 bytes. Both errors wrap
// ErrTooLarge and name the file and max.
func ReadAll(name string, max int64) ([]byte, error) {
	f, err := Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadAll(max)
}

// ReadAll reads the rest of f, at most max bytes, as the function ReadAll
// does.
func (f *File) ReadAll(max int64) ([]byte, error) {
	if f.size > max {
		return nil, f.tooLarge(max)
	}
	buf := make([]byte, 0, min(f.size, max)+1)
	data, err := readAllInto(io.LimitReader(f, max+1), buf)
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, f.tooLarge(max)
	}
	return data, nil
}

func (f *File) tooLarge(max int64) error {
	return &fs.PathError{Op: "read", Path: f.Name(), Err: fmt.Errorf("%w: larger than %d bytes", ErrTooLarge, max)}
}

// readAllInto is io.ReadAll appending to buf.
func readAllInto(r io.Reader, buf []byte) ([]byte, error) {
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}
