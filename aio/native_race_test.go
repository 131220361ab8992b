package aio_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/innosim/innosim/aio"
	"github.com/stretchr/testify/require"
)

// Flushes of single pages and of merged runs race on one segment's ring, and
// every request must read its own pages. The segment's merged batches used to
// share one iovec array, rewritten by each issue, while an io_uring_enter that
// consumed another issue's SQE first could leave a READV in the ring: it then
// read with the next batch's iovecs, into the wrong buffers.
func TestNativeConcurrentMergedAndSingleReadsGetTheirOwnBytes(t *testing.T) {
	requireNative(t)
	const (
		pages   = 64 // one stripe: every request in one segment
		workers = 16
		rounds  = 400
	)
	path, data := writeFile(t, pages*page)
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	a := newDriverArray(t, driver{native: true}, func(c *aio.Config) { c.Wake = aio.WakeDeferred })
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			run := 1 + 7*(w%2) // single pages and runs of 8
			bufs := make([][]byte, run)
			for i := range bufs {
				bufs[i] = make([]byte, page)
			}
			for k := range rounds {
				first := (w*11 + k*run) % (pages - run)
				var done sync.WaitGroup
				failures := make([]error, run)
				for i := range run {
					done.Add(1)
					clear(bufs[i])
					if err := a.Submit(context.Background(), &aio.Request{File: f, Offset: int64(first+i) * page, Buf: bufs[i],
						Done: func(_ *aio.Request, err error) { failures[i] = err; done.Done() }}); err != nil {
						errs <- err
						return
					}
				}
				a.Flush()
				done.Wait()
				for i := range run {
					want := data[(first+i)*page : (first+i+1)*page]
					if failures[i] != nil || !bytes.Equal(bufs[i], want) {
						errs <- fmt.Errorf("worker %d round %d: page %d of a run of %d: error %v, bytes right %v",
							w, k, first+i, run, failures[i], bytes.Equal(bufs[i], want))
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
