package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The CSV that run --csv writes fits as it is: one USL fit per combination of
// the varied settings. It used to fail with "row 2: ... are not numbers",
// reading the first two columns (the varied key and cpus) as N and X.
func TestFitReadsTheCSVThatRunWrites(t *testing.T) {
	csvPath := filepath.Join(t.TempDir(), "r.csv")
	code, _, stderr := runCmd("run", "--workload", "oltp_read_only", "--threads", "1,2,4,8,16", "--cpus", "4",
		"--vary", "innodb_thread_concurrency=0,4", "--measure", "10ms", "--csv", csvPath)
	require.Equal(t, 0, code, stderr)

	code, out, stderr := runCmd("fit", csvPath)
	require.Equal(t, 0, code, stderr)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 3, "a header and one line per series:\n%s", out)
	require.Contains(t, lines[0], "sigma")
	require.Contains(t, lines[1], "innodb_thread_concurrency=0 cpus=4")
	require.Contains(t, lines[2], "innodb_thread_concurrency=4 cpus=4")
	for _, l := range lines[1:] {
		require.Contains(t, l, " 5 ", "five thread counts per series")
		require.NotContains(t, l, "cannot fit")
	}
}

// -n and -x still choose the columns of any other CSV.
func TestFitWithExplicitColumns(t *testing.T) {
	p := filepath.Join(t.TempDir(), "p.csv")
	rows := "label,n,x\n"
	for _, r := range []string{"a,1,100", "a,2,190", "a,4,340", "a,8,520", "a,16,600", "a,32,560"} {
		rows += r + "\n"
	}
	require.NoError(t, os.WriteFile(p, []byte(rows), 0o644))
	code, out, stderr := runCmd("fit", "-n", "2", "-x", "3", p)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, "points  6")
}
