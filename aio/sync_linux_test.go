//go:build linux

package aio_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/innosim/innosim/aio"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// dirtyPages returns the file's dirty page-cache pages (cachestat(2), Linux
// 6.5), or skips t where the kernel has no cachestat.
func dirtyPages(t *testing.T, f *os.File) uint64 {
	t.Helper()
	var st unix.Cachestat_t
	err := unix.Cachestat(uint(f.Fd()), &unix.CachestatRange{}, &st, 0)
	if errors.Is(err, unix.ENOSYS) {
		t.Skip("no cachestat(2) here (Linux 6.5)")
	}
	require.NoError(t, err)
	return st.Dirty + st.Writeback
}

// A sync through the Array writes the file's dirty pages back: after
// buffered writes the page cache holds dirty pages of the file, and when the
// sync completes it holds none. (A read with O_DIRECT, as the test above
// does, would write them back itself; this shows the sync did.)
func TestSyncLeavesNoDirtyPages(t *testing.T) {
	for _, d := range drivers(t) {
		for _, op := range []aio.Op{aio.Fsync, aio.Fdatasync} {
			t.Run(d.String()+"/"+op.String(), func(t *testing.T) {
				f, err := os.OpenFile(filepath.Join(t.TempDir(), "data"), os.O_RDWR|os.O_CREATE, 0o600)
				require.NoError(t, err)
				defer f.Close()
				a := newDriverArray(t, d, func(c *aio.Config) { c.Wake, c.Backend = aio.WakeTargeted, nil })
				for p := range 32 {
					_, err := a.WriteAt(context.Background(), f, make([]byte, page), int64(p)*page)
					require.NoError(t, err)
				}
				if dirtyPages(t, f) == 0 {
					t.Skip("the kernel wrote the pages back before the sync: nothing to show")
				}
				if op == aio.Fsync {
					require.NoError(t, a.Sync(context.Background(), f))
				} else {
					require.NoError(t, a.Datasync(context.Background(), f))
				}
				require.Zero(t, dirtyPages(t, f), "no dirty page left after the sync")
			})
		}
	}
}
