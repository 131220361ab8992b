package infile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// A named pipe with no writer, a directory and a device are refused at once,
// each named with its type: fit, compare, profile, validate -table and run
// --costs hung on a named pipe until SIGKILL, and compare read 600 MB of
// /dev/zero before refusing it.
func TestOpenRefusesWhatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	cases := []struct{ path, kind string }{{dir, "a directory"}}
	if fifo := mkfifo(t, filepath.Join(dir, "fifo")); fifo != "" {
		cases = append(cases, struct{ path, kind string }{fifo, "a named pipe"}, struct{ path, kind string }{"/dev/zero", "a character device"})
	}
	for _, c := range cases {
		t.Run(c.kind, func(t *testing.T) {
			done := make(chan error, 1)
			go func() {
				_, err := ReadAll(c.path, 1<<20)
				done <- err
			}()
			select {
			case err := <-done:
				require.ErrorIs(t, err, ErrNotRegular)
				assert.EqualError(t, err, "open "+c.path+": not a regular file ("+c.kind+")")
				var pe *fs.PathError
				assert.ErrorAs(t, err, &pe)
			case <-time.After(10 * time.Second):
				t.Fatal("blocked") // the goroutine is left behind: goleak says so too
			}
		})
	}
}

// A read of a descriptor with no data to give returns ErrWouldBlock instead
// of waiting: /proc/kmsg, which stat calls regular, can be polled, so that
// Go's poller parked a read of it until the kernel's next message.
func TestReadNeverWaitsForData(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no O_NONBLOCK")
	}
	r, w, err := os.Pipe() // a pollable descriptor with no data, as /proc/kmsg
	require.NoError(t, err)
	defer w.Close()
	defer r.Close()
	done := make(chan error, 1)
	go func() {
		_, err := readNow(r, make([]byte, 8))
		done <- err
	}()
	select {
	case err := <-done:
		assert.ErrorIs(t, err, ErrWouldBlock)
	case <-time.After(10 * time.Second):
		w.Write([]byte("x")) // let the read return
		<-done
		t.Fatal("the read waited for data")
	}
}

// A regular file is read whole within the bound; a larger one is refused
// from its size before it is read.
func TestReadAllBoundsWhatItReads(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.csv")
	require.NoError(t, os.WriteFile(path, []byte("1,2\n3,4\n"), 0o644))
	data, err := ReadAll(path, 8)
	require.NoError(t, err)
	assert.Equal(t, "1,2\n3,4\n", string(data))

	_, err = ReadAll(path, 7)
	require.ErrorIs(t, err, ErrTooLarge)
	assert.EqualError(t, err, "read "+path+": file too large: larger than 7 bytes")

	missing := filepath.Join(t.TempDir(), "missing")
	_, err = ReadAll(missing, 8)
	assert.True(t, errors.Is(err, fs.ErrNotExist), "%v", err)
	assert.EqualError(t, err, "open "+missing+": no such file or directory", "as os.Open says it")
}

// A file whose size stat does not give (those of /proc) is bounded as it is
// read.
func TestReadAllBoundsAFileOfNoSize(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc")
	}
	f, err := Open("/proc/self/status")
	require.NoError(t, err)
	defer f.Close()
	assert.Zero(t, f.Size())
	_, err = f.ReadAll(16)
	assert.ErrorIs(t, err, ErrTooLarge)
}
