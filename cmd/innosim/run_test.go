package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/innosim/innosim/sim"
)

// readRunJSON runs innosim run with --json and returns what it wrote.
func readRunJSON(t *testing.T, args ...string) runJSON {
	t.Helper()
	path := filepath.Join(t.TempDir(), "r.json")
	code, _, stderr := runCmd(append([]string{"run", "--json", path}, args...)...)
	require.Equal(t, 0, code, stderr)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var r runJSON
	require.NoError(t, json.Unmarshal(b, &r))
	return r
}

// Item 4: a cell's figure is the cell's own. With seeds by index, 64 threads on
// 16 cpus gave one figure alone and others when a thread count or a core count
// joined the sweep.
func TestRunCellFigureDoesNotDependOnTheSweep(t *testing.T) {
	common := []string{"--workload", "oltp_read_only", "--measure", "10ms"}
	find := func(r runJSON) cellJSON {
		for _, c := range r.Cells {
			if c.Threads == 64 && c.CPUs == 16 {
				return c
			}
		}
		t.Fatal("no cell of 64 threads on 16 cpus")
		return cellJSON{}
	}
	alone := find(readRunJSON(t, append(common, "--threads", "64", "--cpus", "16")...))
	moreThreads := find(readRunJSON(t, append(common, "--threads", "8,64", "--cpus", "16")...))
	moreCPUs := find(readRunJSON(t, append(common, "--threads", "64", "--cpus", "12,16")...))
	assert.Equal(t, alone, moreThreads, "with 8 threads added")
	assert.Equal(t, alone, moreCPUs, "with 12 cpus added")
	other := find(readRunJSON(t, append(common, "--threads", "64", "--cpus", "16", "--seed", "2")...))
	assert.NotEqual(t, alone.Seed, other.Seed, "the user's seed still seeds")
}

// run --json writes every cell and every row's USL peak, in threads.
func TestRunWritesJSON(t *testing.T) {
	r := readRunJSON(t, "--workload", "slap_select", "--threads", "1,8", "--cpus", "4", "--measure", "5ms",
		"--vary", "innodb_thread_concurrency=0,4")
	assert.Equal(t, "slap_select", r.Workload)
	assert.Equal(t, "innodb_thread_concurrency", r.Vary)
	require.Len(t, r.Cells, 4)
	assert.Equal(t, "4", r.Cells[2].Value)
	assert.Equal(t, 8, r.Cells[3].Threads)
	require.NotNil(t, r.Cells[3].Throughput)
	assert.Greater(t, *r.Cells[3].Throughput, 0.0)
	assert.Len(t, r.Rows, 2)
}

// What run writes is readable by others, as os.Create's files are (the
// temporary file it renames is created 0600).
func TestRunOutputIsNotPrivate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.csv")
	code, _, stderr := runCmd("run", "--workload", "connect", "--threads", "1", "--measure", "2ms", "--csv", path)
	require.Equal(t, 0, code, stderr)
	fi, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o644), fi.Mode().Perm())
}

func TestRunNamesTheUnitOfTheUSLPeak(t *testing.T) {
	code, out, stderr := runCmd("run", "--workload", "connect", "--threads", "1,2", "--cpus", "2", "--measure", "2ms")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "usl peak (threads)")
}

// B2: a NaN in a cost profile made any contended run spin forever; it is
// refused at once, naming the key, through -costs and -profile alike.
func TestRunRefusesNaNProfilesAtOnce(t *testing.T) {
	for _, text := range []string{"futex_growth = NaN\n", "wake_preempt = NaN\n", "", "syscall = 200ns\ncontext_sw"} {
		path := filepath.Join(t.TempDir(), "p.profile")
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
		for _, flag := range []string{"--costs", "--profile"} {
			code, out, stderr := runCmd("run", "--workload", "oltp_read_only", "--threads", "64", "--cpus", "4", flag, path)
			assert.Equal(t, 1, code, "%s %q", flag, text)
			assert.Empty(t, out)
			assert.Contains(t, stderr, "invalid config", "%s %q", flag, text)
		}
	}
}

// B4: every cell and every output path is checked before the first cell runs:
// a bad thread count at the end of the list, a chart format, a directory that
// is not there. Before, the table was printed (the sweep run) and then -csv or
// -plot failed.
func TestRunValidatesEverythingBeforeTheFirstCell(t *testing.T) {
	dir := t.TempDir()
	long := []string{"run", "--workload", "oltp_read_only", "--measure", "1m"}
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"threads beyond 10000", []string{"--threads", "1,2,10001", "--cpus", "16"}, 2, "-threads: 10001 is out of range: want 1..10000"},
		{"cpus beyond 1024", []string{"--threads", "1,64", "--cpus", "4,2000"}, 2, "-cpus: 2000 is out of range: want 1..1024"},
		{"a chart format", []string{"--threads", "1,64", "--cpus", "16", "--plot", filepath.Join(dir, "x.jpg")}, 2, `extension ".jpg"`},
		{"a csv in no directory", []string{"--threads", "1,64", "--cpus", "16", "--csv", "/no/dir/x.csv"}, 1, "-csv: open /no/dir/"},
		{"a json in no directory", []string{"--threads", "1,64", "--cpus", "16", "--json", "/no/dir/x.json"}, 1, "-json: open /no/dir/"},
		{"a directory as the csv", []string{"--threads", "1,64", "--cpus", "16", "--csv", dir}, 2, "a directory: want a file path"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			var o, e bytes.Buffer
			code := run(ctx, append(long, tt.args...), &o, &e)
			require.NoError(t, ctx.Err(), "refused only after running (a cell of 1m virtual)")
			assert.Equal(t, tt.code, code)
			assert.Contains(t, e.String(), tt.want)
			assert.Empty(t, o.String(), "no table: nothing ran")
		})
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries, "no temporary file left")
}

// A flag given directly and again through -vary is a conflict, not a silent win
// for -vary.
func TestRunRefusesAFlagGivenTwice(t *testing.T) {
	for _, args := range [][]string{
		{"--wake", "targeted", "--vary", "wake=all,deferred"},
		{"--sched", "ts", "--vary", "sched=cfs"},
		{"--gate", "atomic", "--vary", "gate=queue"},
		{"--profile", "new-kernel", "--vary", "profile=old-kernel"},
		{"--costs", "x.profile", "--vary", "profile=old-kernel"},
		// -aio sets innodb_use_native_aio: it overrode every row of the -vary.
		{"--aio", "native", "--vary", "innodb_use_native_aio=0,1"},
	} {
		code, _, stderr := runCmd(append([]string{"run", "--workload", "oltp_insert", "--threads", "1"}, args...)...)
		assert.Equal(t, 2, code, "%q", args)
		assert.Contains(t, stderr, "both given: want one", "%q", args)
	}
	code, _, stderr := runCmd("run", "--workload", "oltp_insert", "--threads", "1", "--measure", "2ms", "--aio", "simulated", "--vary", "wake=all,targeted")
	assert.Equal(t, 0, code, stderr)
}

// A flag given twice is refused: the flag package would keep the last value
// and drop the first without a word (-vary's second setting replaced the
// first; -threads 4 -threads 8 ran only 8). validate's -table repeats.
func TestRunRefusesARepeatedFlag(t *testing.T) {
	for _, args := range [][]string{
		{"--threads", "4", "--threads", "8"},
		{"--vary", "innodb_thread_concurrency=0,8", "--vary", "wake=all"},
		{"--cpus", "2", "--cpus", "4"},
	} {
		code, out, stderr := runCmd(append([]string{"run", "--workload", "connect", "--measure", "2ms"}, args...)...)
		assert.Equal(t, 2, code, args)
		assert.Empty(t, out, args)
		assert.Contains(t, stderr, "given twice", args)
		assert.NotContains(t, stderr, "panic", "the usage's defaults print without a panic")
	}
}

// Two outputs naming one file: the JSON silently replaced the CSV.
func TestRunRefusesOneFileForTwoOutputs(t *testing.T) {
	path := filepath.Join(t.TempDir(), "same.out")
	code, out, stderr := runCmd("run", "--workload", "connect", "--threads", "1", "--measure", "2ms", "--csv", path, "--json", path)
	assert.Equal(t, 2, code)
	assert.Empty(t, out)
	assert.Contains(t, stderr, "-csv and -json both name")
	_, err := os.Stat(path)
	assert.True(t, os.IsNotExist(err), "nothing written")
}

// run --json carries the settings each row ran with, as its help says.
func TestRunJSONHasEachRowsSettings(t *testing.T) {
	r := readRunJSON(t, "--workload", "oltp_insert", "--threads", "4", "--cpus", "2", "--measure", "2ms",
		"--sched", "ts", "--profile", "new-kernel", "--vary", "aio=simulated,native")
	require.Len(t, r.Rows, 2)
	assert.Equal(t, "mysql", r.Server)
	for i, want := range []string{"simulated", "native"} {
		st := r.Rows[i].Settings
		assert.Equal(t, want, st.AIO)
		assert.Equal(t, "ts", st.Scheduler)
		assert.Equal(t, "new-kernel", st.Costs)
		assert.Equal(t, "one-thread-per-connection", st.ThreadHandling)
	}
	assert.Equal(t, "all", r.Rows[0].Settings.Wake)
	assert.Equal(t, "targeted", r.Rows[1].Settings.Wake)
}

// -wake and -aio on a workload without an AIO array changed nothing, and the
// table showed a row per wake policy with the same figures.
func TestRunRefusesAIOFlagsForAWorkloadWithoutAIO(t *testing.T) {
	for _, args := range [][]string{{"--wake", "targeted"}, {"--vary", "wake=all,targeted"}, {"--aio", "native"}} {
		code, out, stderr := runCmd(append([]string{"run", "--workload", "oltp_read_write", "--threads", "1", "--measure", "2ms",
			"--device", "units=1"}, args...)...)
		assert.Equal(t, 2, code, args)
		assert.Empty(t, out, args)
		assert.Contains(t, stderr, "with workload oltp_read_write, which submits no AIO", args)
	}
}

// -vary wake=all,targeted with an AIO workload was refused as -wake "all",
// a flag the user had not given, and did not say that native AIO was
// innodb_use_native_aio's default: each refusal names the flag or -vary that
// gave the wake policy and the AIO mode, and what gives simulated AIO.
func TestRunWakeRefusalsNameWhatTheUserGave(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want []string
	}{
		{[]string{"--vary", "wake=all,targeted"}, []string{
			"-vary wake=all with native AIO (innodb_use_native_aio = ON, the server's default): Wake = all with IO = native: want -aio simulated",
			"Wake = all with IO = native"}},
		{[]string{"--wake", "all"}, []string{
			"-wake all with native AIO (innodb_use_native_aio = ON, the server's default): Wake = all with IO = native: want -aio simulated or -vary aio=simulated",
			"(native AIO wakes no handler thread)"}},
		{[]string{"--aio", "native", "--vary", "wake=all,targeted"}, []string{
			"-vary wake=all with native AIO (-aio native)", "or -vary wake=targeted,deferred"}},
		{[]string{"--vary", "aio=simulated,native", "--wake", "all"}, []string{
			"-wake all with native AIO (-vary aio=native)"}},
		{[]string{"--workload", "oltp_read_write", "--device", "units=1", "--vary", "wake=all,targeted"}, []string{
			"-vary wake=all with workload oltp_read_write, which submits no AIO"}},
	} {
		args := append([]string{"run", "--threads", "1", "--measure", "1ms"}, tt.args...)
		if !slices.Contains(tt.args, "--workload") {
			args = append(args, "--workload", "oltp_insert")
		}
		code, out, stderr := runCmd(args...)
		assert.Equal(t, 2, code, tt.args)
		assert.Empty(t, out, tt.args)
		for _, w := range tt.want {
			assert.Contains(t, stderr, w, tt.args)
		}
		if slices.Contains(tt.args, "--vary") && !slices.Contains(tt.args, "--wake") {
			assert.NotContains(t, stderr, "-wake \"", tt.args)
		}
	}
}

// The device table has a column for the varied value, as the throughput
// table has: its rows read "wake=all 4" under a header of "cpus".
func TestRunDeviceTableHasTheVariedColumn(t *testing.T) {
	code, out, stderr := runCmd("run", "--workload", "oltp_read_write", "--device", "units=1,fsync=200us", "--threads", "8",
		"--cpus", "4", "--vary", "innodb_flush_log_at_trx_commit=1,2", "--measure", "5ms")
	require.Equal(t, 0, code, stderr)
	_, io, ok := strings.Cut(out, " I/O by client threads")
	require.True(t, ok, out)
	lines := strings.Split(strings.TrimSpace(io), "\n")
	require.Len(t, lines, 4, io)
	assert.Equal(t, []string{"innodb_flush_log_at_trx_commit", "cpus", "t8"}, strings.Fields(lines[1]))
	for _, l := range lines[2:] {
		assert.Len(t, strings.Fields(l), 3, l)
	}
}

// -threads and -cpus are sorted: given out of order, the table's columns,
// the CSV's and JSON's rows and the chart's line followed the order given
// (t64 t1 t8 ..., a zig-zag).
func TestRunSortsThreadAndCoreCounts(t *testing.T) {
	dir := t.TempDir()
	csvPath, jsonPath := filepath.Join(dir, "r.csv"), filepath.Join(dir, "r.json")
	code, out, stderr := runCmd("run", "--workload", "connect", "--threads", "8,1,4", "--cpus", "4,2", "--measure", "2ms",
		"--csv", csvPath, "--json", jsonPath)
	require.Equal(t, 0, code, stderr)
	lines := strings.Split(out, "\n")
	require.Greater(t, len(lines), 3, out)
	assert.Equal(t, []string{"cpus", "t1", "t4", "t8", "usl", "peak", "(threads)"}, strings.Fields(lines[1]))
	assert.Equal(t, "2", strings.Fields(lines[2])[0])
	assert.Equal(t, "4", strings.Fields(lines[3])[0])

	b, err := os.ReadFile(csvPath)
	require.NoError(t, err)
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n")[1:] {
		f := strings.Split(l, ",")
		got = append(got, f[0]+"x"+f[1])
	}
	want := []string{"2x1", "2x4", "2x8", "4x1", "4x4", "4x8"}
	assert.Equal(t, want, got, "CSV rows: cpus x threads")

	b, err = os.ReadFile(jsonPath)
	require.NoError(t, err)
	var r runJSON
	require.NoError(t, json.Unmarshal(b, &r))
	got = nil
	for _, c := range r.Cells {
		got = append(got, strconv.Itoa(c.CPUs)+"x"+strconv.Itoa(c.Threads))
	}
	assert.Equal(t, want, got, "JSON cells: cpus x threads")
}

// Every list flag of counts (run's -threads and -cpus, live's -threads and
// -rotation) is sorted ascending; a value given twice is still named by its
// positions as given.
func TestCountListsAreSorted(t *testing.T) {
	var stderr strings.Builder
	c, _, _, _, err := parseLiveFlags([]string{"--threads", "16,1,4"}, &stderr)
	require.NoError(t, err, stderr.String())
	assert.Equal(t, []int{1, 4, 16}, c.Threads)
	_, _, rotation, _, err := parseLiveFlags([]string{"--rotation", "64,1,16"}, &stderr)
	require.NoError(t, err, stderr.String())
	assert.Equal(t, []int{1, 16, 64}, rotation)
}

// A JSON cell has every figure a CSV row has, under the CSV's names: the
// I/O rates were in the CSV only.
func TestRunJSONHasTheCSVsFigures(t *testing.T) {
	dir := t.TempDir()
	csvPath, jsonPath := filepath.Join(dir, "r.csv"), filepath.Join(dir, "r.json")
	code, _, stderr := runCmd("run", "--workload", "oltp_insert", "--threads", "1", "--cpus", "2", "--measure", "20ms",
		"--device", "units=2,read=1ms", "--csv", csvPath, "--json", jsonPath)
	require.Equal(t, 0, code, stderr)
	b, err := os.ReadFile(csvPath)
	require.NoError(t, err)
	rows := strings.Split(strings.TrimSpace(string(b)), "\n")
	require.Len(t, rows, 2)
	header, row := strings.Split(rows[0], ","), strings.Split(rows[1], ",")

	b, err = os.ReadFile(jsonPath)
	require.NoError(t, err)
	var js struct {
		Unit  string           `json:"unit"`
		Cells []map[string]any `json:"cells"`
	}
	require.NoError(t, json.Unmarshal(b, &js))
	require.Len(t, js.Cells, 1)
	cell := js.Cells[0]
	for i, col := range header {
		if col == "unit" {
			assert.Equal(t, row[i], js.Unit, "the unit is the file's")
			continue
		}
		require.Contains(t, cell, col)
		csvVal, err := strconv.ParseFloat(row[i], 64)
		require.NoError(t, err, col)
		decimals := 0 // the CSV rounds: allow half its last digit
		if _, frac, ok := strings.Cut(row[i], "."); ok {
			decimals = len(frac)
		}
		assert.InDelta(t, csvVal, cell[col], 0.5*math.Pow10(-decimals)+1e-9, "%s: CSV %s, JSON %v", col, row[i], cell[col])
	}
	assert.Greater(t, cell["reads_per_s"], 0.0, "a device read")
}

// An output path that cannot be written is named as given, with the cause:
// the error named the temporary file beside it (.x.csv.tmp2729896211.csv).
func TestOutputErrorsNameThePathGiven(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no", "dir")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--workload", "connect", "--threads", "1,8", "--csv", filepath.Join(missing, "x.csv")},
			"innosim run: -csv: open " + filepath.Join(missing, "x.csv") + ": no such file or directory\n"},
		{[]string{"run", "--workload", "connect", "--threads", "1", "--plot", filepath.Join(missing, "x.svg")},
			"innosim run: -plot: open " + filepath.Join(missing, "x.svg") + ": no such file or directory\n"},
		{[]string{"calibrate", "--out", filepath.Join(missing, "x.profile")},
			"innosim calibrate: -out: open " + filepath.Join(missing, "x.profile") + ": no such file or directory\n"},
	} {
		t.Run(tc.args[0]+" "+tc.args[len(tc.args)-2], func(t *testing.T) {
			code, out, stderr := runCmd(tc.args...)
			assert.Equal(t, 1, code)
			assert.Empty(t, out)
			assert.Equal(t, tc.want, stderr)
		})
	}
}

// A cost profile that gives only some costs (or was cut at the end of a
// line) is read, the rest keeping old-kernel's values, and run and validate
// say which on stderr, in one line; -show-settings says which profile the
// cells use. Both exited 0 without a word.
func TestPartialCostProfileIsNamedInAWarning(t *testing.T) {
	dir := t.TempDir()
	one := filepath.Join(dir, "one.profile")
	require.NoError(t, os.WriteFile(one, []byte("syscall = 74ns\n"), 0o644))
	others := slices.DeleteFunc(sim.ProfileKeys(), func(k string) bool { return k == "syscall" })
	warning := "gives 1 of 24 costs; the other 23 keep old-kernel's values: " + strings.Join(others, ", ") + "\n"
	args := []string{"run", "--workload", "connect", "--threads", "1", "--cpus", "2", "--measure", "2ms"}

	for _, tc := range []struct {
		flags    []string
		warning  string
		settings string
	}{
		{[]string{"--costs", one}, "innosim run: warning: -costs " + one + " " + warning, "cost profile: " + one + " (-costs)\n"},
		{[]string{"--profile", one}, "innosim run: warning: -profile " + one + " " + warning, "cost profile: " + one + " (-profile)\n"},
		{[]string{"--vary", "profile=new-kernel," + one}, "innosim run: warning: -vary profile=" + one + " " + warning, "cost profile: varied by -vary profile\n"},
		{[]string{"--costs", "../../docs/live/v1045.profile"}, "", "cost profile: ../../docs/live/v1045.profile (-costs)\n"},
		{nil, "", "cost profile: old-kernel (default)\n"},
		{[]string{"--profile", "new-kernel"}, "", "cost profile: new-kernel (-profile)\n"},
	} {
		t.Run(strings.Join(tc.flags, " "), func(t *testing.T) {
			code, out, stderr := runCmd(append(append(args, "--show-settings"), tc.flags...)...)
			require.Equal(t, 0, code, stderr)
			assert.Equal(t, tc.warning, stderr)
			assert.Contains(t, out, tc.settings)
		})
	}

	code, _, stderr := runCmd("validate", "--costs", one, "b")
	assert.Equal(t, 2, code, "no live table: refused after the warning")
	assert.Contains(t, stderr, "innosim validate: warning: -costs "+one+" "+warning)
}

// A fixed 20 ms warm-up (run's default without --client before steady
// became every run's default) can measure a ramp: read_ahead on a 4-unit
// device gave 7,690 scans/s over 100 ms, 1,125 over 1 s and 547 over 5 s
// while reads stayed at the device's 400/s. The default, steady, reads the
// long run at the default window, and the JSON and -show-settings say which
// warm-up ran. A cell the steady warm-up cannot serve is refused before any
// cell runs, saying what measures it.
func TestRunWarmsUpUntilSteady(t *testing.T) {
	args := []string{"run", "--workload", "read_ahead", "--threads", "8", "--cpus", "8", "--aio", "native",
		"--device", "units=4,read=10ms,dist=fixed"}
	scans := func(extra ...string) (float64, map[string]any) {
		t.Helper()
		jsonPath := filepath.Join(t.TempDir(), "r.json")
		code, _, stderr := runCmd(append(append(slices.Clone(args), "--json", jsonPath), extra...)...)
		require.Equal(t, 0, code, stderr)
		b, err := os.ReadFile(jsonPath)
		require.NoError(t, err)
		var js map[string]any
		require.NoError(t, json.Unmarshal(b, &js))
		cells := js["cells"].([]any)
		require.Len(t, cells, 1)
		return cells[0].(map[string]any)["throughput"].(float64), js
	}
	steady, js := scans("--warmup", "steady")
	assert.Equal(t, "steady", js["warmup"])
	long, _ := scans("--warmup", "steady", "--measure", "5s")
	assert.InEpsilon(t, long, steady, 0.1, "the default window after a steady warm-up reads the 5 s window's figure")
	byDefault, js := scans()
	assert.Equal(t, "steady", js["warmup"], "the default without -client")
	assert.Nil(t, js["warmup_ns"], "no one figure for a steady warm-up")
	assert.Equal(t, steady, byDefault, "the default is the steady warm-up")
	ramp, js := scans("--warmup", "20ms")
	assert.Equal(t, "fixed", js["warmup"])
	assert.Equal(t, float64(20_000_000), js["warmup_ns"], "20 ms")
	assert.Greater(t, ramp, 3*steady, "a fixed 20 ms warm-up measures the device queue filling")

	code, out, _ := runCmd(append(slices.Clone(args), "--warmup", "20ms", "--show-settings")...)
	require.Equal(t, 0, code)
	assert.Contains(t, out, "warm-up (-warmup): 20ms\n")
	code, out, _ = runCmd("run", "--workload", "oltp_point_select", "--threads", "1", "--cpus", "2", "--client", "on", "--show-settings")
	require.Equal(t, 0, code)
	assert.Contains(t, out, "warm-up (-warmup): steady\n", "the default with -client")
	code, out, _ = runCmd("run", "--workload", "oltp_point_select", "--threads", "1", "--cpus", "2", "--show-settings")
	require.Equal(t, 0, code)
	assert.Contains(t, out, "warm-up (-warmup): steady\n", "the default without -client")
	for _, bad := range []string{"0s", "2m", "20", "soon"} {
		code, _, stderr := runCmd(append(slices.Clone(args), "--warmup", bad)...)
		assert.Equal(t, 2, code, bad)
		assert.Contains(t, stderr, `invalid value "`+bad+`" for flag -warmup: `, bad)
		assert.Contains(t, stderr, "want steady", bad)
	}
	// 20,000 threads on 2 CPUs need 2 minutes before a pair of windows
	code, _, stderr := runCmd("run", "--workload", "oltp_point_select", "--threads", "1,10000", "--cpus", "2", "--client", "on")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "-threads 10000 with 2 CPUs (-cpus 2) and a steady warm-up (-warmup's default with -client) leaves no room")
	assert.Contains(t, stderr, "want more -cpus, or fewer threads")
	assert.Contains(t, stderr, "a fixed -warmup DURATION measures the cell after that warm-up instead")
}
