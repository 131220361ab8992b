package main

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/innosim/innosim/aio"
	"github.com/innosim/innosim/internal/mainexec"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { mainexec.Main(m, main) }

// A stray argument is refused before anything runs; main used to ignore it
// and run with the flags alone.
func TestMainRefusesAStrayArgument(t *testing.T) {
	out, status := mainexec.Run(t, "-clients", "1", "-ops", "1", "-pages", "16", "-frames", "8", "-limit", "2", "extra")
	assert.Equal(t, 2, status, out)
	assert.Contains(t, out, `unexpected argument "extra"`)
}

func TestRunPrintsAndVerifies(t *testing.T) {
	var out bytes.Buffer
	err := run(context.Background(), &out, options{clients: 3, ops: 100, pages: 256, frames: 32, limit: 2, priority: "off", dir: t.TempDir()})
	require.NoError(t, err)
	require.Contains(t, out.String(), "verified:    256 pages, every checksum good")
	require.Contains(t, out.String(), "0 failed")
}

func TestRunOnNativeAIO(t *testing.T) {
	var out bytes.Buffer
	err := run(context.Background(), &out, options{clients: 3, ops: 100, pages: 256, frames: 32, limit: 2, priority: "off", aio: "native", dir: t.TempDir()})
	if errors.Is(err, aio.ErrNativeUnavailable) {
		t.Skipf("native AIO unavailable here: %v", err)
	}
	require.NoError(t, err)
	require.Contains(t, out.String(), "aio (native):")
	require.Contains(t, out.String(), "verified:    256 pages, every checksum good")
	require.ErrorContains(t, run(context.Background(), &bytes.Buffer{}, options{clients: 1, ops: 1, pages: 64, frames: 8, limit: 1,
		priority: "off", aio: "kernel", dir: t.TempDir()}), `-aio "kernel"`)
}

// -priority takes off or nice (Config.Priority); an unknown value was refused
// with prio's "want off, legacy, nice or idle", naming no flag, and legacy
// or idle then failed as Config's "Priority = legacy, want off or nice".
func TestRunRejectsAnUnknownPriority(t *testing.T) {
	for _, p := range []string{"loud", "legacy", "idle"} {
		err := run(context.Background(), &bytes.Buffer{}, options{clients: 1, ops: 1, pages: 64, frames: 8, limit: 1, priority: p, dir: t.TempDir()})
		require.EqualError(t, err, `-priority "`+p+`", want off or nice`)
	}
}

// -clients 0 printed "workload {Clients:0 …}: invalid config; close:
// %!w(<nil>)": a struct dump and a format error, naming no field.
func TestRunNamesTheBadWorkloadField(t *testing.T) {
	err := run(context.Background(), &bytes.Buffer{}, options{clients: 0, ops: 1, pages: 64, frames: 8, limit: 1, priority: "off", dir: t.TempDir()})
	require.ErrorIs(t, err, ErrInvalidConfig)
	require.EqualError(t, err, "pagestore: Workload.Clients = 0, want ≥ 1: invalid config")
	err = run(context.Background(), &bytes.Buffer{}, options{clients: 1, ops: 0, pages: 64, frames: 8, limit: 1, priority: "off", dir: t.TempDir()})
	require.EqualError(t, err, "pagestore: Workload.Ops = 0, want ≥ 1: invalid config")
}

// A reader of the output that goes away (pagestore | head -1) used to kill the
// program with SIGPIPE at its next line, before its deferred removal of the
// temporary directory and its data file; so did Ctrl-C.
func TestBrokenPipeRemovesTheTemporaryDirectory(t *testing.T) {
	tmp := t.TempDir()
	assert.Nil(t, mainexec.RunUnread(t, tmp, "-clients", "2", "-ops", "20", "-pages", "64", "-frames", "8", "-limit", "1"), "killed by a signal")
	left, err := filepath.Glob(filepath.Join(tmp, "pagestore*"))
	require.NoError(t, err)
	assert.Empty(t, left, "the temporary directory is removed")
}
