package aio_test

import (
	"bytes"
	"context"
	"os"
	"sync"
	"testing"

	"github.com/innosim/innosim/aio"
	"github.com/stretchr/testify/require"
)

// A write to a file opened with O_APPEND is refused with ErrAppendMode, as
// os.File.WriteAt refuses it, alone or merged, in every driver: native AIO
// and FileBackend's pwritev wrote such a write at the end of the file and
// reported success. Reads of the file are served.
func TestWriteToAppendFileIsRefused(t *testing.T) {
	type setup struct {
		name    string
		d       driver
		backend aio.Backend
	}
	var setups []setup
	for _, d := range drivers(t) {
		if d.native {
			setups = append(setups, setup{d.String(), d, nil})
			continue
		}
		for _, fb := range fileBackends {
			setups = append(setups, setup{d.String() + "/" + fb.name, d, fb.backend})
		}
	}
	for _, s := range setups {
		t.Run(s.name, func(t *testing.T) {
			path, data := writeFile(t, 2*page)
			f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0)
			require.NoError(t, err)
			defer f.Close()
			a := newDriverArray(t, s.d, func(c *aio.Config) { c.Wake, c.Backend = aio.WakeDeferred, s.backend })
			ctx := context.Background()
			p := bytes.Repeat([]byte{0xAB}, page)

			n, err := a.WriteAt(ctx, f, p, 0)
			require.ErrorIs(t, err, aio.ErrAppendMode)
			var pe *os.PathError
			require.ErrorAs(t, err, &pe)
			require.Equal(t, path, pe.Path)
			require.Zero(t, n)
			_, err = a.WriteAt(ctx, f, nil, 0)
			require.ErrorIs(t, err, aio.ErrAppendMode, "an empty write is refused as os.File.WriteAt refuses it")

			// Four consecutive writes, merged into one batch by the Flush.
			var wg sync.WaitGroup
			errs := make([]error, 4)
			for i := range errs {
				wg.Add(1)
				r := &aio.Request{Op: aio.Write, File: f, Offset: int64(i) * page, Buf: p,
					Done: func(_ *aio.Request, err error) { errs[i] = err; wg.Done() }}
				require.NoError(t, a.Submit(ctx, r))
			}
			a.Flush()
			waitGroup(t, &wg, "the merged writes' Done calls")
			for i, err := range errs {
				require.ErrorIs(t, err, aio.ErrAppendMode, "merged write %d", i)
			}

			got := make([]byte, 2*page)
			n, err = a.ReadAt(ctx, f, got, 0)
			require.NoError(t, err, "reads of an O_APPEND file are served")
			require.Equal(t, len(got), n)
			require.Equal(t, data, got, "nothing was written")
			st, err := os.Stat(path)
			require.NoError(t, err)
			require.Equal(t, int64(2*page), st.Size(), "nothing was appended")
			require.NoError(t, a.Close())
			stats := a.Stats()
			requireBalanced(t, stats)
			require.Equal(t, uint64(5), stats.Failed)
		})
	}
}

// FileBackend's vectored write refuses an O_APPEND file as its WriteAt does.
func TestFileBackendWritevAtRefusesAppendFile(t *testing.T) {
	path, _ := writeFile(t, page)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0)
	require.NoError(t, err)
	defer f.Close()
	n, err := aio.FileBackend{}.WritevAt(f, [][]byte{make([]byte, page), make([]byte, page)}, 0)
	require.ErrorIs(t, err, aio.ErrAppendMode)
	require.Zero(t, n)
	st, err := os.Stat(path)
	require.NoError(t, err)
	require.Equal(t, int64(page), st.Size())
}
