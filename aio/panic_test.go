package aio_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/innosim/innosim/aio"
	"github.com/stretchr/testify/require"
)

// panicky is a Backend that panics with value on an I/O at offset at and
// serves every other one.
type panicky struct {
	at    int64
	value any
}

func (b panicky) serve(p []byte, off int64) (int, error) {
	if off == b.at {
		panic(b.value)
	}
	return len(p), nil
}

func (b panicky) ReadAt(_ aio.File, p []byte, off int64) (int, error)  { return b.serve(p, off) }
func (b panicky) WriteAt(_ aio.File, p []byte, off int64) (int, error) { return b.serve(p, off) }

// panickyVector panics in its vectored calls, the path of a merged batch.
type panickyVector struct{ panicky }

func (b panickyVector) ReadvAt(_ aio.File, bufs [][]byte, off int64) (int, error) {
	return b.serve(make([]byte, totalLen(bufs)), off)
}

func (b panickyVector) WritevAt(_ aio.File, bufs [][]byte, off int64) (int, error) {
	return b.serve(make([]byte, totalLen(bufs)), off)
}

// TestBackendPanicFailsItsRequests: a Backend that panics used to end the
// program from a handler thread. The panic must fail the requests of that call
// (an error wrapping ErrBackendPanic, carrying the value and the stack), count
// them as failed, and leave the handler serving: a request after it completes.
func TestBackendPanicFailsItsRequests(t *testing.T) {
	const at = 3 * page
	tests := []struct {
		name    string
		backend aio.Backend
		reqs    int // consecutive requests from at: 2 or more are merged
		value   any
	}{
		{"plain backend, one request", panicky{at, "device exploded"}, 1, "device exploded"},
		{"plain backend, merged batch", panicky{at, "device exploded"}, 3, "device exploded"},
		{"vector backend, merged batch", panickyVector{panicky{at, fs.ErrPermission}}, 2, fs.ErrPermission},
	}
	for _, mode := range modes() {
		for _, tt := range tests {
			t.Run(mode.String()+"/"+tt.name, func(t *testing.T) {
				a := newArray(t, func(c *aio.Config) { c.Handlers, c.Wake, c.Backend = mode, aio.WakeDeferred, tt.backend })
				errs := make(chan error, tt.reqs)
				for k := range tt.reqs {
					require.NoError(t, a.Submit(context.Background(), &aio.Request{Offset: at + int64(k)*page,
						Buf: make([]byte, page), Done: func(_ *aio.Request, err error) { errs <- err }}))
				}
				a.Flush()
				for range tt.reqs {
					err := <-errs
					require.ErrorIs(t, err, aio.ErrBackendPanic)
					var pe *aio.PanicError
					require.ErrorAs(t, err, &pe)
					require.Equal(t, tt.value, pe.Value)
					require.Contains(t, string(pe.Stack), "panicky", "the stack shows where the Backend panicked")
					if e, ok := tt.value.(error); ok {
						require.ErrorIs(t, err, e, "a panic with an error value wraps it")
					}
				}
				// The same segment's handler serves the next request.
				next := make(chan error, 1)
				require.NoError(t, a.Submit(context.Background(), &aio.Request{Buf: make([]byte, page),
					Done: func(_ *aio.Request, err error) { next <- err }}))
				a.Flush()
				require.NoError(t, <-next)
				require.NoError(t, a.Close())
				st := a.Stats()
				require.Equal(t, uint64(tt.reqs), st.Failed)
				require.Equal(t, uint64(1), st.Completed)
				requireBalanced(t, st)
			})
		}
	}
}

// TestPanicInDoneEndsTheProgram shows the documented decision (Request.Done):
// a panic in a Done is the caller's bug and is not recovered; it ends the
// program at once, as a panic in a time.AfterFunc callback does, with the
// Done on the trace, under every driver, and no other Done runs after it. The
// test runs itself in a child process that panics.
func TestPanicInDoneEndsTheProgram(t *testing.T) {
	const env = "INNOSIM_AIO_TEST_DONE_PANIC"
	if which := os.Getenv(env); which != "" {
		cfg := aio.DefaultConfig()
		cfg.Wake, cfg.ReadSegments = aio.WakeDeferred, 1
		var file aio.File
		if which == "native" {
			cfg.IO = aio.IONative
			file = sparseFile(t)
		} else {
			cfg.Backend = &aio.Latency{}
		}
		a, err := aio.New(cfg)
		require.NoError(t, err)
		// Two requests in one batch: the first one's Done panics, the
		// second one's must never run.
		require.NoError(t, a.Submit(context.Background(), &aio.Request{File: file, Buf: make([]byte, 8),
			Done: func(*aio.Request, error) { panic("done callback exploded") }}))
		require.NoError(t, a.Submit(context.Background(), &aio.Request{File: file, Offset: 8, Buf: make([]byte, 8),
			Done: func(*aio.Request, error) { fmt.Println("a Done ran after the panic") }}))
		a.Flush()
		time.Sleep(hangLimit) // the panic ends the process long before
		t.Fatal("a panic in Done did not end the program")
	}
	whiches := []string{"simulated"}
	if nativeProbe() == nil {
		whiches = append(whiches, "native")
	}
	for _, which := range whiches {
		t.Run(which, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestPanicInDoneEndsTheProgram$", "-test.count=1")
			cmd.Env = append(os.Environ(), env+"="+which)
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			require.True(t, errors.As(err, &exit), "the child exits with an error, got %v:\n%s", err, out)
			require.Contains(t, string(out), "panic: done callback exploded")
			require.Contains(t, string(out), "TestPanicInDoneEndsTheProgram.func", "the trace names the Done")
			require.NotContains(t, string(out), "did not end the program")
			require.NotContains(t, string(out), "a Done ran after the panic")
		})
	}
}
