package aio_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/innosim/innosim/aio"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The ordering contract of a sync (package doc, "Syncs"): every write to the
// file that completed before the sync was submitted is durable when the
// sync completes. The test writes pages through the Array (buffered, so
// they sit in the page cache), waits for them, syncs the file through the
// Array, and reads them back through a descriptor opened anew with
// O_DIRECT, which reads the device, not the cache.
func TestSyncCoversTheWritesCompletedBeforeIt(t *testing.T) {
	for _, d := range drivers(t) {
		for _, op := range []aio.Op{aio.Fsync, aio.Fdatasync} {
			t.Run(d.String()+"/"+op.String(), func(t *testing.T) {
				path := filepath.Join(t.TempDir(), "data")
				f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
				require.NoError(t, err)
				defer f.Close()
				a := newDriverArray(t, d, func(c *aio.Config) { c.Wake, c.Backend = aio.WakeTargeted, nil })
				const pages = 16
				want := make([]byte, pages*page)
				for i := range want {
					want[i] = byte(i*7 + int(op))
				}
				var wg sync.WaitGroup
				errs := make(chan error, pages)
				for p := range pages { // concurrent writes, all completed before the sync
					wg.Add(1)
					go func() {
						defer wg.Done()
						_, err := a.WriteAt(context.Background(), f, want[p*page:(p+1)*page], int64(p)*page)
						errs <- err
					}()
				}
				wg.Wait()
				for range pages {
					require.NoError(t, <-errs)
				}
				if op == aio.Fsync {
					require.NoError(t, a.Sync(context.Background(), f))
				} else {
					require.NoError(t, a.Datasync(context.Background(), f))
				}
				direct, err := aio.OpenDirect(path, os.O_RDONLY, 0)
				if err != nil {
					t.Skipf("O_DIRECT here: %v", err)
				}
				defer direct.Close()
				got := alignedBuffer(t, pages*page, page)
				_, err = direct.ReadAt(got, 0)
				require.NoError(t, err)
				require.True(t, bytes.Equal(want, got), "the synced pages read back from the device")
				st := a.Stats()
				require.Equal(t, uint64(pages+1), st.Completed)
				requireBalanced(t, st)
			})
		}
	}
}

// syncLog is a Backend that logs its calls in order, to show what a sync
// orders: a sync submitted after writes completed comes after them in the
// I/O; several syncs of one file waiting together are one call.
type syncLog struct {
	mu   sync.Mutex
	log  []string
	hold chan struct{} // if not nil, the first call waits for it
}

func (b *syncLog) add(s string) {
	b.mu.Lock()
	b.log = append(b.log, s)
	h := b.hold
	b.hold = nil
	b.mu.Unlock()
	if h != nil {
		<-h
	}
}

func (b *syncLog) ReadAt(_ aio.File, p []byte, off int64) (int, error) {
	b.add(fmt.Sprintf("read %d", off))
	return len(p), nil
}

func (b *syncLog) WriteAt(_ aio.File, p []byte, off int64) (int, error) {
	b.add(fmt.Sprintf("write %d", off))
	return len(p), nil
}

func (b *syncLog) Fsync(aio.File) error     { b.add("fsync"); return nil }
func (b *syncLog) Fdatasync(aio.File) error { b.add("fdatasync"); return nil }

func (b *syncLog) lines() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.log...)
}

func TestSyncsWaitingTogetherAreOneCall(t *testing.T) {
	for _, mode := range modes() {
		t.Run(mode.String(), func(t *testing.T) {
			hold := make(chan struct{})
			b := &syncLog{hold: hold}
			a := newArray(t, func(c *aio.Config) {
				c.Handlers, c.Wake, c.Backend = mode, aio.WakeTargeted, b
				c.WriteSegments, c.LogSegment = 1, false
			})
			f := &os.File{} // a comparable File; the backend ignores it
			var wg sync.WaitGroup
			wg.Add(1)
			go func() { // held in the I/O, so that the syncs queue behind it
				defer wg.Done()
				_, err := a.WriteAt(context.Background(), f, make([]byte, 8), 0)
				assert.NoError(t, err)
			}()
			require.Eventually(t, func() bool { return len(b.lines()) == 1 }, hangLimit, 1e6)
			const syncs = 5
			for range syncs {
				wg.Add(1)
				go func() {
					defer wg.Done()
					assert.NoError(t, a.Sync(context.Background(), f))
				}()
			}
			require.Eventually(t, func() bool { return a.Stats().InFlight == syncs+1 }, hangLimit, 1e6)
			close(hold)
			wg.Wait()
			require.Equal(t, []string{"write 0", "fsync"}, b.lines(), "the five syncs waiting together: one fsync")
			st := a.Stats()
			require.Equal(t, uint64(syncs+1), st.Completed)
			require.Equal(t, uint64(syncs-1), st.Merges)
		})
	}
}

// A Backend that cannot sync fails sync requests with errors.ErrUnsupported,
// through Done; the Array goes on.
func TestSyncOnABackendThatCannotSync(t *testing.T) {
	a := newArray(t, func(c *aio.Config) { c.Backend = failing{errors.New("unused")} })
	err := a.Sync(context.Background(), nil)
	require.ErrorIs(t, err, errors.ErrUnsupported)
	requireBalanced(t, a.Stats())
}

// A sync request has no buffer and offset 0; anything else is refused.
func TestSyncRequestsAreChecked(t *testing.T) {
	a := newArray(t, nil)
	done := func(*aio.Request, error) { t.Error("Done of a refused request") }
	for _, r := range []*aio.Request{
		{Op: aio.Fsync, Buf: make([]byte, 8), Done: done},
		{Op: aio.Fdatasync, Offset: page, Done: done},
		{Op: aio.Read, Done: done},
	} {
		require.ErrorIs(t, a.Submit(context.Background(), r), aio.ErrInvalidRequest, "%s", r.Op)
	}
	require.Zero(t, a.Stats().Submitted)
}
