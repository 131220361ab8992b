//go:build linux

package aio_test

import (
	"bytes"
	"context"
	"os"
	"testing"
	"unsafe"

	"github.com/innosim/innosim/aio"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// ReadAt serves a read the page cache holds whole on the caller's thread:
// no batch is issued, it counts as a request completed, and its preadv2 as
// a system call. A read of pages the cache lacks goes through the array
// (and leaves them cached: the next read of them is served inline), and a
// file opened O_DIRECT is never read on the caller's thread.
func TestReadAtServesCachedPagesOnTheCallersThread(t *testing.T) {
	for _, d := range drivers(t) {
		t.Run(d.String(), func(t *testing.T) {
			path, data := writeFile(t, 4*page)
			f, err := os.Open(path)
			require.NoError(t, err)
			defer f.Close()
			a := newDriverArray(t, d, func(c *aio.Config) { c.Wake, c.Backend = aio.WakeTargeted, nil })
			ctx := context.Background()

			require.NoError(t, f.Sync())
			dropFromPageCache(t, f, 4*page)
			got := make([]byte, page)
			n, err := a.ReadAt(ctx, f, got, page)
			require.NoError(t, err)
			require.Equal(t, page, n)
			require.True(t, bytes.Equal(data[page:2*page], got))
			st := a.Stats()
			require.Equal(t, uint64(1), st.Batches, "a page not in the cache is a request of the array")

			clear(got)
			n, err = a.ReadAt(ctx, f, got, page)
			require.NoError(t, err)
			require.Equal(t, page, n)
			require.True(t, bytes.Equal(data[page:2*page], got))
			st = a.Stats()
			require.Equal(t, uint64(1), st.Batches, "the cached page is read on the caller's thread")
			require.Equal(t, uint64(2), st.Completed)
			requireBalanced(t, st)

			direct, err := aio.OpenDirect(path, os.O_RDONLY, 0)
			if err != nil {
				t.Skipf("O_DIRECT: %v", err)
			}
			defer direct.Close()
			buf := alignedBuffer(t, page, page)
			_, err = a.ReadAt(ctx, direct, buf, page)
			require.NoError(t, err)
			require.Equal(t, uint64(2), a.Stats().Batches, "an O_DIRECT read is always the array's")
		})
	}
}

// dropFromPageCache asks the kernel to drop f's first size bytes from the
// page cache and checks with mincore(2) that it did: FADV_DONTNEED is
// advice, which tmpfs ignores and a busy machine may not follow at once
// (pages still under writeback stay). A test that needs the pages out of the
// cache is skipped, saying why, when they stay.
func dropFromPageCache(t *testing.T, f *os.File, size int) {
	t.Helper()
	for range 5 {
		require.NoError(t, unix.Fadvise(int(f.Fd()), 0, int64(size), unix.FADV_DONTNEED))
		if !resident(t, f, size) {
			return
		}
		require.NoError(t, f.Sync())
	}
	t.Skip("the page cache kept the file's pages after FADV_DONTNEED (tmpfs, or pages under writeback)")
}

// resident reports whether any of f's first size bytes are in the page
// cache (mincore(2) of a mapping that touches none of them).
func resident(t *testing.T, f *os.File, size int) bool {
	t.Helper()
	m, err := unix.Mmap(int(f.Fd()), 0, size, unix.PROT_READ, unix.MAP_SHARED)
	require.NoError(t, err)
	defer func() { require.NoError(t, unix.Munmap(m)) }()
	vec := make([]byte, (size+os.Getpagesize()-1)/os.Getpagesize())
	if _, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&m[0])), uintptr(len(m)), uintptr(unsafe.Pointer(&vec[0]))); errno != 0 {
		require.NoError(t, errno, "mincore")
	}
	for _, v := range vec {
		if v&1 != 0 {
			return true
		}
	}
	return false
}
