package aio_test

import (
	"context"
	"errors"
	"io"
	"sync"
	"testing"

	"github.com/innosim/innosim/aio"
	"github.com/stretchr/testify/require"
)

// fullButFailing transfers every byte and still reports an error, as a device
// that wrote the data but failed the flush after it might.
type fullButFailing struct{ err error }

func (b fullButFailing) ReadAt(_ aio.File, p []byte, _ int64) (int, error)  { return len(p), b.err }
func (b fullButFailing) WriteAt(_ aio.File, p []byte, _ int64) (int, error) { return len(p), b.err }

// fullButFailingVector is the same through the vectored path a merged batch takes.
type fullButFailingVector struct{ fullButFailing }

func (b fullButFailingVector) ReadvAt(_ aio.File, bufs [][]byte, _ int64) (int, error) {
	return totalLen(bufs), b.err
}
func (b fullButFailingVector) WritevAt(_ aio.File, bufs [][]byte, _ int64) (int, error) {
	return totalLen(bufs), b.err
}

func totalLen(bufs [][]byte) (n int) {
	for _, b := range bufs {
		n += len(b)
	}
	return n
}

// A backend error reaches every request of the batch even when the byte count
// says everything was transferred: only io.EOF with a full count is success.
func TestBackendErrorWithAFullByteCountFailsTheRequests(t *testing.T) {
	boom := errors.New("flush failed")
	tests := []struct {
		name    string
		backend aio.Backend
		pages   int
	}{
		{"one request", fullButFailing{boom}, 1},
		{"merged batch through a combined buffer", fullButFailing{boom}, 4},
		{"merged batch through a vectored call", fullButFailingVector{fullButFailing{boom}}, 4},
	}
	for _, tt := range tests {
		for _, op := range []aio.Op{aio.Read, aio.Write} {
			t.Run(tt.name+"/"+op.String(), func(t *testing.T) {
				a := newArray(t, func(c *aio.Config) { c.Backend = tt.backend; c.Wake = aio.WakeDeferred })
				var (
					wg   sync.WaitGroup
					mu   sync.Mutex
					errs []error
				)
				for p := range tt.pages {
					wg.Add(1)
					require.NoError(t, a.Submit(context.Background(), &aio.Request{
						Op: op, Offset: int64(p) << 14, Buf: make([]byte, 16<<10),
						Done: func(_ *aio.Request, err error) {
							mu.Lock()
							errs = append(errs, err)
							mu.Unlock()
							wg.Done()
						}}))
				}
				a.Flush() // one wake: the handler sees every page and merges them
				wg.Wait()
				require.Len(t, errs, tt.pages)
				for _, err := range errs {
					require.ErrorIs(t, err, boom)
				}
				st := a.Stats()
				require.Equal(t, uint64(tt.pages), st.Failed)
				requireBalanced(t, st)
			})
		}
	}
}

// A full byte count with io.EOF is success (io.ReaderAt allows it at the end of
// the input).
func TestFullReadWithEOFSucceeds(t *testing.T) {
	a := newArray(t, func(c *aio.Config) { c.Backend = fullButFailing{errEOF()}; c.Wake = aio.WakeTargeted })
	got := make(chan error, 1)
	require.NoError(t, a.Submit(context.Background(), &aio.Request{Buf: make([]byte, 16<<10),
		Done: func(_ *aio.Request, err error) { got <- err }}))
	require.NoError(t, <-got)
}

// A nil pointer stored in Config.Backend (say, NewLatency's result with its error
// ignored) is refused by New, not left to crash a handler thread later.
func TestNewRejectsANilPointerBackend(t *testing.T) {
	var l *aio.Latency
	cfg := aio.DefaultConfig()
	cfg.Backend = l
	a, err := aio.New(cfg)
	require.ErrorIs(t, err, aio.ErrInvalidConfig)
	require.Contains(t, err.Error(), "Backend")
	require.Nil(t, a)
}

func errEOF() error { return io.EOF }
