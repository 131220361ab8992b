package aio

import (
	"errors"
	"os"
)

// ErrAppendMode is the error, in an *os.PathError naming the file, of a
// write to a file opened with O_APPEND. os.File.WriteAt refuses such a
// write, since pwrite(2) on Linux writes at the end of an O_APPEND file
// whatever the offset; io_uring's writes do the same. The Array refuses it
// too, rather than write somewhere other than the request's Offset: the
// write fails (WriteAt returns the error, a Request's Done gets it) with
// nothing written. FileBackend refuses the writes os.File.WriteAt refuses
// (files that os.OpenFile opened with O_APPEND); native AIO refuses every
// write to a descriptor with O_APPEND set when its File is registered with
// the ring (F_GETFL, once per File and ring). Reads of such a file are
// served.
var ErrAppendMode = errors.New("aio: write at an offset to a file opened with O_APPEND")

// appendMode reports whether os.File.WriteAt refuses writes to file because
// it was opened with O_APPEND. WriteAt makes that check before it looks at
// its buffer or makes a system call, so a write of nothing asks os the
// question at the cost of a call; its other refusals (a nil or closed File)
// are not this one.
func appendMode(file *os.File) bool {
	_, err := file.WriteAt(nil, 0)
	return err != nil && !errors.Is(err, os.ErrInvalid) && !errors.Is(err, os.ErrClosed)
}

// appendError is the error of a write to f refused for O_APPEND.
func appendError(file *os.File) error {
	return &os.PathError{Op: "write", Path: file.Name(), Err: ErrAppendMode}
}

// refusesWrite is the FileBackend's check of a write to f: ErrAppendMode's
// error if os.File.WriteAt would refuse it, else nil.
func refusesWrite(f File) error {
	if file, ok := f.(*os.File); ok && file != nil && appendMode(file) {
		return appendError(file)
	}
	return nil
}
