//go:build linux

package aio_test

import (
	"context"
	"encoding/binary"
	"os"
	"testing"
	"time"

	"github.com/innosim/innosim/aio"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// eventFile returns an eventfd as a File: a read of it waits in the kernel
// (io_uring arms a poll) until the test writes the counter, so a native
// request on it is issued and stays in the kernel, not yet begun, for as
// long as the test likes.
func eventFile(t *testing.T) *os.File {
	t.Helper()
	fd, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	require.NoError(t, err)
	f := os.NewFile(uintptr(fd), "eventfd")
	t.Cleanup(func() { _ = f.Close() })
	return f
}

// A native request issued to the kernel and waiting there is canceled with
// IORING_OP_ASYNC_CANCEL when its Context ends: Done gets an error wrapping
// ErrCanceled and the context's error, and it counts as canceled. Before,
// an issued request could not be canceled at all.
func TestNativeCancelsAnIssuedRequestInTheKernel(t *testing.T) {
	requireNative(t)
	for _, plug := range []bool{false, true} {
		t.Run(map[bool]string{false: "unplugged", true: "plugged"}[plug], func(t *testing.T) {
			ev := eventFile(t)
			var opts []aio.Option
			if plug {
				opts = append(opts, aio.WithPlug())
			}
			a := newDriverArray(t, driver{native: true}, func(c *aio.Config) { c.Wake = aio.WakeTargeted }, opts...)
			ctx, cancel := context.WithCancel(context.Background())
			got := make(chan error, 1)
			require.NoError(t, a.Submit(context.Background(), &aio.Request{File: ev, Buf: make([]byte, 8), Context: ctx,
				Done: func(_ *aio.Request, err error) { got <- err }}))
			require.Eventually(t, func() bool { return a.Stats().Batches == 1 }, hangLimit, time.Millisecond, "issued")
			select {
			case err := <-got:
				t.Fatalf("the read of an empty eventfd completed: %v", err)
			case <-time.After(20 * time.Millisecond):
			}
			cancel()
			select {
			case err := <-got:
				require.ErrorIs(t, err, aio.ErrCanceled)
				require.ErrorIs(t, err, context.Canceled)
			case <-time.After(hangLimit):
				t.Fatal("the kernel's cancel never completed the request")
			}
			require.NoError(t, a.Close())
			st := a.Stats()
			require.Equal(t, uint64(1), st.Canceled)
			require.Zero(t, st.Completed)
			requireBalanced(t, st)
		})
	}
}

// ReadAt on native AIO, its read in the kernel when ctx ends: the kernel
// cancels it, and ReadAt says the read did not happen (0, ErrCanceled). A
// read that does happen first returns its bytes.
func TestNativeReadAtCanceledInTheKernel(t *testing.T) {
	requireNative(t)
	ev := eventFile(t)
	a := newDriverArray(t, driver{native: true}, func(c *aio.Config) { c.Wake = aio.WakeTargeted }, aio.WithPlug())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	n, err := a.ReadAt(ctx, ev, make([]byte, 8), 0)
	require.Zero(t, n)
	require.ErrorIs(t, err, aio.ErrCanceled)
	require.ErrorIs(t, err, context.DeadlineExceeded)

	var one [8]byte
	binary.NativeEndian.PutUint64(one[:], 7)
	_, err = ev.Write(one[:])
	require.NoError(t, err)
	buf := make([]byte, 8)
	n, err = a.ReadAt(context.Background(), ev, buf, 0)
	require.NoError(t, err)
	require.Equal(t, 8, n)
	require.Equal(t, uint64(7), binary.NativeEndian.Uint64(buf), "the eventfd's counter")
	st := a.Stats()
	require.Equal(t, uint64(1), st.Canceled)
	require.Equal(t, uint64(1), st.Completed)
	requireBalanced(t, st)
}
