//go:build unix

package outfile

import (
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/innosim/innosim/internal/cmdflag"
)

// A character device is written in place and stays a device.
func TestADeviceIsWrittenInPlace(t *testing.T) {
	o, err := New("-csv", os.DevNull)
	require.NoError(t, err)
	assert.False(t, o.IsStdout())
	require.NoError(t, o.Write(func(f *os.File) error { _, err := f.WriteString("x\n"); return err }))
	fi, err := os.Stat(os.DevNull)
	require.NoError(t, err)
	assert.NotZero(t, fi.Mode()&os.ModeCharDevice)
}

// A named pipe is written once the output is complete; one with no reader
// is refused at once instead of waiting for one.
func TestANamedPipeIsWrittenAtCommitOrRefusedWithoutAReader(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	_, err := New("-json", fifo)
	require.Error(t, err)
	assert.True(t, cmdflag.IsUsage(err))
	assert.EqualError(t, err, "-json "+fifo+": a named pipe with no reader: start its reader first, or want a file path")

	r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	require.NoError(t, err)
	defer r.Close()
	o, err := New("-json", fifo)
	require.NoError(t, err)
	require.NoError(t, o.FillStream(writeString("{}\n")))
	// r is in the runtime's poller (opened O_NONBLOCK): a deadline ends
	// the read instead of a wait for a writer that has written nothing.
	require.NoError(t, r.SetReadDeadline(time.Now().Add(20*time.Millisecond)))
	buf := make([]byte, 16)
	n, err := r.Read(buf)
	assert.ErrorIs(t, err, os.ErrDeadlineExceeded)
	assert.Zero(t, n, "nothing before Commit")
	require.NoError(t, o.Commit())
	require.NoError(t, r.SetReadDeadline(time.Now().Add(10*time.Second)))
	b, err := io.ReadAll(r)
	require.NoError(t, err)
	assert.Equal(t, "{}\n", string(b), "and the pipe is closed after it")
}
