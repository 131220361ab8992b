//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every file a command reads is refused at once when it is not a regular
// file: a named pipe with no writer hung fit, profile, compare, validate
// -table, run --costs and validate -costs until SIGKILL (Ctrl-C and SIGTERM
// did nothing), and compare read 600 MB of /dev/zero in 9.9 s before
// refusing it.
func TestCommandsRefuseWhatIsNotARegularFile(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "p")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"fit", []string{"fit", fifo}, fifo + ": not a regular file (a named pipe)"},
		{"profile", []string{"profile", fifo}, fifo + ": not a regular file (a named pipe)"},
		{"compare", []string{"compare", fifo, fifo}, fifo + ": not a regular file (a named pipe)"},
		{"compare /dev/zero", []string{"compare", "/dev/zero", "/dev/zero"}, "/dev/zero: not a regular file (a character device)"},
		{"validate -table", []string{"validate", "-table", fifo, "tables"}, "-table: open " + fifo + ": not a regular file (a named pipe)"},
		{"validate -rotation", []string{"validate", "-table", "../../docs/live/v1045-heavy-load.csv", "-costs", "../../docs/live/v1045.profile", "-rotation", fifo, "tables"},
			"-rotation: open " + fifo + ": not a regular file (a named pipe)"},
		{"run --costs", []string{"run", "--workload", "connect", "--costs", fifo}, "-costs: open " + fifo + ": not a regular file (a named pipe)"},
		{"run --profile", []string{"run", "--workload", "connect", "--profile", fifo}, "-profile: open " + fifo + ": not a regular file (a named pipe)"},
		{"validate -costs", []string{"validate", "-costs", fifo, "-table", "../../docs/live/v1045-heavy-load.csv", "tables"}, "-costs: open " + fifo + ": not a regular file (a named pipe)"},
		{"run --cnf", []string{"run", "--workload", "connect", "--cnf", fifo}, fifo + ": not a regular file (a named pipe)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			type result struct {
				code           int
				stdout, stderr string
			}
			done := make(chan result, 1)
			go func() {
				code, stdout, stderr := runCmd(tc.args...)
				done <- result{code, stdout, stderr}
			}()
			select {
			case r := <-done:
				assert.Equal(t, 1, r.code, r.stderr)
				assert.Empty(t, r.stdout)
				assert.Contains(t, r.stderr, tc.want)
				assert.Equal(t, 1, strings.Count(r.stderr, "\n"), "one line: %s", r.stderr)
			case <-time.After(20 * time.Second):
				if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
					w.Close() // unblock the reader so that the test can end
				}
				<-done
				t.Fatal("blocked on a named pipe")
			}
		})
	}
}
