package innosim_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Under go test -cpuprofile the futex-share metric cannot be measured, and the
// run says so once: it used to log the same line for every benchmark, a
// hundred for the whole suite.
func TestCPUProfileRunSaysFutexShareIsMissingOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the benchmarks of this package in a child process")
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run", "^$", "-test.bench", "^BenchmarkMutexHandoff$", "-test.benchtime", "1x",
		"-test.cpuprofile", filepath.Join(dir, "cpu.pprof"), "-test.outputdir", dir)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Contains(t, string(out), "BenchmarkMutexHandoff/goroutines=16")
	require.Equal(t, 1, strings.Count(string(out), "futex-share not reported"), "%s", out)
}
