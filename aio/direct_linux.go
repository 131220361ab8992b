//go:build linux

package aio

import (
	"os"

	"golang.org/x/sys/unix"
)

// OpenDirect opens name with O_DIRECT added to flag, so reads and writes bypass
// the page cache as with innodb_flush_method=O_DIRECT. Buffers, offsets and
// lengths must then be aligned to the device's logical block size; page-aligned
// buffers from AlignedBuffer and page-multiple offsets satisfy it. Linux only;
// elsewhere it returns an error wrapping ErrUnsupported.
func OpenDirect(name string, flag int, perm os.FileMode) (*os.File, error) {
	return os.OpenFile(name, flag|unix.O_DIRECT, perm)
}
