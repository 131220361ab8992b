//go:build linux

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

// WithPlug: a flusher's consecutive page writes that arrive while the ring is
// busy wait in their slots and reach the kernel merged, as one WRITEV,
// where each used to be pushed on its own (merges = 0 in every native run).
// The first write's completion is held (fault hook), so the other 63 find
// the ring busy.
func TestNativePlugMergesConsecutiveWrites(t *testing.T) {
	requireNative(t)
	const pages = 64
	path, _ := writeFile(t, pages*page)
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	require.NoError(t, err)
	defer f.Close()
	rec := &recorder{open: make(chan struct{}), in: make(chan struct{}, 1)}
	a := newDriverArray(t, driver{native: true}, func(c *aio.Config) {
		c.Wake, c.Backend, c.WriteSegments = aio.WakeTargeted, rec, 1
	}, aio.WithPlug())
	want := make([]byte, pages*page)
	for i := range want {
		want[i] = byte(i * 13)
	}
	var wg sync.WaitGroup
	errs := make(chan error, pages)
	write := func(p int) {
		defer wg.Done()
		_, err := a.WriteAt(context.Background(), f, want[p*page:(p+1)*page], int64(p)*page)
		errs <- err
	}
	wg.Add(1)
	go write(0)
	<-rec.in // the first write completed in the kernel; its handler is held
	rec.in = nil
	for p := 1; p < pages; p++ {
		wg.Add(1)
		go write(p)
	}
	require.Eventually(t, func() bool { return a.Stats().InFlight == pages }, hangLimit, 1e6)
	close(rec.open)
	wg.Wait()
	for range pages {
		require.NoError(t, <-errs)
	}
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	require.True(t, bytes.Equal(want, got), "the merged writes landed where they belong")
	st := a.Stats()
	require.Equal(t, uint64(2), st.Batches, "the first write, then the 63 others as one")
	require.Equal(t, uint64(pages-2), st.Merges)
	requireBalanced(t, st)
}

// A request whose buffer lies in a registered buffer reads (READ_FIXED) and
// writes (WRITE_FIXED) the right bytes; RegisterBuffers refuses what the
// kernel would.
func TestNativeFixedBuffers(t *testing.T) {
	requireNative(t)
	path, data := writeFile(t, 8*page)
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	require.NoError(t, err)
	defer f.Close()
	a := newDriverArray(t, driver{native: true}, func(c *aio.Config) { c.Wake = aio.WakeTargeted }, aio.WithPlug())
	pool := alignedBuffer(t, 4*page, page)
	other := alignedBuffer(t, page, page)
	require.NoError(t, a.RegisterBuffers([][]byte{pool, other}))
	require.ErrorIs(t, a.RegisterBuffers([][]byte{other}), aio.ErrInvalidConfig, "a second call")
	for p := range 4 {
		n, err := a.ReadAt(context.Background(), f, pool[p*page:(p+1)*page], int64(p+2)*page)
		require.NoError(t, err)
		require.Equal(t, page, n)
	}
	require.True(t, bytes.Equal(data[2*page:6*page], pool), "reads into the registered buffer")
	copy(other, bytes.Repeat([]byte{0x5a}, page))
	_, err = a.WriteAt(context.Background(), f, other, 7*page)
	require.NoError(t, err)
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	require.True(t, bytes.Equal(other, got[7*page:]), "a write from the registered buffer")
	requireBalanced(t, a.Stats())
}

func TestRegisterBuffersRefusesBadArguments(t *testing.T) {
	a := newArray(t, nil)
	buf := make([]byte, 2*page)
	for _, c := range []struct {
		name string
		bufs [][]byte
	}{
		{"none", nil},
		{"an empty one", [][]byte{buf, {}}},
		{"overlapping", [][]byte{buf[:page+1], buf[page:]}},
	} {
		require.ErrorIs(t, a.RegisterBuffers(c.bufs), aio.ErrInvalidConfig, c.name)
	}
	require.NoError(t, a.RegisterBuffers([][]byte{buf[:page], buf[page:]}), "a simulated Array only checks them")
}
