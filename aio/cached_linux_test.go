//go:build linux

package aio_test

import (
	"bytes"
	"context"
	"os"
	"testing"

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
			require.NoError(t, unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED)) // out of the cache
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
