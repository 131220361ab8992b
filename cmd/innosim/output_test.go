package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// run --csv - wrote a file named "-"; every output but a chart takes "-" for
// standard output, as --json does, and the text tables then go nowhere.
func TestRunCSVDashIsStandardOutput(t *testing.T) {
	t.Chdir(t.TempDir())
	code, stdout, stderr := runCmd("run", "--workload", "connect", "--threads", "1", "--cpus", "2", "--measure", "1ms", "--csv", "-")
	require.Equal(t, 0, code, stderr)
	assert.True(t, strings.HasPrefix(stdout, "sched,") || strings.Contains(strings.SplitN(stdout, "\n", 2)[0], ","), stdout)
	assert.NotContains(t, stdout, "throughput by", "no text table with the CSV")
	_, err := os.Stat("-")
	assert.True(t, os.IsNotExist(err), "no file named -")

	code, stdout, stderr = runCmd("run", "--workload", "connect", "--threads", "1", "--cpus", "2", "--measure", "1ms", "--csv", "-", "--json", "-")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "-csv - and -json - both name standard output")
	assert.Empty(t, stdout)
}

// run --cnf my.cnf --csv my.cnf (or a link to it) replaced the option file
// with the results; an output that is an input is refused before any work.
func TestRunRefusesAnOutputThatIsAnInput(t *testing.T) {
	dir := t.TempDir()
	cnf := filepath.Join(dir, "my.cnf")
	require.NoError(t, os.WriteFile(cnf, []byte("[mysqld]\ninnodb_thread_concurrency=0\n"), 0o644))
	link := filepath.Join(dir, "link.csv")
	require.NoError(t, os.Symlink(cnf, link))
	for _, out := range []string{cnf, link} {
		code, stdout, stderr := runCmd("run", "--workload", "connect", "--threads", "1", "--cpus", "2", "--measure", "1ms", "--cnf", cnf, "--csv", out)
		assert.Equal(t, 2, code, stderr)
		assert.Contains(t, stderr, "is the file of -cnf "+cnf)
		assert.Empty(t, stdout)
	}
	b, err := os.ReadFile(cnf)
	require.NoError(t, err)
	assert.Equal(t, "[mysqld]\ninnodb_thread_concurrency=0\n", string(b))
}

// run --csv LINK replaced the link with a regular file; it writes the
// link's target, as the shell's > does.
func TestRunCSVWritesThroughASymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target.csv")
	require.NoError(t, os.WriteFile(target, nil, 0o644))
	link := filepath.Join(dir, "link.csv")
	require.NoError(t, os.Symlink("target.csv", link))
	code, _, stderr := runCmd("run", "--workload", "connect", "--threads", "1", "--cpus", "2", "--measure", "1ms", "--csv", link)
	require.Equal(t, 0, code, stderr)
	fi, err := os.Lstat(link)
	require.NoError(t, err)
	assert.Equal(t, os.ModeSymlink, fi.Mode().Type())
	b, err := os.ReadFile(target)
	require.NoError(t, err)
	assert.Contains(t, string(b), "throughput")
}

// A max_connections in the option file below the sweep's client threads was
// silently ignored: the cells past it ran and printed figures for a server
// that refuses those connections.
func TestRunRefusesThreadsPastMaxConnections(t *testing.T) {
	cnf := filepath.Join(t.TempDir(), "my.cnf")
	require.NoError(t, os.WriteFile(cnf, []byte("[mysqld]\nmax_connections = 8\n"), 0o644))
	code, stdout, stderr := runCmd("run", "--workload", "connect", "--threads", "1,16", "--cpus", "2", "--measure", "1ms", "--cnf", cnf)
	assert.Equal(t, 2, code, stderr)
	assert.Contains(t, stderr, "-threads 16 with "+cnf+":2: max_connections = 8: the server refuses every connection past 8")
	assert.Empty(t, stdout)

	code, _, stderr = runCmd("run", "--workload", "connect", "--threads", "1,8", "--cpus", "2", "--measure", "1ms", "--cnf", cnf)
	assert.Equal(t, 0, code, stderr)
}

// A file name's control characters reached the terminal raw in errors: a
// name could clear the screen or set the window title. They are escaped,
// and an output's path is quoted as strconv.Quote quotes it.
func TestControlCharactersInPathsAreNotPrinted(t *testing.T) {
	dir := t.TempDir()
	evil := filepath.Join(dir, "\x1b]0;owned\a", "r.csv") // its directory does not exist
	code, _, stderr := runCmd("run", "--workload", "connect", "--threads", "1", "--cpus", "2", "--measure", "1ms", "--csv", evil)
	assert.Equal(t, 1, code, stderr)
	assert.NotContains(t, stderr, "\x1b")
	assert.NotContains(t, stderr, "\a")
	assert.Contains(t, stderr, `\x1b]0;owned\a`)

	require.NoError(t, os.Mkdir(filepath.Join(dir, "\x1b[2J"), 0o755))
	code, _, stderr = runCmd("run", "--workload", "connect", "--threads", "1", "--cpus", "2", "--measure", "1ms", "--csv", filepath.Join(dir, "\x1b[2J"))
	assert.Equal(t, 2, code, stderr)
	assert.Contains(t, stderr, `-csv "`+dir+`/\x1b[2J": a directory`)

	code, _, stderr = runCmd("fit", filepath.Join(dir, "\x1b[2J.csv"))
	assert.Equal(t, 1, code, stderr)
	assert.NotContains(t, stderr, "\x1b")
}

// compare OLD NEW --json OLD replaced a benchmark file with the comparison;
// every command refuses an output that is one of its inputs.
func TestCommandsRefuseAnOutputThatIsAnInput(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, "old.txt")
	require.NoError(t, os.WriteFile(old, []byte("BenchmarkX 1 10 ns/op\n"), 0o644))
	csv := filepath.Join(dir, "r.csv")
	require.NoError(t, os.WriteFile(csv, []byte("concurrency,throughput\n1,100\n2,190\n4,350\n"), 0o644))
	pprof := filepath.Join(dir, "cpu.pprof")
	require.NoError(t, os.WriteFile(pprof, []byte("x"), 0o644))
	for _, args := range [][]string{
		{"compare", old, old, "--json", old},
		{"fit", csv, "--json", csv},
		{"profile", pprof, "--json", pprof},
		{"validate", "tables", "--table", csv, "--json", csv},
	} {
		code, _, stderr := runCmd(args...)
		assert.Equal(t, 2, code, "%v: %s", args, stderr)
		assert.Contains(t, stderr, "the output would replace its input", "%v", args)
	}
	b, err := os.ReadFile(old)
	require.NoError(t, err)
	assert.Equal(t, "BenchmarkX 1 10 ns/op\n", string(b))
}
