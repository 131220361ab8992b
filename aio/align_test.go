package aio_test

import (
	"bytes"
	"context"
	"os"
	"sync"
	"syscall"
	"testing"

	"github.com/innosim/innosim/aio"
	"github.com/stretchr/testify/require"
)

// directLike is a VectorBackend with O_DIRECT's rule: a call whose offset, or
// any of whose buffers' address or length, is not a multiple of 4096 fails
// whole with EINVAL before transferring anything. It records each call's
// offset and buffer count.
type directLike struct {
	mu    sync.Mutex
	calls [][2]int64
}

func aligned4k(b []byte) bool { return uintptrOf(b)%4096 == 0 && len(b)%4096 == 0 }

func (d *directLike) call(bufs [][]byte, off int64) (int, error) {
	d.mu.Lock()
	d.calls = append(d.calls, [2]int64{off, int64(len(bufs))})
	d.mu.Unlock()
	if off%4096 != 0 {
		return 0, syscall.EINVAL
	}
	for _, b := range bufs {
		if !aligned4k(b) {
			return 0, syscall.EINVAL
		}
	}
	return totalLen(bufs), nil
}

func (d *directLike) ReadAt(_ aio.File, p []byte, off int64) (int, error) {
	return d.call([][]byte{p}, off)
}
func (d *directLike) WriteAt(_ aio.File, p []byte, off int64) (int, error) {
	return d.call([][]byte{p}, off)
}
func (d *directLike) ReadvAt(_ aio.File, bufs [][]byte, off int64) (int, error) {
	return d.call(bufs, off)
}
func (d *directLike) WritevAt(_ aio.File, bufs [][]byte, off int64) (int, error) {
	return d.call(bufs, off)
}

// misalignedAt returns bufs[i] = n aligned bytes, except bufs[bad], which
// starts one byte past a 4096 boundary.
func misalignedAt(t testing.TB, count, n, bad int) [][]byte {
	bufs := make([][]byte, count)
	for i := range bufs {
		bufs[i] = alignedBuffer(t, n, 4096)
	}
	bufs[bad] = alignedBuffer(t, n+4096, 4096)[1 : n+1]
	return bufs
}

// submitConsecutive submits one request per buffer at consecutive offsets
// from 0 under WakeDeferred, flushes once so that the handler merges them,
// and returns each request's error.
func submitConsecutive(t *testing.T, a *aio.Array, op aio.Op, f aio.File, bufs [][]byte) []error {
	t.Helper()
	errs := make([]error, len(bufs))
	var wg sync.WaitGroup
	wg.Add(len(bufs))
	off := int64(0)
	for i, b := range bufs {
		require.NoError(t, a.Submit(context.Background(), &aio.Request{Op: op, File: f, Offset: off, Buf: b,
			Done: func(_ *aio.Request, err error) { errs[i] = err; wg.Done() }}))
		off += int64(len(b))
	}
	a.Flush()
	wg.Wait()
	return errs
}

// TestMisalignedRequestFailsAloneNotItsMergedNeighbours: four consecutive
// page reads merge into one batch; the second has a misaligned buffer. Merged
// into one vectored call, O_DIRECT's rule failed all four with EINVAL; the
// misaligned one must fail alone, as it would unmerged, and the aligned ones
// around it succeed, the two after it still in one call.
func TestMisalignedRequestFailsAloneNotItsMergedNeighbours(t *testing.T) {
	for _, op := range []aio.Op{aio.Read, aio.Write} {
		t.Run(op.String(), func(t *testing.T) {
			d := &directLike{}
			a := newArray(t, func(c *aio.Config) { c.Wake, c.Backend = aio.WakeDeferred, d })
			errs := submitConsecutive(t, a, op, nil, misalignedAt(t, 4, page, 1))
			require.NoError(t, errs[0])
			require.ErrorIs(t, errs[1], syscall.EINVAL)
			require.NoError(t, errs[2])
			require.NoError(t, errs[3])
			require.Equal(t, [][2]int64{{0, 1}, {page, 1}, {2 * page, 2}}, d.calls,
				"one call per run of equally aligned requests")
			require.NoError(t, a.Close())
			st := a.Stats()
			require.Equal(t, uint64(1), st.Batches, "the Core's batch is one, however the driver issues it")
			require.Equal(t, uint64(1), st.Failed)
			requireBalanced(t, st)
		})
	}
}

// TestEquallyAlignedRequestsStillMergeIntoOneCall: the split is only where
// alignment changes; requests that share any alignment (here all misaligned
// by the same byte, as small unaligned buffers on a cached file) go in one call.
func TestEquallyAlignedRequestsStillMergeIntoOneCall(t *testing.T) {
	d := &directLike{}
	a := newArray(t, func(c *aio.Config) { c.Wake, c.Backend = aio.WakeDeferred, d })
	bufs := make([][]byte, 3)
	for i := range bufs {
		bufs[i] = alignedBuffer(t, 4096, 4096)[1:101] // 100 bytes, one past a 4096 boundary
	}
	submitConsecutive(t, a, aio.Read, nil, bufs)
	require.Equal(t, [][2]int64{{0, 3}}, d.calls)
}

// TestODirectMisalignedNeighbourDoesNotFailTheBatch is the same through a real
// O_DIRECT file and preadv/pwritev; skipped where the file system refuses
// O_DIRECT. The failing request's error names the file.
func TestODirectMisalignedNeighbourDoesNotFailTheBatch(t *testing.T) {
	for _, d := range []driver{{}, {native: true}} {
		t.Run(d.String(), func(t *testing.T) {
			if d.native {
				requireNative(t)
			}
			testODirectMisalignedNeighbour(t, d)
		})
	}
}

func testODirectMisalignedNeighbour(t *testing.T, d driver) {
	const pages = 4
	for _, op := range []aio.Op{aio.Read, aio.Write} {
		t.Run(op.String(), func(t *testing.T) {
			path, data := writeFile(t, pages*page)
			f, err := aio.OpenDirect(path, os.O_RDWR, 0)
			if err != nil {
				t.Skipf("O_DIRECT not available here: %v", err)
			}
			defer f.Close()
			probe := alignedBuffer(t, page, 4096)
			if _, err := f.ReadAt(probe, 0); err != nil {
				t.Skipf("this file system refuses O_DIRECT reads: %v", err)
			}
			a := newDriverArray(t, d, func(c *aio.Config) { c.Wake, c.Backend = aio.WakeDeferred, aio.FileBackend{} })
			bufs := misalignedAt(t, pages, page, 1)
			want := bytes.Clone(data) // the file afterwards
			if op == aio.Write {
				for i, b := range bufs {
					for k := range b {
						b[k] = ^data[i*page+k]
					}
					if i != 1 {
						copy(want[i*page:], b)
					}
				}
			}
			errs := submitConsecutive(t, a, op, f, bufs)
			for i, err := range errs {
				if i == 1 {
					require.ErrorIs(t, err, syscall.EINVAL)
					require.Contains(t, err.Error(), path, "the error names the file")
					continue
				}
				require.NoError(t, err, "request %d", i)
				if op == aio.Read {
					require.True(t, bytes.Equal(data[i*page:(i+1)*page], bufs[i]), "request %d read the file", i)
				}
			}
			got, err := os.ReadFile(path)
			require.NoError(t, err)
			require.True(t, bytes.Equal(want, got), "the aligned writes, and only they, reached the file")
		})
	}
}

// TestVectorErrorNamesTheFile: a merged write to a file opened read-only goes
// through pwritev and fails; the error, like os.File's own, names the file.
func TestVectorErrorNamesTheFile(t *testing.T) {
	path, _ := writeFile(t, 4*page)
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	a := newArray(t, func(c *aio.Config) { c.Wake, c.Backend = aio.WakeDeferred, aio.FileBackend{} })
	bufs := [][]byte{make([]byte, page), make([]byte, page), make([]byte, page)}
	for i, err := range submitConsecutive(t, a, aio.Write, f, bufs) {
		require.Error(t, err, "request %d", i)
		require.Contains(t, err.Error(), path, "request %d", i)
	}
	require.Equal(t, uint64(1), a.Stats().Batches, "the three writes were one merged batch")
}
