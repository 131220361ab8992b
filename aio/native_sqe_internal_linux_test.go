//go:build linux

package aio

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/innosim/innosim/prio"
	"github.com/stretchr/testify/require"
)

// nativeArray is a native Array for the white-box tests, skipped where
// io_uring is refused.
func nativeArray(t *testing.T, opts ...Option) *Array {
	t.Helper()
	if err := NativeAvailable(); err != nil {
		t.Skipf("native AIO unavailable: %v", err)
	}
	cfg := DefaultConfig()
	cfg.IO, cfg.Wake = IONative, WakeDeferred
	a, err := New(cfg, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, a.Close()) })
	return a
}

// lastSQE pushes segment seg's waiting requests (under its lock), returns a
// copy of the last SQE pushed, and submits them.
func lastSQE(a *Array, seg int) uringSQE {
	a.segMu[seg].Lock()
	k := a.issueLocked(seg)
	r := a.native.segs[seg].ring
	e := r.sqes[(r.tail-1)&r.sqMask]
	a.enterPushed(seg, k)
	return e
}

// With WithIOPriority a native request's hint goes to the kernel in its SQE's
// ioprio (Hint.IOPrio); without it, or for a sync, the field is 0.
func TestNativeSQECarriesTheHintsIOPrio(t *testing.T) {
	f, err := os.OpenFile(filepath.Join(t.TempDir(), "f"), os.O_RDWR|os.O_CREATE, 0o600)
	require.NoError(t, err)
	defer f.Close()
	require.NoError(t, f.Truncate(1<<20))
	for _, on := range []bool{true, false} {
		var opts []Option
		if on {
			opts = append(opts, WithIOPriority())
		}
		a := nativeArray(t, opts...)
		for _, c := range []struct {
			op   Op
			hint prio.Hint
		}{{Read, prio.Background}, {Write, prio.Idle}, {Read, prio.High}, {Read, prio.Normal}, {Fsync, prio.Low}} {
			done := make(chan error, 1)
			r := &Request{Op: c.op, Hint: c.hint, File: f, Done: func(_ *Request, err error) { done <- err }}
			if !c.op.isSync() {
				r.Buf = make([]byte, 4096)
			}
			require.NoError(t, a.Submit(context.Background(), r))
			seg := a.core.route(SlotRequest{Op: c.op, Kind: KindNormal})
			e := lastSQE(a, seg)
			require.NoError(t, <-done)
			want := uint16(0)
			if on && !c.op.isSync() {
				want = uint16(c.hint.IOPrio())
			}
			require.Equal(t, want, e.ioprio, "WithIOPriority %v, %s at %s", on, c.op, c.hint)
		}
	}
}

// A request whose buffer lies inside a registered buffer is a READ_FIXED
// naming that buffer's index; one outside is a plain READ.
func TestNativeSQEUsesTheRegisteredBuffer(t *testing.T) {
	f, err := os.OpenFile(filepath.Join(t.TempDir(), "f"), os.O_RDWR|os.O_CREATE, 0o600)
	require.NoError(t, err)
	defer f.Close()
	require.NoError(t, f.Truncate(1<<20))
	a := nativeArray(t)
	first, second, outside := make([]byte, 8192), make([]byte, 8192), make([]byte, 4096)
	require.NoError(t, a.RegisterBuffers([][]byte{first, second}))
	for _, c := range []struct {
		buf    []byte
		opcode uint8
		index  uint16
	}{{second[4096:], uringOpReadFixed, 1}, {first[:4096], uringOpReadFixed, 0}, {outside, uringOpRead, 0}} {
		done := make(chan error, 1)
		require.NoError(t, a.Submit(context.Background(), &Request{File: f, Buf: c.buf, Done: func(_ *Request, err error) { done <- err }}))
		e := lastSQE(a, a.core.route(SlotRequest{Op: Read}))
		require.NoError(t, <-done)
		require.Equal(t, c.opcode, e.opcode)
		require.Equal(t, c.index, e.bufIndex)
	}
}
