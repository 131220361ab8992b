package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/innosim/innosim/aio"
	"github.com/innosim/innosim/internal/mainexec"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { mainexec.Main(m, main) }

// A stray argument is refused before anything runs; main used to ignore it
// and run with the flags alone.
func TestMainRefusesAStrayArgument(t *testing.T) {
	out, status := mainexec.Run(t, "-clients", "1", "-duration", "1ms", "-pages", "64", "extra")
	assert.Equal(t, 2, status, out)
	assert.Contains(t, out, `unexpected argument "extra"`)
}

func TestInsertCountsRowsAndWakeups(t *testing.T) {
	o := options{clients: 2, duration: 30 * time.Millisecond, pages: 256, dir: t.TempDir()}
	f, err := os.CreateTemp(o.dir, "ibdata")
	require.NoError(t, err)
	defer f.Close()
	require.NoError(t, f.Truncate(o.pages*pageSize))
	tests := []struct {
		name  string
		setup setup
	}{
		{"wake-all wastes wakeups", setup{aio.HandlerGoroutine, aio.WakeAll, aio.IOSimulated}},
		{"targeted wakes only the segment with work", setup{aio.HandlerGoroutine, aio.WakeTargeted, aio.IOSimulated}},
		{"native wakes no handler: the kernel does", setup{aio.HandlerGoroutine, aio.WakeTargeted, aio.IONative}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := insert(context.Background(), o, f, tt.setup, 4)
			if errors.Is(err, aio.ErrNativeUnavailable) {
				t.Skipf("native AIO unavailable here: %v", err)
			}
			require.NoError(t, err)
			require.Positive(t, r.rowsPerSec)
			st := r.stats
			require.Positive(t, st.Submitted)
			require.Equal(t, st.Submitted, st.Completed, "every split's I/O completed")
			switch {
			case tt.setup.io == aio.IONative:
				require.Zero(t, st.WastedWakeups, "the kernel wakes a handler only for its own ring's completions")
				require.NotZero(t, st.RingSyscalls)
				require.Zero(t, st.FutexSyscalls)
			case tt.setup.policy == aio.WakeAll:
				require.Equal(t, 10*st.Submitted, st.Signals, "4+4 handlers plus ibuf and log: 10 per request")
			default:
				require.Equal(t, st.Submitted, st.Signals)
			}
		})
	}
}

func TestRunPrintsEveryConfiguration(t *testing.T) {
	require.NoError(t, run(context.Background(), options{clients: 1, duration: 10 * time.Millisecond, pages: 128, dir: t.TempDir()}))
	require.Error(t, run(context.Background(), options{clients: 0, duration: time.Second, pages: 128}))
}

// TestInsertFillsALeafPerClientWhateverTheDeadline: a client whose goroutine
// first runs after the run's deadline still fills one leaf and splits it, so
// a run on a loaded machine never reports 0 rows/s (it once did, under the
// race detector with both cores busy). A 1 ns run puts every client there.
func TestInsertFillsALeafPerClientWhateverTheDeadline(t *testing.T) {
	o := options{clients: 3, duration: time.Nanosecond, pages: 64, dir: t.TempDir()}
	f, err := os.CreateTemp(o.dir, "ibdata")
	require.NoError(t, err)
	defer f.Close()
	require.NoError(t, f.Truncate(o.pages*pageSize))
	r, err := insert(context.Background(), o, f, setup{aio.HandlerGoroutine, aio.WakeTargeted, aio.IOSimulated}, 2)
	require.NoError(t, err)
	require.Positive(t, r.rowsPerSec)
	require.GreaterOrEqual(t, r.stats.Submitted, uint64(2*o.clients), "each client's split: a write and at least one sibling read")
	require.Equal(t, r.stats.Submitted, r.stats.Completed)
}

// A bad flag is refused naming that flag and its range; the one message for
// all three ("want -clients ≥ 1, -duration > 0 and -pages ≥ 64") did not say
// which, and a -pages past the int64 range of bytes reached Truncate as a
// negative size ("invalid argument").
func TestMainRefusesAFlagOutOfRange(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"-clients", "0"}, "-clients 0, want 1..65536"},
		{[]string{"-duration", "0s"}, "-duration 0s, want > 0"},
		{[]string{"-pages", "63"}, "-pages 63, want 64..1073741824 (16 KiB each)"},
		{[]string{"-pages", "1000000000000000"}, "-pages 1000000000000000, want 64..1073741824 (16 KiB each)"},
	} {
		out, status := mainexec.Run(t, append([]string{"-duration", "1ms", "-pages", "64"}, tt.args...)...)
		assert.Equal(t, 1, status, out)
		assert.Contains(t, out, tt.want, tt.args)
	}
}

// A reader of the output that goes away (aiowake | head -1) used to kill the
// program with SIGPIPE at its next line, leaving its temporary directory and
// a data file of -pages × 16 KiB behind; so did Ctrl-C. It now stops between
// configurations and removes them.
func TestBrokenPipeRemovesTheTemporaryDirectory(t *testing.T) {
	tmp := t.TempDir()
	assert.Nil(t, mainexec.RunUnread(t, tmp, "-clients", "1", "-duration", "10ms", "-pages", "64"), "killed by a signal")
	left, err := filepath.Glob(filepath.Join(tmp, "aiowake*"))
	require.NoError(t, err)
	assert.Empty(t, left, "the temporary directory is removed")
}
