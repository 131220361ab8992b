package aio_test

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/innosim/innosim/aio"
	"github.com/stretchr/testify/require"
)

// driver is one way to run an Array in the behavioural tests: simulated AIO
// with a handler mode, or native AIO. A test builds its Config as for
// simulated AIO, with the Backend it wants, and New turns it into this
// driver's: under native the Backend's behaviour (a gate that holds the I/O, a
// fault that fails it) moves to the native fault hook, and the requests need
// File, a sparse scratch file on disk, where simulated ones may leave it nil.
type driver struct {
	handlers aio.HandlerMode
	native   bool
	// File is the file a test's requests use: nil under simulated AIO (the
	// Latency backend and its kin ignore it), a 1 GiB sparse file under
	// native.
	File aio.File
}

func (d driver) String() string {
	if d.native {
		return "native"
	}
	return d.handlers.String()
}

// nativeProbe is whether native AIO works in this process: nil, or New's error
// (which wraps ErrNativeUnavailable).
var nativeProbe = sync.OnceValue(func() error {
	cfg := aio.DefaultConfig()
	cfg.IO, cfg.Wake = aio.IONative, aio.WakeTargeted
	a, err := aio.New(cfg)
	if err != nil {
		return err
	}
	return a.Close()
})

// requireNative skips t where io_uring is refused, with the reason.
func requireNative(t testing.TB) {
	t.Helper()
	if err := nativeProbe(); err != nil {
		if !errors.Is(err, aio.ErrNativeUnavailable) {
			t.Fatalf("native AIO failed without ErrNativeUnavailable: %v", err)
		}
		t.Skipf("native AIO unavailable here: %v", err)
	}
}

// drivers returns the simulated handler modes and, where io_uring works,
// native AIO (with its scratch file in t's temporary directory). Where it does
// not, the reason is logged.
func drivers(t testing.TB) []driver {
	t.Helper()
	var ds []driver
	for _, m := range modes() {
		ds = append(ds, driver{handlers: m})
	}
	if err := nativeProbe(); err != nil {
		t.Logf("native AIO not tested: %v", err)
		return ds
	}
	return append(ds, driver{native: true, File: sparseFile(t)})
}

// sparseFile returns a 1 GiB file of holes, closed at the end of t: reads
// anywhere in it are full (zeros), writes land in it.
func sparseFile(t testing.TB) *os.File {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(t.TempDir(), "sparse"), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	require.NoError(t, err)
	t.Cleanup(func() { _ = f.Close() })
	require.NoError(t, f.Truncate(1<<30))
	return f
}

// policies returns those of ps this driver runs: native AIO refuses WakeAll.
func (d driver) policies(ps ...aio.WakePolicy) []aio.WakePolicy {
	if !d.native {
		return ps
	}
	var out []aio.WakePolicy
	for _, p := range ps {
		if p != aio.WakeAll {
			out = append(out, p)
		}
	}
	return out
}

// nativeFaulter is a test Backend whose behaviour a native Array can take
// through its fault hook.
type nativeFaulter interface {
	nativeFault(res int32) error
}

func (g gate) nativeFault(int32) error               { <-g.open; return nil }
func (b failing) nativeFault(int32) error            { return b.err }
func (b *faultyBackend) nativeFault(res int32) error { _, err := b.serve(int(res)); return err }

// New builds cfg's Array for this driver: Handlers set, or IO = native with
// the Backend's behaviour moved to the fault hook (a Latency backend's service
// time is dropped: the kernel's is real).
func (d driver) New(cfg aio.Config, opts ...aio.Option) (*aio.Array, error) {
	if !d.native {
		cfg.Handlers = d.handlers
		return aio.New(cfg, opts...)
	}
	fault, _ := cfg.Backend.(nativeFaulter)
	cfg.IO, cfg.Handlers, cfg.Backend = aio.IONative, aio.HandlerGoroutine, nil
	a, err := aio.New(cfg, opts...)
	if err == nil && fault != nil {
		aio.SetNativeFaults(a, fault.nativeFault)
	}
	return a, err
}

// newDriverArray is newArray for driver d.
func newDriverArray(t testing.TB, d driver, change func(*aio.Config), opts ...aio.Option) *aio.Array {
	t.Helper()
	cfg := aio.DefaultConfig()
	cfg.Backend = &aio.Latency{}
	if change != nil {
		change(&cfg)
	}
	a, err := d.New(cfg, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, a.Close()) })
	return a
}
