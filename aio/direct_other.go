//go:build !linux

package aio

import (
	"fmt"
	"os"
)

// OpenDirect opens name with O_DIRECT on Linux; on this platform it returns an
// error wrapping ErrUnsupported.
func OpenDirect(name string, flag int, perm os.FileMode) (*os.File, error) {
	return nil, fmt.Errorf("aio: O_DIRECT on %s: %w", name, ErrUnsupported)
}
