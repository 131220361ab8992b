//go:build unix

package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// What a new user hit: an output aimed at the -machine sheet replaced it;
// a named pipe as -machine waited for a writer; a path that cannot be read
// was a usage error (2), not a file error (1) as -cnf's; a control
// character in the path reached the terminal; and -client-cpus quarter
// on a 2-CPU box silently gave the client no core.
func TestMachineFileIsAnInput(t *testing.T) {
	base := []string{"run", "--workload", "oltp_point_select", "--threads", "4", "--measure", "5ms", "--warmup", "5ms"}
	dir := t.TempDir()
	sheet, err := os.ReadFile(pitbull)
	require.NoError(t, err)
	own := filepath.Join(dir, "p.machine")
	require.NoError(t, os.WriteFile(own, sheet, 0o600))
	for _, out := range []string{"--csv", "--json"} {
		code, _, errOut := runCmd(append(base, "--machine", own, out, own)...)
		assert.Equal(t, 2, code, errOut)
		assert.Contains(t, errOut, "is the file of -machine "+own)
		got, err := os.ReadFile(own)
		require.NoError(t, err)
		assert.Equal(t, sheet, got, "the sheet was replaced by "+out)
	}

	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	code, _, errOut := runCmd(append(base, "--machine", fifo)...)
	assert.Equal(t, 1, code, errOut)
	assert.Contains(t, errOut, "not a regular file (a named pipe)")
	code, _, errOut = runCmd(append(base, "--machine", filepath.Join(dir, "none.machine"))...)
	assert.Equal(t, 1, code, errOut)

	odd := filepath.Join(dir, "odd\x1b[31m.machine")
	require.NoError(t, os.WriteFile(odd, sheet, 0o600))
	code, out, errOut := runCmd(append(base, "--machine", odd)...)
	require.Equal(t, 0, code, errOut)
	assert.NotContains(t, out, "\x1b")
	assert.Contains(t, out, `odd\x1b[31m.machine`)

	code, _, errOut = runCmd(append(base, "--machine", "../../sim/spec/machines/innosim-dev-2vcpu.machine", "--client", "cpu=5us", "--client-cpus", "quarter")...)
	assert.Equal(t, 2, code, errOut)
	assert.Contains(t, errOut, "a quarter of its 2 CPUs is no core")
}
