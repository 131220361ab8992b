package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/innosim/innosim/internal/validate"
)

// TestValidateGolden holds `innosim validate` to its recorded output byte for
// byte, as TestReproduceGolden does for reproduce: a change that moves a
// table's error must rewrite the files (go test -update) and say so in its
// commit. By default it runs quick (validate.Quick) against
// testdata/validate_X.quick.golden; with INNOSIM_FULL=1 whole against
// testdata/validate_X.golden, only without the race detector (the field
// cases' 1,024-thread cells alone ran past the package's 10-minute timeout
// under -race on a loaded 2-core machine). Today predicted tables miss their
// bounds, so the whole validate exits 1; the exit status is part of what is
// held.
func TestValidateGolden(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
	}{
		{"c+field+user", []string{"validate", "-table", filepath.Join("testdata", "validate_user.csv"), "c", "field"}},
		{"all", []string{"validate"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, golden := validate.Quick(context.Background()), "validate_"+c.name+".quick.golden"
			if raceEnabled && c.name == "all" {
				// 30 s quick under -race; c+field+user runs the field
				// cases' goroutines and every other line of the path
				t.Skip("the whole validate is too slow under -race; runs in the non-race job")
			}
			if fullSize() {
				if raceEnabled {
					t.Skip("the studies and field cases are too slow under -race; runs in the non-race job")
				}
				ctx, golden = context.Background(), "validate_"+c.name+".golden"
			}
			code, out, stderr := runCmdContext(ctx, c.args...)
			missed := regexp.MustCompile(`(?m) MISS( at seeds? [0-9, ]+)?$`).MatchString(out)
			if fullSize() {
				require.Equal(t, 1, code, "predicted tables miss today: exit 1 (stderr %q)", stderr)
			}
			assert.Equal(t, missed, code == 1, "exit status %d with a missed table %v (stderr %q)", code, missed, stderr)
			path := filepath.Join("testdata", golden)
			if *update {
				require.NoError(t, os.WriteFile(path, []byte(out), 0o644))
				return
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.Equal(t, string(want), out, "validate differs from %s (go test -update rewrites it)", path)
		})
	}
}

func TestValidateRefusesAnUnknownGroupAndABadTable(t *testing.T) {
	code, _, stderr := runCmd("validate", "e")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, `"e", want a, b, c, d, field`)

	bad := filepath.Join(t.TempDir(), "bad.csv")
	require.NoError(t, os.WriteFile(bad, []byte("cpus,threads\n4,1\n"), 0o644))
	code, _, stderr = runCmd("validate", "-table", bad, "c")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, `header has no column "scheduler"`)
}

// TestRunReportsTheDevicesIORates: bug 40604's shape under simulated AIO (a
// read I/O thread serves one read at a time), and native AIO on the same
// device, whose reads are in the kernel at once whatever the thread count,
// so one read I/O thread already reaches the device's 8 units.
func TestRunReportsTheDevicesIORates(t *testing.T) {
	code, out, stderr := runCmd("run", "-workload", "read_ahead", "-threads", "16", "-cpus", "8", "-aio", "simulated",
		"-vary", "innodb_read_io_threads=1,16", "-device", "units=8,read=5ms,dist=fixed", "-measure", "200ms")
	require.Equal(t, 0, code, stderr)
	assert.Regexp(t, `(?m)^1 +8 +200/0/0$`, out)
	assert.Regexp(t, `(?m)^16 +8 +1600/0/0$`, out)
	code, out, stderr = runCmd("run", "-workload", "read_ahead", "-threads", "16", "-cpus", "8", "-aio", "native",
		"-vary", "innodb_read_io_threads=1,16", "-device", "units=8,read=5ms,dist=fixed", "-measure", "200ms")
	require.Equal(t, 0, code, stderr)
	assert.Regexp(t, `(?m)^1 +8 +1600/0/0$`, out, "native AIO is limited by the device, not the I/O threads")
	for _, bad := range []struct{ arg, want string }{
		{"units=0", "units = \"0\": want 1..1024"},
		{"read=5ms", "units is required"},
		{"units=8,dist=normal", "dist = \"normal\""},
		{"units=8,seek=1ms", "key \"seek\""},
	} {
		code, _, stderr := runCmd("run", "-workload", "read_ahead", "-device", bad.arg)
		assert.Equal(t, 2, code, bad.arg)
		assert.Contains(t, stderr, bad.want, bad.arg)
	}
}

// TestValidateRefusesALiveTableItsCostsCannotRunBeforeTheStudies: a -costs
// profile can make a live curve's measured server CPU per query less than
// what that machine charges besides the workload's bursts. The table was
// checked on the default profile only, so validate ran the studies first and
// then failed with "cell 1 of 2" and no line.
func TestValidateRefusesALiveTableItsCostsCannotRunBeforeTheStudies(t *testing.T) {
	dir := t.TempDir()
	table := filepath.Join(dir, "live.csv")
	require.NoError(t, os.WriteFile(table, []byte("workload,cpus,threads,throughput,server_cpu_us_per_query\n"+
		"oltp_point_select,2,1,40000,14\noltp_point_select,2,4,50000,16\n"), 0o644))
	profile := filepath.Join(dir, "slow.profile")
	require.NoError(t, os.WriteFile(profile, []byte("syscall = 20us\n"), 0o644))
	code, out, stderr := runCmd("validate", "-table", table, "-costs", profile, "c")
	assert.NotContains(t, stderr, "cell 1 of 2", "refused as the file is read, not as its cells run")
	assert.Equal(t, 1, code)
	assert.Empty(t, out)
	assert.Contains(t, stderr, "live.csv:2: workload oltp_point_select cannot run on a live table's machine")
	assert.Contains(t, stderr, "ClientConfig.ServerCPU = 14µs")
}

// TestValidateRefusesOneTableGivenTwiceByTwoPaths: -table x.csv and -table
// ./x.csv are one file; only the same spelling was refused, and the table was
// reported twice.
func TestValidateRefusesOneTableGivenTwiceByTwoPaths(t *testing.T) {
	path := filepath.Join("testdata", "validate_user.csv")
	code, out, stderr := runCmd("validate", "-table", path, "-table", "./"+path, "b")
	assert.Equal(t, 2, code)
	assert.Empty(t, out)
	assert.Contains(t, stderr, "given twice")
}

func TestValidateRefusesASeedCountOutOfRange(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"no seed", []string{"-seeds", "0"}, `invalid value "0" for flag -seeds: want a count of 1..16`},
		{"more than 16", []string{"-seeds", "17"}, `invalid value "17" for flag -seeds: want a count of 1..16`},
		{"negative", []string{"-seeds=-2"}, `invalid value "-2" for flag -seeds: want a count of 1..16`},
		{"not a number", []string{"-seeds", "1,2,3"}, `invalid value "1,2,3" for flag -seeds: want a count of 1..16`},
		{"empty", []string{"-seeds="}, `invalid value "" for flag -seeds: want a count of 1..16`},
		{"given twice", []string{"-seeds", "2", "-seeds", "3"}, "-seeds given twice"},
		{"past the last seed", []string{"-seed", "18446744073709551614", "-seeds", "3"},
			"-seed 18446744073709551614 with -seeds 3: the last seed would pass 2^64-1; want -seed at most 18446744073709551613"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, stderr := runCmd(append(append([]string{"validate"}, c.args...), "c")...)
			assert.Equal(t, 2, code)
			assert.Empty(t, out, "refused before any table runs")
			assert.Contains(t, stderr, c.want)
		})
	}
}

// TestValidateSeedsRunsEveryTableAtEachSeed: -seeds 2 from -seed 5 runs the
// tables at seeds 5 and 6, and prints the first seed's figures with each
// cell's range; one seed prints what -seeds leaves out.
func TestValidateSeedsRunsEveryTableAtEachSeed(t *testing.T) {
	if raceEnabled {
		t.Skip("study C twice is too slow under -race")
	}
	code, one, stderr := runCmd("validate", "-seed", "5", "c")
	require.Equal(t, 0, code, stderr)
	assert.NotContains(t, one, "seeds")
	code, two, stderr := runCmd("validate", "-seed", "5", "-seeds", "2", "c")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, two, "== study C connect connections/s (fitted; source: MariaDB MDEV-24140 10.3.24 (study C); seeds 5, 6)\n")
	assert.Contains(t, two, "\nSummary at seeds 5, 6 (figures at seed 5;")
	// study C's first cell at seed 5, alone and as the first of two seeds
	first := regexp.MustCompile(`(?m)^old t1 +(\d+) +(\d+) +[\d.]+$`).FindStringSubmatch(one)
	require.NotNil(t, first, one)
	both := regexp.MustCompile(`(?m)^old t1 +(\d+) +(\d+) +[\d.]+ +(\d+) +(\d+)$`).FindStringSubmatch(two)
	require.NotNil(t, both, two)
	assert.Equal(t, first[1:3], both[1:3], "published and simulated: seed 5's")
	lo, hi := both[3], both[4]
	assert.LessOrEqual(t, atoi(t, lo), atoi(t, first[2]))
	assert.GreaterOrEqual(t, atoi(t, hi), atoi(t, first[2]))
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	require.NoError(t, err)
	return n
}

// There was no way to validate the -table files alone: no group ran every
// table (85 s with field's cases). The group tables is the -table files and
// nothing else, and without one it is refused, not an empty run.
func TestValidateTablesRunsTheTableFilesAlone(t *testing.T) {
	user := filepath.Join("testdata", "validate_user.csv")
	code, out, stderr := runCmd("validate", "tables", "-table", user)
	require.Equal(t, 1, code, "the example table misses its bound (stderr %q)", stderr)
	assert.Contains(t, out, "== user table: point selects (example) (predicted;")
	for _, other := range []string{"study", "bug", "collapse"} {
		assert.NotContains(t, out, other, "tables runs no published table")
	}
	code, out, stderr = runCmd("validate", "tables")
	assert.Equal(t, 2, code)
	assert.Empty(t, out)
	assert.Contains(t, stderr, "group tables is the -table files, and none is given: want at least one -table FILE.csv")
}
