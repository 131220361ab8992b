//go:build linux

package aio_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/innosim/innosim/aio"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// untouched is the byte a test fills p with before a read, to see which
// bytes the read wrote.
const untouched = 0xEE

// A ReadAt whose first pages come from the page cache, and whose rest waits
// for a slot until its ctx ends, returned ErrCanceled (no byte read) with
// the cached pages already copied into p. It returns their count and an
// error wrapping ctx.Err() but not ErrCanceled: a read stopped part way.
// The file ends after its first page, so the cache holds exactly that page
// of the two read.
func TestCachedReadWhoseRestIsCanceledKeepsItsBytes(t *testing.T) {
	for _, d := range drivers(t) {
		t.Run(d.String(), func(t *testing.T) {
			const osPage = 4096
			path, data := writeFile(t, osPage)
			f, err := os.Open(path)
			require.NoError(t, err)
			defer f.Close()
			g := gate{make(chan struct{})}
			release := sync.OnceFunc(func() { close(g.open) })
			defer release()
			a := newDriverArray(t, d, func(c *aio.Config) {
				c.ReadSegments, c.SlotsPerSegment, c.Backend, c.Wake = 1, 2, g, aio.WakeTargeted
			})
			for range 2 { // the read array full, its I/O held
				require.NoError(t, a.Submit(context.Background(), &aio.Request{File: d.File, Buf: make([]byte, 8),
					Done: func(*aio.Request, error) {}}))
			}
			p := bytes.Repeat([]byte{untouched}, 2*osPage)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
			defer cancel()
			n, err := a.ReadAt(ctx, f, p, 0)
			require.ErrorIs(t, err, context.DeadlineExceeded)
			require.NotErrorIs(t, err, aio.ErrCanceled, "p was written")
			require.Equal(t, osPage, n)
			require.Equal(t, data, p[:n], "the cached page")
			require.Equal(t, bytes.Repeat([]byte{untouched}, osPage), p[n:], "nothing past it")
			release()
			require.NoError(t, a.Close())
			st := a.Stats()
			requireBalanced(t, st)
			require.Equal(t, uint64(1), st.Canceled, "the rest's request")
		})
	}
}

// Under load, with the page cache holding every other 4 KiB page of the
// file and contexts ending at random, each ReadAt keeps the contract: nil
// with all of p read; ErrCanceled with n = 0 and p untouched; a context's
// error without ErrCanceled with 0 < n < len(p) and p[:n] read. Reads whose
// first page was cached returned ErrCanceled with it copied into p.
func TestCachedReadCancelUnderLoadKeepsTheContract(t *testing.T) {
	for _, d := range drivers(t) {
		if d.handlers == aio.HandlerFutex {
			continue // the handler mode does not touch this path
		}
		t.Run(d.String(), func(t *testing.T) {
			const osPage, size, rsize = 4096, 1 << 20, 2 * 4096
			path, data := writeFile(t, size)
			f, err := os.Open(path)
			require.NoError(t, err)
			defer f.Close()
			require.NoError(t, f.Sync()) // clean pages, which FADV_DONTNEED drops
			cachePart := func() {
				// Every other page: readahead off on this descriptor, so
				// that reading one page brings in no other.
				c, err := os.Open(path)
				if err != nil {
					t.Error(err)
					return
				}
				defer c.Close()
				_ = unix.Fadvise(int(c.Fd()), 0, 0, unix.FADV_DONTNEED)
				_ = unix.Fadvise(int(c.Fd()), 0, 0, unix.FADV_RANDOM)
				b := make([]byte, osPage)
				for off := int64(0); off < size; off += 2 * osPage {
					_, _ = c.ReadAt(b, off)
				}
			}
			cachePart()
			a := newDriverArray(t, d, func(c *aio.Config) { c.Wake, c.Backend = aio.WakeTargeted, nil })
			var ok, canceled, partial atomic.Int64
			var bad atomic.Value
			fail := func(format string, args ...any) { bad.CompareAndSwap(nil, fmt.Sprintf(format, args...)) }
			deadline := time.Now().Add(500 * time.Millisecond)
			var wg sync.WaitGroup
			for w := range 16 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					rng := rand.New(rand.NewPCG(uint64(w), 1))
					p := make([]byte, rsize)
					for time.Now().Before(deadline) {
						if rng.IntN(64) == 0 {
							cachePart()
						}
						off := int64(rng.IntN(size/rsize)) * rsize
						for i := range p {
							p[i] = untouched
						}
						ctx, cancel := context.WithTimeout(context.Background(), time.Duration(rng.IntN(300))*time.Microsecond)
						n, err := a.ReadAt(ctx, f, p, off)
						cancel()
						want := data[off : off+rsize]
						switch {
						case err == nil:
							ok.Add(1)
							if n != rsize || !bytes.Equal(p, want) {
								fail("nil error at %d: n = %d or wrong bytes", off, n)
							}
						case errors.Is(err, aio.ErrCanceled):
							canceled.Add(1)
							if n != 0 || !bytes.Equal(p, bytes.Repeat([]byte{untouched}, rsize)) {
								fail("ErrCanceled at %d with n = %d or p written: %v", off, n, err)
							}
						case errors.Is(err, context.DeadlineExceeded):
							partial.Add(1)
							if n <= 0 || n >= rsize || !bytes.Equal(p[:n], want[:n]) {
								fail("context error at %d with n = %d or wrong bytes: %v", off, n, err)
							}
						default:
							fail("unexpected error at %d: %v", off, err)
						}
					}
				}()
			}
			waitGroup(t, &wg, "the readers")
			require.NoError(t, a.Close())
			st := a.Stats()
			t.Logf("ok %d, canceled %d, stopped part way %d; %+v", ok.Load(), canceled.Load(), partial.Load(), st)
			if v := bad.Load(); v != nil {
				t.Fatal(v)
			}
			requireBalanced(t, st)
			require.Zero(t, st.InFlight)
		})
	}
}
