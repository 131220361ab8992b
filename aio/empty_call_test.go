package aio_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/innosim/innosim/aio"
	"github.com/stretchr/testify/require"
)

// ReadAt and WriteAt of an empty p return 0, nil, as os.File's do, with
// nothing submitted or counted, whatever ctx (they refused it with
// ErrInvalidRequest). Their Offset and File are checked as Submit checks
// them; Submit still refuses a Request with an empty Buf.
func TestEmptyReadAtAndWriteAtAreNoOps(t *testing.T) {
	for _, d := range drivers(t) {
		t.Run(d.String(), func(t *testing.T) {
			a := newDriverArray(t, d, func(c *aio.Config) { c.Wake, c.Backend = aio.WakeTargeted, nil })
			f, err := os.Create(filepath.Join(t.TempDir(), "f"))
			require.NoError(t, err)
			defer f.Close()
			ended, cancel := context.WithCancel(context.Background())
			cancel()
			for _, ctx := range []context.Context{context.Background(), ended} {
				for _, p := range [][]byte{nil, {}} {
					n, err := a.ReadAt(ctx, f, p, 0)
					require.NoError(t, err)
					require.Zero(t, n)
					wantN, wantErr := f.ReadAt(p, 0)
					require.Equal(t, wantN, n)
					require.Equal(t, wantErr, err, "as os.File.ReadAt")
					n, err = a.WriteAt(ctx, f, p, 1<<20)
					require.NoError(t, err)
					require.Zero(t, n)
				}
			}
			_, err = a.ReadAt(context.Background(), f, nil, -1)
			require.ErrorIs(t, err, aio.ErrInvalidRequest, "a negative offset is refused as os.File.ReadAt refuses it")
			_, err = a.WriteAt(context.Background(), (*os.File)(nil), nil, 0)
			require.ErrorIs(t, err, aio.ErrInvalidRequest)
			err = a.Submit(context.Background(), &aio.Request{File: f, Done: func(*aio.Request, error) {}})
			require.ErrorIs(t, err, aio.ErrInvalidRequest, "Submit refuses an empty Buf")
			st, err := f.Stat()
			require.NoError(t, err)
			require.Zero(t, st.Size(), "the empty write wrote nothing")
			require.Zero(t, a.Stats().Submitted)
		})
	}
}
