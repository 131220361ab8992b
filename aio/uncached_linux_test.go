//go:build linux

package aio_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// uncachedFile returns a file of size bytes of data (not holes) none of
// whose pages is in the page cache: a ReadAt of it is a request of the
// array, not a read on the caller's thread (see ReadAt).
func uncachedFile(t testing.TB, size int) *os.File {
	t.Helper()
	path, _ := writeFile(t, size)
	f, err := os.Open(path)
	require.NoError(t, err)
	t.Cleanup(func() { _ = f.Close() })
	require.NoError(t, f.Sync())
	require.NoError(t, unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED))
	return f
}
