//go:build unix

package outfile

import (
	"errors"
	"os"
	"syscall"
)

// openThrough opens a stream destination for writing, in append mode (a
// file that /dev/stdout leads to keeps what the command wrote there
// before), without blocking: a named pipe with no reader is refused at once
// (ENXIO) instead of waiting for one.
func openThrough(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_WRONLY|os.O_APPEND|syscall.O_NONBLOCK, 0)
}

// isNoReader reports whether err is openThrough's for a named pipe with no
// reader.
func isNoReader(err error) bool { return errors.Is(err, syscall.ENXIO) }
