package main

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/innosim/innosim/aio"
	"github.com/innosim/innosim/prio"
	"github.com/stretchr/testify/require"
)

var errInjected = errors.New("injected write error")

// faultBackend does real file I/O but fails every write that touches a page
// in its fail set. It is a plain aio.Backend (not a VectorBackend), so a
// merged write goes through the combined buffer and fails as a whole.
type faultBackend struct {
	mu   sync.Mutex
	fail map[int64]bool
}

func (b *faultBackend) setFail(page int64, on bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.fail[page] = on
}

func (b *faultBackend) ReadAt(f aio.File, p []byte, off int64) (int, error) {
	return aio.FileBackend{}.ReadAt(f, p, off)
}

func (b *faultBackend) Fsync(f aio.File) error     { return aio.FileBackend{}.Fsync(f) }
func (b *faultBackend) Fdatasync(f aio.File) error { return aio.FileBackend{}.Fdatasync(f) }

func (b *faultBackend) WriteAt(f aio.File, p []byte, off int64) (int, error) {
	b.mu.Lock()
	for n := off / PageSize; n < (off+int64(len(p)))/PageSize; n++ {
		if b.fail[n] {
			b.mu.Unlock()
			return 0, errInjected
		}
	}
	b.mu.Unlock()
	return aio.FileBackend{}.WriteAt(f, p, off)
}

func openFaulty(t *testing.T, interval time.Duration, failing ...int64) (*Store, *faultBackend, Config) {
	t.Helper()
	fb := &faultBackend{fail: map[int64]bool{}}
	for _, n := range failing {
		fb.fail[n] = true
	}
	cfg := smallConfig(t)
	cfg.Pages, cfg.Frames, cfg.Limit, cfg.FlushInterval = 128, 16, 2, interval
	cfg.AIO.Backend = fb
	s, err := Open(cfg)
	require.NoError(t, err)
	return s, fb, cfg
}

func update(t *testing.T, ss *Session, n int64) {
	t.Helper()
	require.NoError(t, ss.Update(context.Background(), n, func(p []byte, v uint64) { fill(p, n, v) }))
}

// A write that fails reaches Checkpoint's caller; its page stays dirty and
// resident through eviction pressure (so its update is not lost), while the
// page whose write succeeded is clean; once the device heals, the next
// Checkpoint writes it.
func TestFailedWriteReachesTheCallerAndKeepsThePageDirty(t *testing.T) {
	s, fb, cfg := openFaulty(t, time.Minute, 3) // the flusher stays out of the way
	ctx := context.Background()
	ss := s.Session(prio.Query)
	update(t, ss, 3)
	update(t, ss, 40)

	err := s.Checkpoint(ctx)
	require.ErrorIs(t, err, errInjected)
	require.ErrorContains(t, err, "write of page 3")
	require.NotContains(t, err.Error(), "page 40")
	require.True(t, s.Dirty(3), "a page whose write failed is never marked clean")
	require.False(t, s.Dirty(40))
	require.Equal(t, uint64(1), s.Stats().WriteErrors)

	// Read four times the pool's frames: page 3 may not be evicted.
	for n := int64(64); n < 128; n++ {
		require.NoError(t, ss.Read(ctx, n, func([]byte, uint64) {}))
	}
	require.True(t, s.Dirty(3), "a dirty page is never evicted")
	var seen uint64
	require.NoError(t, ss.Read(ctx, 3, func(p []byte, v uint64) {
		seen = v
		require.NoError(t, checkPayload(3, p, v))
	}))
	require.Equal(t, uint64(1), seen, "the update is still in the pool")
	versions, err := Verify(cfg.Path, cfg.Pages, nil)
	require.NoError(t, err, "the failed write left the file's page 3 intact")
	require.Equal(t, uint64(0), versions[3], "the file still has the old page 3")
	require.Equal(t, uint64(1), versions[40])

	fb.setFail(3, false)
	require.NoError(t, s.Checkpoint(ctx))
	require.False(t, s.Dirty(3))
	ss.Close()
	require.NoError(t, s.Close())
	versions, err = Verify(cfg.Path, cfg.Pages, checkPayload)
	require.NoError(t, err)
	require.Equal(t, uint64(1), versions[3])
}

// The background flusher's write errors reach Close's caller; the page never
// written keeps its old image in the file, whole.
func TestBackgroundWriteErrorReachesClose(t *testing.T) {
	tests := []struct {
		name    string
		failing []int64
		updated []int64
	}{
		{"one page fails", []int64{5}, []int64{5, 20, 90}},
		{"every updated page fails", []int64{5, 20}, []int64{5, 20}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _, cfg := openFaulty(t, time.Millisecond, tt.failing...)
			ss := s.Session(prio.Query)
			for _, n := range tt.updated {
				update(t, ss, n)
			}
			ss.Close()
			require.Eventually(t, func() bool { return s.Stats().WriteErrors >= uint64(len(tt.failing)) },
				10*time.Second, time.Millisecond, "the flusher tries the pages")
			for _, n := range tt.failing {
				require.True(t, s.Dirty(n))
			}
			err := s.Close()
			require.ErrorIs(t, err, errInjected)
			require.ErrorIs(t, s.Close(), errInjected, "Close reports the same again")
			st := s.Stats()
			require.Equal(t, st.AIO.Submitted, st.AIO.Completed+st.AIO.Failed, "every write completed once: %+v", st.AIO)
			require.Equal(t, st.AIO.Failed, st.WriteErrors)

			versions, err := Verify(cfg.Path, cfg.Pages, checkPayload)
			require.NoError(t, err, "no page is torn")
			fails := map[int64]bool{}
			for _, n := range tt.failing {
				fails[n] = true
			}
			for _, n := range tt.updated {
				want := uint64(1)
				if fails[n] {
					want = 0
				}
				require.Equal(t, want, versions[n], "page %d", n)
			}
		})
	}
}
