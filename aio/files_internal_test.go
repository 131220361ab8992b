package aio

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// memFile is a File that reads zeros and discards writes.
type memFile struct{ name string }

func (*memFile) ReadAt(p []byte, _ int64) (int, error)  { clear(p); return len(p), nil }
func (*memFile) WriteAt(p []byte, _ int64) (int, error) { return len(p), nil }

// An engine that opens and closes files for as long as it runs must not have
// the Array keep every File it ever saw: the merge test needs a File's id only
// while one of its requests waits in a slot. The Array used to keep every File
// (and so kept it from the garbage collector) forever.
func TestArrayForgetsFilesWithNothingWaiting(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Backend = &Latency{}
	cfg.Wake = WakeTargeted
	a, err := New(cfg)
	require.NoError(t, err)
	defer a.Close()

	const files = 500
	var wg sync.WaitGroup
	for i := range files {
		f := &memFile{name: "f"}
		for p := range 3 { // three consecutive pages: mergeable
			wg.Add(1)
			op := Read
			if i%2 == 1 {
				op = Write
			}
			require.NoError(t, a.Submit(context.Background(), &Request{Op: op, File: f, Offset: int64(p) << 14,
				Buf: make([]byte, 16<<10), Done: func(_ *Request, err error) {
					require.NoError(t, err)
					wg.Done()
				}}))
		}
	}
	wg.Wait()
	require.Equal(t, 0, a.trackedFiles(), "files remembered after every request completed")
	require.Equal(t, uint64(3*files), a.Stats().Completed)
}

// sliceFile is a File type that == cannot compare.
type sliceFile []byte

func (sliceFile) ReadAt(p []byte, _ int64) (int, error)  { return len(p), nil }
func (sliceFile) WriteAt(p []byte, _ int64) (int, error) { return len(p), nil }

// A File that is not comparable is refused; the merge test's == would panic.
func TestSubmitRefusesAFileThatIsNotComparable(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Backend = &Latency{}
	a, err := New(cfg)
	require.NoError(t, err)
	defer a.Close()
	err = a.Submit(context.Background(), &Request{File: sliceFile("x"), Buf: make([]byte, 512),
		Done: func(*Request, error) { t.Error("Done called for a refused request") }})
	require.ErrorIs(t, err, ErrInvalidRequest)
	require.Contains(t, err.Error(), "not comparable")
	require.Equal(t, uint64(0), a.Stats().Submitted)
}
