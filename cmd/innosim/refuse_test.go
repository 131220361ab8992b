package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/innosim/innosim/internal/cmdflag"
	"github.com/innosim/innosim/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Options that would change nothing, or be silently replaced, are refused
// with the flag named; each of these ran and printed a table before.
func TestRunRefusesOptionsThatWouldBeIgnored(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"a thread count given twice", []string{"--workload", "connect", "--threads", "1,4,1"},
			`-threads: 1 given twice (positions 1 and 3)`},
		{"a core count given twice", []string{"--workload", "connect", "--cpus", "2,2"},
			`-cpus: 2 given twice (positions 1 and 2)`},
		{"a device key given twice", []string{"--workload", "oltp_insert", "--device", "units=1,units=2"},
			`key "units" given twice`},
		{"costs with the default profile named", []string{"--workload", "connect", "--costs", "testdata/some.profile", "--profile", "old-kernel"},
			"-costs and -profile both given"},
		{"a gate core without a gate", []string{"--workload", "oltp_point_select", "--gate", "atomic"},
			"-gate atomic with innodb_thread_concurrency = 0 in every row"},
		{"gate cores varied without a gate", []string{"--workload", "oltp_point_select", "--vary", "gate=queue,atomic"},
			"-vary gate with innodb_thread_concurrency = 0 in every row"},
		{"a key the workload does not read", []string{"--workload", "connect", "--vary", "innodb_read_io_threads=1,2"},
			`-vary innodb_read_io_threads: values "1" and "2" build the same cell for workload connect`},
		// the cells differed only in a setting the workload never reads,
		// and the table printed their seeds' noise as its effect
		{"the redo log's flush for a workload that never commits through it", []string{"--workload", "oltp_point_select", "--vary", "innodb_flush_log_at_trx_commit=0,1,2"},
			`-vary innodb_flush_log_at_trx_commit: values "0" and "1" build the same cell for workload oltp_point_select (it does not read innodb_flush_log_at_trx_commit)`},
		{"the buffer pool for a workload that never looks in it", []string{"--workload", "oltp_point_select", "--vary", "innodb_buffer_pool_size=1G,128M"},
			`-vary innodb_buffer_pool_size: values "1G" and "128M" build the same cell for workload oltp_point_select (it does not read innodb_buffer_pool_size)`},
		{"the buffer pool for connect", []string{"--workload", "connect", "--vary", "innodb_buffer_pool_size=1G,128M"},
			`values "1G" and "128M" build the same cell for workload connect`},
		// the workload reads both keys, and the refusal said it did not
		{"two spellings of one value", []string{"--workload", "oltp_insert", "--vary", "innodb_use_native_aio=ON,1"},
			`-vary innodb_use_native_aio: values "ON" and "1" build the same cell: they are one value of innodb_use_native_aio (ON): want each value once`},
		{"two paths of one cost profile", []string{"--workload", "oltp_point_select", "--vary", "profile=../../docs/live/v1045.profile,../../docs/live/../live/v1045.profile"},
			`-vary profile: values "../../docs/live/v1045.profile" and "../../docs/live/../live/v1045.profile" build the same cell: they name the same cost profile`},
		// the I/O table printed 0/0/0, the throughput only changed by the seed
		{"a device for a workload that never waits for one", []string{"--workload", "oltp_read_only", "--device", "units=1"},
			"-device with workload oltp_read_only, which never waits for a device"},
		{"a device where no row's commit fsyncs", []string{"--workload", "oltp_read_write", "--device", "units=1", "--vary", "innodb_flush_log_at_trx_commit=0,2"},
			"-device with workload oltp_read_write, which never waits for a device in any row"},
		// the I/O table read fsyncs/s 0, and the key changed nothing
		{"a device's fsync time for a workload that never fsyncs", []string{"--workload", "oltp_insert", "--device", "units=1,fsync=1ms"},
			"-device fsync=1ms with workload oltp_insert, which never fsyncs (it only reads): want no fsync key in -device"},
		{"a device's read time for a workload that only fsyncs", []string{"--workload", "oltp_read_write", "--device", "units=1,read=1ms,fsync=1ms"},
			"-device read=1ms with workload oltp_read_write, which never reads (it only fsyncs)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCmd(append([]string{"run", "--measure", "1ms"}, tt.args...)...)
			assert.Equal(t, 2, code, stderr)
			assert.Contains(t, stderr, tt.want)
			assert.Empty(t, stdout)
		})
	}
}

// The workloads that read the redo log's flush setting (a commit through the
// log) and the buffer pool's size (a sibling prefetch, the page cleaner's
// frames) still vary them.
func TestRunVariesTheLogAndThePoolWhereTheWorkloadReadsThem(t *testing.T) {
	for _, args := range [][]string{
		{"--workload", "oltp_read_write", "--vary", "innodb_flush_log_at_trx_commit=0,2"},
		{"--workload", "bulk_insert", "--vary", "innodb_buffer_pool_size=5M,1G"},
		{"--workload", "oltp_insert_auto_inc", "--vary", "innodb_buffer_pool_size=16M,1G"},
	} {
		code, _, stderr := runCmd(append([]string{"run", "--threads", "1", "--cpus", "2", "--measure", "1ms"}, args...)...)
		assert.Equal(t, 0, code, "%v: %s", args, stderr)
	}
}

// A gate core chosen for the rows that have a gate is used, even when other
// rows have none.
func TestRunAcceptsAGateCoreThatSomeRowUses(t *testing.T) {
	code, _, stderr := runCmd("run", "--workload", "oltp_point_select", "--threads", "1", "--cpus", "2",
		"--measure", "1ms", "--vary", "innodb_thread_concurrency=0,8", "--gate", "atomic")
	assert.Equal(t, 0, code, stderr)
}

// A run --csv file with one row cut short (or extended) is refused, naming the
// row: it used to be read as any other CSV, and its four series (two
// schedulers × two core counts) were fitted silently as one curve.
func TestFitRefusesARunCSVWithARaggedRow(t *testing.T) {
	rows := "sched,cpus,threads,throughput,unit\n"
	for _, sched := range []string{"cfs", "ts"} {
		for _, cpus := range []string{"2", "4"} {
			for i, n := range []string{"1", "2", "4", "8"} {
				rows += sched + "," + cpus + "," + n + "," + []string{"100", "190", "350", "500"}[i] + ",queries/s\n"
			}
		}
	}
	for _, tail := range []string{"junk\n", "ts,4,16,600,queries/s,extra\n"} {
		p := filepath.Join(t.TempDir(), "r.csv")
		require.NoError(t, os.WriteFile(p, []byte(rows+tail), 0o644))
		code, stdout, stderr := runCmd("fit", p)
		assert.Equal(t, 1, code, stdout)
		assert.Contains(t, stderr, "row 18 has ")
		assert.NotContains(t, stdout, "points")
	}
}

// validate a a ran group a once without a word (reproduce a a is refused),
// and one -table file given twice was simulated and reported twice.
func TestValidateRefusesAGroupOrTableGivenTwice(t *testing.T) {
	code, stdout, stderr := runCmd("validate", "c", "a", "c")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, `group "c" given twice`)
	assert.Empty(t, stdout)

	user := "testdata/validate_user.csv"
	code, stdout, stderr = runCmd("validate", "-table", user, "-table", user, "c")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "-table testdata/validate_user.csv given twice")
	assert.Empty(t, stdout)
}

// help run --threads printed run's help and exit 0, the rest ignored.
func TestHelpRefusesMoreThanOneCommand(t *testing.T) {
	code, stdout, stderr := runCmd("help", "run", "--threads")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, `want one command, got "run --threads"`)
	assert.Empty(t, stdout)
}

// run --threads 1 --plot F panicked in gonum/plot's log axis, after -csv and
// -json had been renamed into place: the run exited 2 and left two of its
// three outputs.
func TestRunPlotsASweepOfOneThreadCount(t *testing.T) {
	dir := t.TempDir()
	csv, js, png := filepath.Join(dir, "r.csv"), filepath.Join(dir, "r.json"), filepath.Join(dir, "r.png")
	code, _, stderr := runCmd("run", "--workload", "connect", "--threads", "1", "--cpus", "2", "--measure", "1ms",
		"--csv", csv, "--json", js, "--plot", png)
	require.Equal(t, 0, code, stderr)
	for _, p := range []string{csv, js, png} {
		assert.FileExists(t, p)
	}
}

// A CSV saved by a spreadsheet starts with a byte-order mark: its first
// header cell read "\ufeffthroughput", the header's names chose no columns,
// and fit took column 1 (throughput) as the concurrency without a word.
func TestFitReadsTheHeaderBehindAByteOrderMark(t *testing.T) {
	body := "throughput,concurrency\n100,1\n190,2\n350,4\n500,8\n"
	var outs []string
	for _, bom := range []string{"", "\ufeff"} {
		p := filepath.Join(t.TempDir(), "x.csv")
		require.NoError(t, os.WriteFile(p, []byte(bom+body), 0o644))
		code, stdout, stderr := runCmd("fit", p)
		require.Equal(t, 0, code, stderr)
		outs = append(outs, stdout)
	}
	assert.Equal(t, outs[0], outs[1])
	assert.Contains(t, outs[1], "lambda  97.9")
}

// MariaDB ignores innodb_thread_concurrency and its siblings from 10.5.5 and
// removed them in 10.6 (MDEV-23379), yet run --server mariadb-10.11 simulated
// the gate a my.cnf or -vary set. Both are refused; 10.5, a MariaDB of no
// version and MySQL still read the key.
func TestRunRefusesAdmissionKeysMariaDBRemoved(t *testing.T) {
	cnf := filepath.Join(t.TempDir(), "my.cnf")
	require.NoError(t, os.WriteFile(cnf, []byte("[mariadb]\ninnodb_thread_concurrency = 8\n[mysqld]\ninnodb_concurrency_tickets = 500\n"), 0o644))
	base := []string{"run", "--workload", "oltp_point_select", "--threads", "1", "--cpus", "2", "--measure", "1ms"}
	for _, srv := range []string{"mariadb-10.6", "mariadb-10.11.6", "mariadb-11.4"} {
		code, stdout, stderr := runCmd(append(base, "--server", srv, "--cnf", cnf)...)
		assert.Equal(t, 2, code, srv)
		assert.Contains(t, stderr, "my.cnf:2: innodb_thread_concurrency = 8: "+srv+" has no innodb_thread_concurrency", srv)
		assert.Empty(t, stdout, srv)
		code, _, stderr = runCmd(append(base, "--server", srv, "--vary", "innodb_concurrency_tickets=500,5000")...)
		assert.Equal(t, 2, code, srv)
		assert.Contains(t, stderr, "-vary innodb_concurrency_tickets: "+srv+" has no innodb_concurrency_tickets", srv)
	}
	for _, srv := range []string{"mariadb-10.5", "mariadb", "mariadb-10.4"} {
		code, _, stderr := runCmd(append(base, "--server", srv, "--cnf", cnf)...)
		assert.Equal(t, 0, code, "%s: %s", srv, stderr)
	}
}

// oltp_read_write under innodb_flush_log_at_trx_commit = 1 (MySQL's default)
// fsyncs the log at every commit and needs a device; without -device it was
// refused with the simulator's "want a device installed by SetDevice", a
// function a command-line user never calls. The refusal names -device, the
// setting and its other values, and the -vary row it concerns.
func TestRunRefusesACommitThatFsyncsWithoutADevice(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"the default setting", []string{"--workload", "oltp_read_write"},
			"workload oltp_read_write with innodb_flush_log_at_trx_commit = 1 fsyncs the log at every commit: want -device (e.g. -device units=1,fsync=200us), or innodb_flush_log_at_trx_commit = 0 or 2"},
		{"one varied row", []string{"--workload", "oltp_read_write", "--vary", "innodb_flush_log_at_trx_commit=0,1"},
			"-vary innodb_flush_log_at_trx_commit=1: workload oltp_read_write with innodb_flush_log_at_trx_commit = 1 fsyncs the log"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCmd(append([]string{"run", "--measure", "1ms", "--threads", "1", "--cpus", "2"}, tt.args...)...)
			assert.Equal(t, 2, code, stderr)
			assert.Contains(t, stderr, tt.want)
			assert.NotContains(t, stderr, "SetDevice")
			assert.Empty(t, stdout)
		})
	}
	code, _, stderr := runCmd("run", "--measure", "1ms", "--threads", "1", "--cpus", "2",
		"--workload", "oltp_read_write", "--vary", "innodb_flush_log_at_trx_commit=0,2")
	assert.Equal(t, 0, code, "no row fsyncs at commit: %s", stderr)
}

// A gate for a workload that never enters it is the flags' mistake, named
// by the flag or line that set it, before any cell: it was reported as
// "cell 8 of 14 (1 threads, 4 cpus): sim: Gate ...: invalid config", a
// failure of one cell with the wrappers' words.
func TestRunRefusesAGateForAWorkloadThatNeverEntersIt(t *testing.T) {
	cnf := filepath.Join(t.TempDir(), "my.cnf")
	require.NoError(t, os.WriteFile(cnf, []byte("[mysqld]\ninnodb_thread_concurrency = 8\n"), 0o644))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--vary", "innodb_thread_concurrency=0,8"}, "innosim run: -vary innodb_thread_concurrency=8 with workload connect, which never enters InnoDB's gate: want innodb_thread_concurrency = 0"},
		{[]string{"--cnf", cnf}, "innosim run: innodb_thread_concurrency = 8 at " + cnf + ":2 with workload connect, which never enters InnoDB's gate"},
	} {
		code, stdout, stderr := runCmd(append([]string{"run", "--workload", "connect", "--threads", "1,2", "--cpus", "4", "--measure", "1ms"}, tc.args...)...)
		assert.Equal(t, 2, code, stderr)
		assert.Empty(t, stdout)
		assert.True(t, strings.HasPrefix(stderr, tc.want), stderr)
		for _, noise := range []string{"cell ", "sim:", "invalid config"} {
			assert.NotContains(t, stderr, noise)
		}
	}
}

// The simulator's refusal of a cell is the command line's: a row's is
// named by its -vary value, without the simulator's prefix and sentinel
// text, and keeps the cause for errors.Is; a cell's own (its threads) names
// the flag and value that made it.
func TestRefusalNamesTheRowOrTheCell(t *testing.T) {
	o, err := parseRun([]string{"--workload", "connect", "--threads", "1,2", "--cpus", "2", "--measure", "1ms", "--vary", "sched=cfs,ts"}, io.Discard)
	require.NoError(t, err)
	sw, err := buildSweep(o, io.Discard, io.Discard)
	require.NoError(t, err)
	require.Len(t, sw.cells, 4)
	sw.cells[2].Measure, sw.cells[3].Measure = -time.Millisecond, -time.Millisecond
	_, err = sw.run(t.Context(), io.Discard)
	require.Error(t, err)
	var ue *cmdflag.UsageError
	require.ErrorAs(t, err, &ue)
	assert.True(t, strings.HasPrefix(err.Error(), "-vary sched=ts: -measure 1ms: "), err.Error())
	assert.NotContains(t, err.Error(), "sim:")
	assert.False(t, strings.HasSuffix(err.Error(), "invalid config"), err.Error())
	assert.ErrorIs(t, err, sim.ErrInvalidConfig, "the cause is kept")

	sw.cells[2].Measure, sw.cells[3].Measure = time.Millisecond, time.Millisecond
	sw.cells[1].Threads = 100000
	_, err = sw.run(t.Context(), io.Discard)
	assert.EqualError(t, err, "-vary sched=cfs: -threads 100000, want 1..10000", "the cell's threads")
}
