package aio_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/innosim/innosim/aio"
	"github.com/stretchr/testify/require"
)

// A File that is a nil pointer (a typed nil *os.File) is refused by Submit
// and by every synchronous call with ErrInvalidRequest naming the field,
// before anything is reserved: it panicked in the error's naming
// (os.File.Name on nil), under native AIO with the segment's lock held,
// after which the next call and Close hung. The Array must serve the next
// request and close as if the refused one had never come.
func TestNilPointerFileIsRefused(t *testing.T) {
	for _, d := range drivers(t) {
		t.Run(d.String(), func(t *testing.T) {
			a := newDriverArray(t, d, func(c *aio.Config) { c.Wake, c.Backend = aio.WakeTargeted, nil })
			var nf *os.File
			ctx, cancel := context.WithTimeout(context.Background(), hangLimit)
			defer cancel()
			buf := make([]byte, 16)
			requireNilFile := func(what string, err error) {
				t.Helper()
				require.ErrorIs(t, err, aio.ErrInvalidRequest, what)
				require.ErrorContains(t, err, "File", what)
				require.ErrorContains(t, err, "*os.File", what)
			}
			for _, op := range []aio.Op{aio.Read, aio.Write, aio.Fsync} {
				r := &aio.Request{Op: op, File: nf, Done: func(*aio.Request, error) { t.Error("Done of a refused request") }}
				if op == aio.Read || op == aio.Write {
					r.Buf = buf
				}
				requireNilFile("Submit "+op.String(), a.Submit(ctx, r))
			}
			n, err := a.ReadAt(ctx, nf, buf, 0)
			require.Zero(t, n)
			requireNilFile("ReadAt", err)
			n, err = a.WriteAt(ctx, nf, buf, 0)
			require.Zero(t, n)
			requireNilFile("WriteAt", err)
			requireNilFile("Sync", a.Sync(ctx, nf))
			requireNilFile("Datasync", a.Datasync(ctx, nf))
			require.Zero(t, a.Stats().Submitted, "a refused request is not counted")

			// The Array is intact: a real write goes through, and Close returns.
			f, err := os.Create(filepath.Join(t.TempDir(), "f"))
			require.NoError(t, err)
			defer f.Close()
			n, err = a.WriteAt(ctx, f, buf, 0)
			require.NoError(t, err)
			require.Equal(t, len(buf), n)
			closed := make(chan error, 1)
			go func() { closed <- a.Close() }()
			select {
			case err := <-closed:
				require.NoError(t, err)
			case <-time.After(hangLimit):
				t.Fatal("Close hung after a refused nil File")
			}
			requireBalanced(t, a.Stats())
		})
	}
}

// panickyFile is a File whose descriptor cannot be had without a panic.
type panickyFile struct{ _ int }

func (*panickyFile) ReadAt(p []byte, _ int64) (int, error)  { return len(p), nil }
func (*panickyFile) WriteAt(p []byte, _ int64) (int, error) { return len(p), nil }
func (*panickyFile) Fd() uintptr                            { panic("no descriptor here") }

// Under native AIO the driver asks a request's File for its descriptor with
// the segment's lock held: a panic there failed nothing and left the lock
// held, so the next submission and Close hung. It fails the batch with a
// *PanicError instead, and the Array goes on.
func TestNativeFilePanicFailsTheBatch(t *testing.T) {
	requireNative(t)
	d := driver{native: true, File: sparseFile(t)}
	a := newDriverArray(t, d, func(c *aio.Config) { c.Wake = aio.WakeTargeted })
	ctx, cancel := context.WithTimeout(context.Background(), hangLimit)
	defer cancel()
	_, err := a.WriteAt(ctx, &panickyFile{}, make([]byte, 8), 0)
	require.ErrorIs(t, err, aio.ErrBackendPanic)
	var pe *aio.PanicError
	require.ErrorAs(t, err, &pe)
	require.Equal(t, "no descriptor here", pe.Value)
	n, err := a.WriteAt(ctx, d.File, make([]byte, 8), 0)
	require.NoError(t, err, "the Array serves the next request")
	require.Equal(t, 8, n)
	require.NoError(t, a.Close())
	st := a.Stats()
	requireBalanced(t, st)
	require.Equal(t, uint64(1), st.Failed)
}
