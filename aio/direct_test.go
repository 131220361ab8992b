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

// TestODirectReadsThroughAlignedBuffers reads a file opened with O_DIRECT, merged
// and single, into page-aligned buffers. Skipped where the file system refuses
// O_DIRECT (tmpfs does).
func TestODirectReadsThroughAlignedBuffers(t *testing.T) {
	const pages = 96
	path, data := writeFile(t, pages*page)
	f, err := aio.OpenDirect(path, os.O_RDONLY, 0)
	if err != nil {
		t.Skipf("O_DIRECT not available here: %v", err)
	}
	defer f.Close()
	a := newArray(t, func(c *aio.Config) { c.Backend = aio.FileBackend{}; c.Wake = aio.WakeDeferred })
	readPagesDirect(t, a, f, data)
}

// readPagesDirect reads len(data)/page pages of f, opened with O_DIRECT, into
// one page-aligned buffer through a, submitting every page and then calling
// Flush, and requires the bytes to be data. It skips the test where the file
// system refuses O_DIRECT reads.
func readPagesDirect(t *testing.T, a *aio.Array, f *os.File, data []byte) {
	t.Helper()
	pages := len(data) / page
	got := alignedBuffer(t, pages*page, page)
	var wg sync.WaitGroup
	errs := make([]error, pages)
	wg.Add(pages)
	for p := range pages {
		require.NoError(t, a.Submit(context.Background(), &aio.Request{File: f, Offset: int64(p) * page,
			Buf: got[p*page : (p+1)*page], Done: func(_ *aio.Request, err error) { errs[p] = err; wg.Done() }}))
	}
	a.Flush()
	wg.Wait()
	for p, err := range errs {
		if err != nil {
			t.Skipf("this file system refuses O_DIRECT reads (page %d): %v", p, err)
		}
	}
	require.True(t, bytes.Equal(data, got))
}
