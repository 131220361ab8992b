//go:build unix

package mycnf

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A named pipe is refused by name, as the top file and inside an !includedir,
// without the open that would block until a writer came: reading one used to
// hang run --cnf forever.
func TestParseFileRefusesANamedPipe(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, "d"), 0o755))
	fifo := filepath.Join(dir, "d", "p.cnf")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	top := filepath.Join(dir, "my.cnf")
	require.NoError(t, os.WriteFile(top, []byte("[mysqld]\n!includedir d\n"), 0o644))

	for _, tt := range []struct{ name, path, want string }{
		{"inside an includedir", top, fifo + ": not a regular file (a named pipe)"},
		{"as the top file", fifo, fifo + ": not a regular file (a named pipe)"},
		{"a directory", dir, dir + ": not a regular file (a directory)"},
		{"a character device", "/dev/null", "/dev/null: not a regular file (a character device)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() { _, err := ParseFile(tt.path); done <- err }()
			select {
			case err := <-done:
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.want)
			case <-time.After(10 * time.Second):
				// unblock the reader so that the test binary can exit
				if w, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
					w.Close()
				}
				<-done
				t.Fatal("ParseFile blocked on a named pipe")
			}
		})
	}
}
