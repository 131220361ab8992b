package calibrate

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/innosim/innosim/internal/cmdflag"
	"github.com/stretchr/testify/require"
)

// TestRunRefusesOutOfRangeFlagsBeforeMeasuring: each flag out of the range its
// help gives is refused (a usage error) by its flag name and range, with the usage, before the
// measurement runs (nothing on stdout): -benchtime was refused only after
// Measure and the table, as "CheckOptions.Benchtime"; -repeats and -rounds by
// their Options field names; and -repeats 0 or -rounds 0 silently meant the
// defaults, though the help says 1..1000 and 1..1000000.
func TestRunRefusesOutOfRangeFlagsBeforeMeasuring(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"repeats past an int", []string{"-repeats", "99999999999999999999"}, `99999999999999999999 is out of range: want 1..1000`},
		{"repeats 0", []string{"-repeats", "0"}, `invalid value "0" for flag -repeats: 0 is out of range: want 1..1000`},
		{"repeats -1", []string{"-repeats", "-1"}, `invalid value "-1" for flag -repeats: -1 is out of range: want 1..1000`},
		{"repeats 1001", []string{"-repeats", "1001"}, `invalid value "1001" for flag -repeats: 1001 is out of range: want 1..1000`},
		{"rounds 0", []string{"-rounds", "0"}, `invalid value "0" for flag -rounds: 0 is out of range: want 1..1000000`},
		{"rounds 1000001", []string{"-rounds", "1000001"}, `invalid value "1000001" for flag -rounds: 1000001 is out of range: want 1..1000000`},
		{"max-ring 1", []string{"-max-ring", "1"}, `invalid value "1" for flag -max-ring: 1 is out of range: want 2..1024`},
		{"max-ring 2048", []string{"-max-ring", "2048"}, `invalid value "2048" for flag -max-ring: 2048 is out of range: want 2..1024`},
		{"benchtime 0", []string{"-check", "-benchtime", "0s"}, "-benchtime 0s, want 1ns..1m0s"},
		{"benchtime -1s", []string{"-check", "-benchtime", "-1s"}, "-benchtime -1s, want 1ns..1m0s"},
		{"benchtime 2m", []string{"-check", "-benchtime", "2m"}, "-benchtime 2m0s, want 1ns..1m0s"},
		{"count 0", []string{"-check", "-count", "0"}, `invalid value "0" for flag -count: 0 is out of range: want 1..20`},
		{"count 21", []string{"-check", "-count", "21"}, `invalid value "21" for flag -count: 21 is out of range: want 1..20`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			err := Run(context.Background(), tc.args, &out, &errOut)
			require.True(t, cmdflag.IsUsage(err), "%v", err)
			require.ErrorContains(t, err, tc.want)
			require.Empty(t, out.String(), "refused before measuring")
			if strings.HasPrefix(tc.want, "-") { // a combination refused after parsing, with the usage
				require.Contains(t, errOut.String(), "usage: innosim calibrate")
			}
		})
	}
}

// An -out path that cannot be written is refused before the measurement:
// it failed only after six seconds of measuring. A canceled run leaves no
// temporary file beside the path.
func TestRunRefusesAnUnwritableOutBeforeMeasuring(t *testing.T) {
	var out, errOut bytes.Buffer
	err := Run(context.Background(), []string{"-out", "/nonexistent/dir/x.profile"}, &out, &errOut)
	require.ErrorContains(t, err, "calibrate: -out: ")
	require.Empty(t, out.String(), "refused before measuring")

	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	require.Error(t, Run(ctx, []string{"-out", filepath.Join(dir, "x.profile")}, &out, &errOut))
	left, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Empty(t, left, "no profile and no temporary file")
}

// -benchtime and -count shape only -check's runs: given without -check they
// are refused, naming -check; they used to be ignored and the run exit 0.
func TestRunRefusesCheckFlagsWithoutCheck(t *testing.T) {
	for _, args := range [][]string{{"-count", "3"}, {"-benchtime", "2s"}} {
		var out, errOut bytes.Buffer
		err := Run(context.Background(), args, &out, &errOut)
		require.True(t, cmdflag.IsUsage(err), "%v: %v", args, err)
		require.ErrorContains(t, err, args[0]+" needs -check")
		require.Empty(t, out.String(), "refused before measuring")
	}
}

// An -out that names a directory is refused before the measurement: the
// rename onto it failed only after every probe had run.
func TestRunRefusesADirectoryOutBeforeMeasuring(t *testing.T) {
	var out, errOut bytes.Buffer
	err := Run(context.Background(), []string{"-out", t.TempDir()}, &out, &errOut)
	require.True(t, cmdflag.IsUsage(err), "%v", err)
	require.ErrorContains(t, err, "is a directory, want a file")
	require.Empty(t, out.String(), "refused before measuring")
}
