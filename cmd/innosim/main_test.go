package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func runCmd(args ...string) (code int, stdout, stderr string) {
	return runCmdContext(context.Background(), args...)
}

// runCmdContext runs the command under ctx (validate.Quick's, for a quick
// run).
func runCmdContext(ctx context.Context, args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = run(ctx, args, &o, &e)
	return code, o.String(), e.String()
}

// fullSize reports whether INNOSIM_FULL=1 asks for the full-size runs: the
// goldens of the whole reproduce and validate (minutes of CPU) instead of
// their quick runs (validate.Quick). .ci/run sets it.
func fullSize() bool { return os.Getenv("INNOSIM_FULL") == "1" }

func TestCommandLineErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no command", nil, 2, "usage: innosim COMMAND"},
		{"unknown command", []string{"frobnicate"}, 2, `unknown command "frobnicate"`},
		{"run without a workload", []string{"run"}, 2, "-workload is required"},
		{"run with an unknown workload", []string{"run", "--workload", "tpcc"}, 2, `-workload "tpcc"`},
		{"run with a bad thread list", []string{"run", "--workload", "connect", "--threads", "1,x"}, 2, `invalid value "1,x" for flag -threads`},
		{"run with a bad vary", []string{"run", "--workload", "connect", "--vary", "nokey"}, 2, `-vary "nokey": want key=v1,v2`},
		// an empty -vary ran as if absent, and an empty value as a bare key
		// (innodb_use_native_aio=OFF, ran OFF and ON)
		{"run with an empty vary", []string{"run", "--workload", "connect", "--vary", ""}, 2, `-vary "": want key=v1,v2, or no -vary`},
		{"run varying to an empty value", []string{"run", "--workload", "oltp_insert", "--vary", "innodb_use_native_aio=OFF,"}, 2,
			"-vary innodb_use_native_aio: value 2 of 2 is empty: want key=v1,v2 with no empty value"},
		{"run varying an unknown key", []string{"run", "--workload", "connect", "--vary", "innodb_bogus=1,2"}, 2, "-vary innodb_bogus=1"},
		// named -aio and -sched, which the user did not give
		{"run varying aio to an unknown mode", []string{"run", "--workload", "oltp_insert", "--vary", "aio=simulated,kernel"}, 2, "-vary aio=kernel: want simulated or native"},
		// said -threads and -vary threads were both given, then refused -vary threads alone
		{"run varying threads", []string{"run", "--workload", "connect", "--threads", "1", "--vary", "threads=1,2"}, 2, "-vary threads: threads are swept by -threads itself (a list: -threads 1,2), not by -vary"},
		{"run varying cpus", []string{"run", "--workload", "connect", "--vary", "cpus=1,2"}, 2, "-vary cpus: cpus are swept by -cpus itself (a list: -cpus 1,2), not by -vary"},
		{"run varying sched to an unknown scheduler", []string{"run", "--workload", "connect", "--vary", "sched=cfs,bsd"}, 2, "-vary sched=bsd: want cfs, ts or eevdf"},
		{"run native aio with wake-all", []string{"run", "--workload", "oltp_insert", "--vary", "aio=native", "--wake", "all"}, 2, "Wake = all with IO = native"},
		{"run with a bad scheduler", []string{"run", "--workload", "connect", "--sched", "bsd"}, 2, `-sched "bsd"`},
		{"run with a missing cnf", []string{"run", "--workload", "connect", "--cnf", "/nonexistent.cnf"}, 1, "-cnf"},
		{"reproduce an unknown study", []string{"reproduce", "e"}, 2, `study "e"`},
		{"fit without a file", []string{"fit"}, 2, "want one FILE.csv"},
		{"compare with one file", []string{"compare", "old.txt"}, 2, "want two files, got 1"},
		{"compare a missing file", []string{"compare", "/nonexistent/old.txt", "/nonexistent/new.txt"}, 1, "/nonexistent/old.txt"},
		{"profile without a file", []string{"profile"}, 2, "usage: innosim profile"},
		{"profile a missing file", []string{"profile", "/nonexistent.pprof"}, 1, "/nonexistent.pprof"},
		{"calibrate with a stray argument", []string{"calibrate", "now"}, 2, `unexpected argument "now"`},
		{"calibrate with bad repeats", []string{"calibrate", "-repeats", "0x"}, 2, "invalid value"},
		{"run with costs and profile", []string{"run", "--workload", "connect", "--costs", "x", "--profile", "new-kernel"}, 2, "-costs and -profile both given"},
		{"run with a missing costs file", []string{"run", "--workload", "connect", "--costs", "/nonexistent.profile"}, 1, "-costs"},
		{"run varying a key to a bad value", []string{"run", "--workload", "connect", "--vary", "innodb_thread_concurrency=8,2000"}, 2, "option-file key innodb_thread_concurrency: mycnf: innodb_thread_concurrency"},
		{"run with a value varied twice", []string{"run", "--workload", "connect", "--vary", "sched=cfs,ts,ts"}, 2, `-vary sched: value "ts" given twice (positions 2 and 3)`},
		{"reproduce with a costs file", []string{"reproduce", "--costs", "/nonexistent.profile", "c"}, 2, "-costs: a study runs on its own machine"},
		// validate ignored a missing -costs file unless a -table was given,
		// and a -costs that no live table uses.
		{"validate with a missing costs file", []string{"validate", "--costs", "/nonexistent.profile", "b"}, 1, "-costs: "},
		{"validate with costs but no live table", []string{"validate", "--costs", "testdata/some.profile", "b"}, 2, "no -table is one"},
		{"validate with a rotation but no costs", []string{"validate", "--rotation", "r.csv", "b"}, 2, "-rotation sets live tables' footprints on the machine's profile: want -costs and a -table of innosim live --csv"},
		{"validate with an empty rotation path", []string{"validate", "--rotation", "", "b"}, 2, `-rotation "": want the path of a rotation probe's CSV`},
		{"validate with a missing rotation file", []string{"validate", "--table", "../../docs/live/v1045-heavy-load.csv", "--costs", "../../docs/live/v1045.profile", "--rotation", "/nonexistent.csv", "b"}, 1, "-rotation: open /nonexistent.csv"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runCmd(tt.args...)
			assert.Equal(t, tt.code, code)
			assert.Contains(t, stderr, tt.want)
		})
	}
}

// --vary aio runs one row per AIO mode, each from innodb_use_native_aio.
func TestRunVariesAIOMode(t *testing.T) {
	code, stdout, stderr := runCmd("run", "--workload", "oltp_insert", "--threads", "8", "--cpus", "8",
		"--vary", "aio=simulated,native", "--measure", "5ms", "--show-settings")
	require.Equal(t, 0, code, stderr)
	assert.Regexp(t, `innodb_use_native_aio\s+ON\s+default, varied by -vary`, stdout)
	assert.Regexp(t, `(?m)^simulated\s+8\s+\d+`, stdout)
	assert.Regexp(t, `(?m)^native\s+8\s+\d+`, stdout)
}

func TestFitCodahale(t *testing.T) {
	code, out, stderr := runCmd("fit", "../../internal/usl/testdata/codahale.csv")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "sigma   0.0267")
	assert.Contains(t, out, "kappa   0.00076")
	assert.Contains(t, out, "lambda  995.")
}

func TestRunWritesTableCSVAndChart(t *testing.T) {
	dir := t.TempDir()
	csvPath, svgPath := filepath.Join(dir, "r.csv"), filepath.Join(dir, "r.svg")
	code, out, stderr := runCmd("run", "--workload", "slap_select", "--threads", "1,8", "--cpus", "4",
		"--vary", "innodb_thread_concurrency=0,4", "--measure", "10ms", "--csv", csvPath, "--plot", svgPath)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "innodb_thread_concurrency  cpus")
	b, err := os.ReadFile(csvPath)
	require.NoError(t, err)
	assert.Equal(t, 5, strings.Count(string(b), "\n"), "header and 2 settings × 2 thread counts")
	svg, err := os.ReadFile(svgPath)
	require.NoError(t, err)
	assert.Contains(t, string(svg), "<svg")
}

// Study C with --charts into a directory that is not there yet (its parent
// is): the directory is made and holds the study's chart and nothing else.
func TestReproduceStudyC(t *testing.T) {
	charts := filepath.Join(t.TempDir(), "charts")
	code, out, stderr := runCmd("reproduce", "--charts", charts, "c")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "Study C: connections/s")
	assert.True(t, strings.HasSuffix(out, "study C: PASS\n"), "ends with the verdict line")
	entries, err := os.ReadDir(charts)
	require.NoError(t, err)
	require.Len(t, entries, 1, "the chart, no temporary file")
	assert.Equal(t, "study_c.svg", entries[0].Name())
	svg, err := os.ReadFile(filepath.Join(charts, "study_c.svg"))
	require.NoError(t, err)
	assert.Contains(t, string(svg), "<svg")
	info, err := os.Stat(filepath.Join(charts, "study_c.svg"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o644), info.Mode().Perm(), "as -plot's chart")
}

func TestHelpOfDelegatedCommandsExitsZero(t *testing.T) {
	for _, name := range []string{"compare", "profile", "calibrate"} {
		t.Run(name, func(t *testing.T) {
			code, _, stderr := runCmd(name, "-h")
			assert.Equal(t, 0, code, stderr)
			assert.Contains(t, stderr, "usage: innosim "+name)
		})
	}
}

// A profile file (as innosim calibrate --out writes) drives run --costs, and
// changes the result against the default profile.
func TestRunWithCostsFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "slow.profile")
	require.NoError(t, os.WriteFile(path, []byte("name = slow\nsyscall = 5us\ncontext_switch = 20us\n"), 0o644))
	args := []string{"run", "--workload", "connect", "--threads", "8", "--cpus", "4", "--measure", "10ms"}
	code, def, stderr := runCmd(args...)
	require.Equal(t, 0, code, stderr)
	code, slow, stderr := runCmd(append(args, "--costs", path)...)
	require.Equal(t, 0, code, stderr)
	assert.NotEqual(t, def, slow)
}

func TestCompareSameFileIsNoRegression(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.txt")
	var b strings.Builder
	b.WriteString("goos: linux\nkernel: 6.1\n")
	for i := range 6 {
		b.WriteString("BenchmarkX-2 \t 1000 \t " + []string{"100", "101", "99", "100", "102", "98"}[i] + " ns/op\n")
	}
	require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))
	code, out, stderr := runCmd("compare", "-fail", path, path)
	require.Equal(t, 0, code, stderr)
	assert.NotContains(t, out, "environments differ")
}

// run says which options of a my.cnf do nothing, reads the groups of the
// server it models, and can print what it actually used. A misspelt key and a
// [mariadb] group used to run the defaults without a word.
func TestRunWarnsAboutOptionsThatDoNothing(t *testing.T) {
	cnf := filepath.Join(t.TempDir(), "my.cnf")
	require.NoError(t, os.WriteFile(cnf, []byte("[mysqld]\ninnodb_thred_concurrency=8\ndatadir=/var/lib/mysql\n"+
		"[mariadb]\ninnodb_read_io_threads=2\n"), 0o644))
	args := []string{"run", "--workload", "connect", "--threads", "1", "--cpus", "2", "--measure", "10ms", "--cnf", cnf}

	code, out, stderr := runCmd(args...)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "warning: "+cnf+":2: [mysqld] innodb_thred_concurrency: not an option innosim models; it has no effect (did you mean innodb_thread_concurrency?)")
	assert.Contains(t, stderr, "warning: "+cnf+":5: [mariadb] innodb_read_io_threads: mysql does not read group [mariadb]")
	assert.Contains(t, stderr, cnf+": 1 options innosim does not model have no effect (datadir)")
	assert.NotContains(t, out, "settings (server")

	code, out, stderr = runCmd(append(args, "--server", "mariadb-10.5", "--show-settings")...)
	require.Equal(t, 0, code, stderr)
	assert.NotContains(t, stderr, "[mariadb] innodb_read_io_threads")
	assert.Contains(t, stderr, cnf+":3: [mysqld] datadir: not an option innosim models", "-show-settings lists every option")
	assert.Regexp(t, `settings \(server mariadb-10.5\):\n`, out)
	assert.Regexp(t, `innodb_read_io_threads +2 +`+regexp.QuoteMeta(cnf)+`:5\n`, out)
	assert.Regexp(t, `innodb_thread_concurrency +0 +default\n`, out)
	assert.Regexp(t, `innodb_thread_sleep_delay +10000 microseconds +default\n`, out)

	code, _, stderr = runCmd(append(args, "--server", "postgres")...)
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "innosim run: -server: mycnf: server postgres, want mysql or mariadb")
}

// A value the simulator refuses is refused at its file and line.
func TestRunRefusesASpinLoopCountTheSimulatorCannotRun(t *testing.T) {
	cnf := filepath.Join(t.TempDir(), "my.cnf")
	require.NoError(t, os.WriteFile(cnf, []byte("[mysqld]\n\ninnodb_sync_spin_loops=10001\n"), 0o644))
	code, _, stderr := runCmd("run", "--workload", "connect", "--threads", "1", "--cpus", "2", "--measure", "10ms", "--cnf", cnf)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, cnf+":3: innodb_sync_spin_loops = 10001, want 0..10000")
}

// An error is prefixed once with its command: "innosim compare: compare: open
// ..." and "innosim compare: benchcmp: usage: ..." said it twice, and a bad
// flag was printed twice (by the flag package, then in the error).
func TestErrorsArePrefixedOnce(t *testing.T) {
	for _, args := range [][]string{
		{"compare", "a"}, {"compare", "/no/a", "/no/b"}, {"compare", "-bogus"},
		{"profile"}, {"profile", "/no/p"}, {"profile", "-bogus"},
		{"calibrate", "now"}, {"calibrate", "-repeats", "0"},
		{"fit"}, {"fit", "/no/x"}, {"run"}, {"run", "--workload", "connect", "--cnf", "/no/x.cnf"}, {"reproduce", "e"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			code, _, stderr := runCmd(args...)
			assert.NotEqual(t, 0, code)
			assert.LessOrEqual(t, strings.Count(stderr, "flag provided but not defined"), 1, "a bad flag is reported once")
			for _, l := range strings.Split(stderr, "\n") {
				rest, ok := strings.CutPrefix(l, "innosim "+args[0]+": ")
				if !ok {
					continue
				}
				for _, p := range []string{args[0] + ":", "benchcmp:", "contention:", "calibrate:", "usage:"} {
					assert.False(t, strings.HasPrefix(rest, p), "doubled prefix: %s", l)
				}
				if filepath.IsAbs(args[len(args)-1]) {
					assert.LessOrEqual(t, strings.Count(l, args[len(args)-1]), 1, "the file is named once: %s", l)
				}
			}
		})
	}
}

func TestVersion(t *testing.T) {
	code, out, _ := runCmd("--version")
	require.Equal(t, 0, code)
	assert.True(t, strings.HasPrefix(out, "innosim "), out)
	for _, args := range [][]string{{"--version", "extra"}, {"version", "--json"}} {
		code, _, errOut := runCmd(args...)
		assert.Equal(t, 2, code, "%q", args)
		assert.Contains(t, errOut, args[0]+" takes no arguments", "%q: not 'unknown command'", args)
	}

	bi := &debug.BuildInfo{GoVersion: "go1.26.1", Main: debug.Module{Path: "github.com/innosim/innosim", Version: "(devel)"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "c70c3ad0"}, {Key: "vcs.time", Value: "2026-12-01T19:00:00Z"}, {Key: "vcs.modified", Value: "true"}}}
	assert.Equal(t, "innosim (devel) (commit c70c3ad0, modified, 2026-12-01T19:00:00Z) go1.26.1", version(bi))
	assert.Equal(t, "innosim v0.3.0 go1.26.1", version(&debug.BuildInfo{GoVersion: "go1.26.1", Main: debug.Module{Version: "v0.3.0"}}))
	assert.Equal(t, "innosim (no build information)", version(nil))
}

// validate field --table x.csv was refused as group "--table", and
// reproduce d --charts ch --json d.json as the study "d --charts ch --json
// d.json": the flag package stops at the first argument that is not a flag.
// Each case here is refused, or fails, on what the flags after the names
// say, before any table or study runs; "--" still ends the flags.
func TestFlagsAfterTheGroupOrStudyAreParsed(t *testing.T) {
	notDir := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(notDir, nil, 0o644))
	for _, c := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"validate's -costs after its group", []string{"validate", "b", "--costs", "testdata/some.profile"}, 2, "no -table is one"},
		{"validate's -table after its groups", []string{"validate", "c", "field", "--table", "/nonexistent.csv"}, 1, "-table: open /nonexistent.csv"},
		{"validate's flags between its groups", []string{"validate", "c", "--seeds", "0", "field"}, 2, `invalid value "0" for flag -seeds`},
		{"validate's flag given before and after its group", []string{"validate", "--seed", "2", "c", "--seed", "3"}, 2, "-seed given twice"},
		{"validate's groups after --", []string{"validate", "c", "--", "--table", "x.csv"}, 2, `"--table", want a, b, c, d, field`},
		{"reproduce's -charts and -json after its study", []string{"reproduce", "d", "--charts", notDir, "--json", "d.json"}, 1, "-charts " + notDir + ": not a directory"},
		{"reproduce's -costs after its study", []string{"reproduce", "c", "-costs=x.profile"}, 2, "-costs: a study runs on its own machine"},
		{"reproduce's study named twice around a flag", []string{"reproduce", "c", "--seed", "2", "c"}, 2, `study "c" given twice`},
		{"reproduce's all beside a study", []string{"reproduce", "a", "all"}, 2, `all with "a": all is every study, want it alone`},
		{"reproduce's unknown study after a known one", []string{"reproduce", "a", "e"}, 2, `study "e", want a, b, c, d or all`},
		{"reproduce's study after --", []string{"reproduce", "--", "-c"}, 2, `study "-c", want a, b, c, d or all`},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, stderr := runCmd(c.args...)
			assert.Equal(t, c.code, code, stderr)
			assert.Empty(t, out, "refused before any table or study runs")
			assert.Contains(t, stderr, c.want)
		})
	}
}

// A bad flag is one line, first, naming the allowed range or form, and a
// pointer to the help: the flag package printed its message and then some
// 49 lines of usage under it, and "0" is not a positive integer said
// nothing of the maximum, "parse error" nothing of a missing unit.
func TestFlagErrorsComeFirstWithTheRange(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--workload", "connect", "--threads", "0"}, `invalid value "0" for flag -threads: 0 is out of range: want 1..10000`},
		{[]string{"run", "--workload", "connect", "--threads", "1,20000"}, `invalid value "1,20000" for flag -threads: 20000 is out of range: want 1..10000`},
		{[]string{"run", "--workload", "connect", "--threads", "1,x"}, `invalid value "1,x" for flag -threads: "x" is not a whole number: want counts in 1..10000, comma-separated`},
		{[]string{"run", "--workload", "connect", "--cpus", "0"}, `invalid value "0" for flag -cpus: 0 is out of range: want 1..1024`},
		{[]string{"run", "--workload", "connect", "--measure", "5"}, `invalid value "5" for flag -measure: no unit: want a duration with a unit, such as 100ms or 5s`},
		{[]string{"run", "--bogus"}, "flag provided but not defined: -bogus"},
		{[]string{"live", "--threads", "0"}, `invalid value "0" for flag -threads: 0 is out of range: want 1..10000`},
		{[]string{"live", "--rotation", "1,20000"}, `invalid value "1,20000" for flag -rotation: 20000 is out of range: want 1..10000`},
		{[]string{"live", "--time", "5"}, `invalid value "5" for flag -time: no unit: want a duration with a unit`},
		{[]string{"live", "--warmup", "1"}, `invalid value "1" for flag -warmup: no unit: want a duration with a unit`},
		{[]string{"calibrate", "--check", "--benchtime", "5"}, `invalid value "5" for flag -benchtime: no unit: want a duration with a unit`},
		{[]string{"calibrate", "--repeats", "x"}, `invalid value "x" for flag -repeats: "x" is not a whole number: want 1..1000`},
		{[]string{"validate", "--seeds", "0"}, `invalid value "0" for flag -seeds: want a count of 1..16`},
		{[]string{"reproduce", "--bogus"}, "flag provided but not defined: -bogus"},
		{[]string{"fit", "-n", "x"}, `invalid value "x" for flag -n: "x" is not a whole number: want 1..1024`},
		{[]string{"fit", "-n", "99999999999999999999"}, `invalid value "99999999999999999999" for flag -n: 99999999999999999999 is out of range: want 1..1024`},
		{[]string{"run", "--seed", "-1"}, `invalid value "-1" for flag -seed: -1 is out of range: want 0..18446744073709551615`},
		{[]string{"reproduce", "--seed", "1e9"}, `invalid value "1e9" for flag -seed: "1e9" is not a whole number: want 0..18446744073709551615`},
		{[]string{"live", "--tables", "65"}, `invalid value "65" for flag -tables: 65 is out of range: want 1..64`},
		{[]string{"live", "--table-size", "99999999999999999999"}, `invalid value "99999999999999999999" for flag -table-size: 99999999999999999999 is out of range: want 1..10000000`},
		{[]string{"compare", "-bogus"}, "flag provided but not defined: -bogus"},
		{[]string{"profile", "-top", "x"}, `invalid value "x" for flag -top: parse error`},
		{[]string{"workloads", "-bogus"}, "flag provided but not defined: -bogus"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, stdout, stderr := runCmd(tc.args...)
			assert.Equal(t, 2, code)
			assert.Empty(t, stdout)
			lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
			require.Len(t, lines, 2, "the error and the hint, no usage:\n%s", stderr)
			assert.True(t, strings.HasPrefix(lines[0], "innosim "+tc.args[0]+": "+tc.want), "got %q", lines[0])
			assert.Equal(t, "run 'innosim help "+tc.args[0]+"' for the flags", lines[1])
		})
	}
}

// The help gives every flag's range: -cpus's 1..1024 was nowhere.
func TestHelpGivesTheRanges(t *testing.T) {
	for _, tc := range []struct {
		command string
		want    []string
	}{
		{"run", []string{"-threads counts\n", "1..10000", "-cpus counts\n", "1..1024", "-measure duration\n", "1ms..1m", "units 1..1024"}},
		{"live", []string{"-threads counts\n", "1..10000", "-time duration\n", "1s..1h", "-warmup duration\n", "0..1h",
			"-repeats runs\n", "1..100", "-tables count\n", "1..64", "-table-size rows\n", "1..10000000", "-buffer-pool int\n", "8..65536"}},
	} {
		t.Run(tc.command, func(t *testing.T) {
			code, _, stderr := runCmd("help", tc.command)
			require.Equal(t, 0, code)
			for _, w := range tc.want {
				assert.Contains(t, stderr, w)
			}
		})
	}
}

// Flags after the positional arguments are parsed by every command that
// takes arguments: compare OLD NEW -json - and profile FILE -top 3 read
// "-json" and "-top" as files, and workloads NAME -h as a workload.
func TestFlagsAfterArgumentsAreParsedEverywhere(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"compare", "a.txt", "b.txt", "-bogus"}, 2, "flag provided but not defined: -bogus"},
		{[]string{"profile", "x.pprof", "-top", "x"}, 2, `invalid value "x" for flag -top`},
		{[]string{"workloads", "connect", "-bogus"}, 2, "flag provided but not defined: -bogus"},
		{[]string{"fit", "x.csv", "-n", "0"}, 2, "for flag -n: 0 is out of range"},
	} {
		code, stdout, stderr := runCmd(c.args...)
		assert.Equal(t, c.code, code, "%v: %s", c.args, stderr)
		assert.Contains(t, stderr, c.want, "%v", c.args)
		assert.Empty(t, stdout)
	}
}

// A mistyped command or flag names the nearest one.
func TestDidYouMean(t *testing.T) {
	code, _, stderr := runCmd("reprodce")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, `innosim: unknown command "reprodce": did you mean reproduce?`)
	code, _, stderr = runCmd("run", "--workload", "connect", "--thread", "4")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "innosim run: flag provided but not defined: -thread: did you mean -threads?")
	code, _, stderr = runCmd("frobnicate")
	assert.Equal(t, 2, code)
	assert.NotContains(t, stderr, "did you mean")
}

// The exit statuses docs/cmd/README.md documents are the ones the commands
// return: every status in its table, and each one exercised here.
func TestExitStatusesAreTheDocumentedOnes(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "cmd", "README.md"))
	require.NoError(t, err)
	var documented []string
	for _, m := range regexp.MustCompile(`(?m)^\| (\d+) \|`).FindAllStringSubmatch(string(b), -1) {
		documented = append(documented, m[1])
	}
	assert.Equal(t, []string{"0", "1", "2", "130"}, documented)

	code, _, stderr := runCmd("workloads", "connect")
	assert.Equal(t, 0, code, stderr)
	code, _, _ = runCmd("fit", filepath.Join(t.TempDir(), "missing.csv"))
	assert.Equal(t, 1, code)
	code, _, _ = runCmd("run", "--bogus")
	assert.Equal(t, 2, code)
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(signalled{os.Interrupt})
	code, _, stderr = runCmdContext(ctx, "run", "--workload", "connect", "--threads", "1", "--cpus", "2", "--measure", "1ms")
	assert.Equal(t, 130, code, stderr)
}
