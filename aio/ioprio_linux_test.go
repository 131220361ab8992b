//go:build linux

package aio_test

import (
	"context"
	"sync"
	"testing"

	"github.com/innosim/innosim/aio"
	"github.com/innosim/innosim/prio"
	"github.com/stretchr/testify/require"
)

// ioprioProbe is a Backend that records the I/O priority of the thread each
// call runs on: the one the kernel gives that call's I/O.
type ioprioProbe struct {
	mu  sync.Mutex
	got []prio.IOPrio
}

func (b *ioprioProbe) serve(n int) (int, error) {
	p, err := prio.GetIOPrio(0)
	if err != nil {
		return 0, err
	}
	b.mu.Lock()
	b.got = append(b.got, p)
	b.mu.Unlock()
	return n, nil
}

func (b *ioprioProbe) ReadAt(_ aio.File, p []byte, _ int64) (int, error)  { return b.serve(len(p)) }
func (b *ioprioProbe) WriteAt(_ aio.File, p []byte, _ int64) (int, error) { return b.serve(len(p)) }

// With WithIOPriority a simulated handler does each batch's I/O at the batch's
// hint's I/O priority (ioprio_set on its thread when it changes); without
// it the thread keeps none. Hints used to stop at the submitter.
func TestSimulatedHandlerCarriesTheHintToItsThread(t *testing.T) {
	hints := []prio.Hint{prio.Background, prio.High, prio.High, prio.Normal, prio.Idle}
	for _, mode := range modes() {
		for _, on := range []bool{true, false} {
			t.Run(mode.String()+map[bool]string{true: "/on", false: "/off"}[on], func(t *testing.T) {
				probe := &ioprioProbe{}
				var opts []aio.Option
				if on {
					opts = append(opts, aio.WithIOPriority())
				}
				a := newArray(t, func(c *aio.Config) {
					c.Handlers, c.Wake, c.Backend = mode, aio.WakeTargeted, probe
					c.ReadSegments = 1
				}, opts...)
				for _, h := range hints {
					done := make(chan error, 1)
					require.NoError(t, a.Submit(context.Background(), &aio.Request{Hint: h, Buf: make([]byte, 8),
						Done: func(_ *aio.Request, err error) { done <- err }}))
					require.NoError(t, <-done)
				}
				require.NoError(t, a.Close())
				for i, h := range hints {
					want := prio.IOPrio(0)
					if on {
						want = h.IOPrio()
					}
					require.Equal(t, want, probe.got[i], "request %d at %s", i, h)
				}
				st := a.Stats()
				require.Zero(t, st.IOPrioRefused)
				if on {
					// 5 Backend calls and 4 changes of priority (High twice).
					require.Equal(t, uint64(len(hints)+4), st.Syscalls-st.FutexSyscalls)
				}
			})
		}
	}
}
