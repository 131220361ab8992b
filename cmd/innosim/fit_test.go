package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
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

// -n and -x on the CSV that run --csv writes choose the columns, not the
// curves: its series are still fitted one by one. They used to be pooled into
// one fit of every row (two core counts' curves as one, "points 10").
func TestFitWithExplicitColumnsKeepsRunSeriesApart(t *testing.T) {
	csvPath := filepath.Join(t.TempDir(), "r.csv")
	code, _, stderr := runCmd("run", "--workload", "connect", "--threads", "1,2,4,8,16", "--cpus", "2,4",
		"--measure", "5ms", "--csv", csvPath)
	require.Equal(t, 0, code, stderr)
	code, byHeader, stderr := runCmd("fit", csvPath)
	require.Equal(t, 0, code, stderr)
	code, byFlags, stderr := runCmd("fit", "-n", "2", "-x", "3", csvPath)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, byHeader, byFlags, "the same columns by name and by number")
	assert.Contains(t, byFlags, "cpus=2")
	assert.Contains(t, byFlags, "cpus=4")
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
	// the flags after the file were taken for more files: "want one FILE.csv, got 5 arguments"
	code, after, stderr := runCmd("fit", p, "-n", "2", "-x", "3")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, out, after)
}

func writeCSV(t *testing.T, rows ...string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "p.csv")
	require.NoError(t, os.WriteFile(p, []byte(strings.Join(rows, "\n")+"\n"), 0o644))
	return p
}

// fit refuses, with a non-zero exit and the reason, data that cannot determine
// the model; each of these used to print σ, κ and a peak (or "peak X NaN"), and
// exit 0.
func TestFitRefusesDataThatCannotDetermineTheModel(t *testing.T) {
	tests := []struct {
		name string
		rows []string
		want string
	}{
		{"three identical points", []string{"8,100", "8,100", "8,100"}, "≥ 4 distinct concurrencies (one more than the model's 3 parameters), got 1"},
		{"two distinct N", []string{"1,100", "1,101", "4,300", "4,310"}, "got 2"},
		{"three distinct N", []string{"1,100", "2,190", "4,340"}, "got 3"},
		{"NaN in N", []string{"1,100", "NaN,190", "4,340", "8,500"}, `row 2: "NaN", "190": want finite numbers`},
		{"Inf in X", []string{"1,100", "2,190", "4,+Inf", "8,500"}, `row 3: "4", "+Inf": want finite numbers`},
		{"flat data", []string{"1,500", "2,500", "4,500", "8,500"}, "throughput is 500 at every concurrency"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, stderr := runCmd("fit", writeCSV(t, tt.rows...))
			assert.Equal(t, 1, code, out)
			assert.Contains(t, stderr, tt.want)
			assert.NotContains(t, out, "peak")
		})
	}
}

// A peak far outside the measured concurrencies is not reported as a number.
func TestFitReportsAPeakOnlyNearTheMeasuredRange(t *testing.T) {
	code, out, stderr := runCmd("fit", writeCSV(t, "1,100", "2,199.9", "4,399.5", "8,798"))
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "peak N  not located: beyond 16 threads (2× the largest measured)")
	assert.Contains(t, out, "peak X  -")

	code, out, stderr = runCmd("fit", "../../internal/usl/testdata/codahale.csv")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "peak N  35.6 threads")
}

// README's run → fit example: a sweep with too few thread counts makes fit
// exit non-zero naming each series; it printed "cannot fit" and exited 0.
func TestFitOfASweepWithTooFewThreadCountsFails(t *testing.T) {
	csvPath := filepath.Join(t.TempDir(), "r.csv")
	code, out, stderr := runCmd("run", "--workload", "oltp_read_only", "--threads", "16,48", "--cpus", "4",
		"--measure", "10ms", "--csv", csvPath)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "usl peak")
	code, out, stderr = runCmd("fit", csvPath)
	assert.Equal(t, 1, code, out)
	assert.Contains(t, stderr, "cannot fit 1 of 1 series:\n  series cpus=4: want throughput at ≥ 4 distinct concurrencies")
}

// run's usl peak column says "-" where three thread counts would have given an
// exact interpolation (run --threads 1,2,4 printed "usl peak 548637818.9").
func TestRunPeakColumnNeedsEnoughThreadCounts(t *testing.T) {
	code, out, stderr := runCmd("run", "--workload", "connect", "--threads", "1,2,4", "--cpus", "4", "--measure", "10ms")
	require.Equal(t, 0, code, stderr)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	assert.True(t, strings.HasSuffix(lines[len(lines)-1], " -"), "no peak from three thread counts:\n%s", out)
}

// fit reads a bounded amount: /dev/zero used 3.1 GB in 10 s.
func TestFitBoundsItsInput(t *testing.T) {
	_, _, err := readFitInput(zeros{}, "/dev/zero", columns{n: 0, x: 1})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "/dev/zero: larger than 16777216 bytes")
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// A header that names its columns chooses them: "throughput,concurrency" was
// fitted with the columns swapped (λ 0.0126), and -n 2 -x 2 fitted a column
// against itself.
func TestFitReadsTheHeadersColumnNames(t *testing.T) {
	rows := []string{"throughput,concurrency"}
	for _, r := range [][2]string{{"100", "1"}, {"190", "2"}, {"340", "4"}, {"520", "8"}, {"600", "16"}, {"560", "32"}} {
		rows = append(rows, r[0]+","+r[1])
	}
	named := writeCSV(t, rows...)
	code, out, stderr := runCmd("fit", named)
	require.Equal(t, 0, code, stderr)
	swapped := writeCSV(t, append([]string{"concurrency,throughput"}, func() []string {
		var s []string
		for _, r := range rows[1:] {
			a, b, _ := strings.Cut(r, ",")
			s = append(s, b+","+a)
		}
		return s
	}()...)...)
	code, want, stderr := runCmd("fit", swapped)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, want, out, "the same points whatever the columns' order")
	assert.Contains(t, out, "lambda  10", "λ near the first point's 100/1")
	code, _, stderr = runCmd("fit", "-n", "2", "-x", "2", named)
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "-n and -x are both column 2")
}

// readFitJSON runs fit --json - on path and returns what it wrote.
func readFitJSON(t *testing.T, path string) fitJSON {
	t.Helper()
	code, out, stderr := runCmd("fit", "--json", "-", path)
	require.Equal(t, 0, code, stderr)
	var js fitJSON
	require.NoError(t, json.Unmarshal([]byte(out), &js), out)
	return js
}

// Rows at one concurrency combine into their mean: 80,000 rows at eight
// thread counts fit as the eight means do. fit scanned every row in every
// iteration of six Nelder-Mead passes and held every row in memory: a 16 MiB
// CSV of 1.4 million rows took 4 min 6 s and 296 MB.
func TestFitCombinesRowsAtOneConcurrency(t *testing.T) {
	curve := func(n float64) float64 { return 5000 * n / (1 + 0.1*(n-1) + 0.001*n*(n-1)) }
	var means, rows strings.Builder
	means.WriteString("concurrency,throughput\n")
	rows.WriteString("concurrency,throughput\n")
	for _, n := range []float64{1, 2, 4, 8, 16, 32, 64, 128} {
		fmt.Fprintf(&means, "%g,%g\n", n, curve(n))
	}
	for r := range 10_000 {
		for _, n := range []float64{1, 2, 4, 8, 16, 32, 64, 128} {
			fmt.Fprintf(&rows, "%g,%g\n", n, curve(n)*(1+0.01*float64(r%2*2-1)))
		}
	}
	dir := t.TempDir()
	meansPath, rowsPath := filepath.Join(dir, "means.csv"), filepath.Join(dir, "rows.csv")
	require.NoError(t, os.WriteFile(meansPath, []byte(means.String()), 0o644))
	require.NoError(t, os.WriteFile(rowsPath, []byte(rows.String()), 0o644))
	a, b := readFitJSON(t, meansPath).Series[0], readFitJSON(t, rowsPath).Series[0]
	assert.Equal(t, 8, a.Points)
	assert.Equal(t, 80_000, b.Points)
	assert.InDelta(t, a.Sigma, b.Sigma, 1e-4)
	assert.InDelta(t, a.Kappa, b.Kappa, 1e-6)
	assert.InEpsilon(t, a.Lambda, b.Lambda, 1e-3)
	require.NotNil(t, b.PeakThreads)
	assert.InDelta(t, 30, *b.PeakThreads, 0.5)
}

// Ctrl-C stops fit: it ran on for minutes.
func TestFitStopsWhenInterrupted(t *testing.T) {
	var rows strings.Builder
	for n := 1; n <= 20_000; n++ { // every row its own concurrency
		fmt.Fprintf(&rows, "%d,%g\n", n, 100*float64(n)/(1+0.05*float64(n-1)+1e-5*float64(n*(n-1))))
	}
	path := filepath.Join(t.TempDir(), "p.csv")
	require.NoError(t, os.WriteFile(path, []byte(rows.String()), 0o644))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errOut bytes.Buffer
	assert.Equal(t, 1, run(ctx, []string{"fit", path}, &out, &errOut))
	assert.Contains(t, errOut.String(), "innosim fit: interrupted: context canceled")
	assert.Empty(t, out.String())
}

// fit writes JSON as every command does: --json FILE beside the text, --json
// - on stdout instead of it; a curve that cannot be fitted says why there too.
func TestFitWritesJSON(t *testing.T) {
	js := readFitJSON(t, "../../internal/usl/testdata/codahale.csv")
	require.Len(t, js.Series, 1)
	s := js.Series[0]
	assert.Equal(t, 32, s.Points)
	assert.InEpsilon(t, 0.0267, s.Sigma, 0.01)
	require.NotNil(t, s.PeakThreads)
	assert.InDelta(t, 35.6, *s.PeakThreads, 0.1)

	path := filepath.Join(t.TempDir(), "fit.json")
	code, out, stderr := runCmd("fit", "--json", path, "../../internal/usl/testdata/codahale.csv")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "sigma   0.0267", "the text as without --json")
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"peak_threads": 35.57`)

	code, out, stderr = runCmd("fit", "--json", "-", writeCSV(t, "1,100", "2,190"))
	assert.Equal(t, 1, code)
	assert.Contains(t, out, `"error": "want throughput at ≥ 4 distinct concurrencies (one more than the model's 3 parameters), got 2"`)
	assert.True(t, strings.HasSuffix(stderr, "got 2\n"), "no sentinel's text after the reason: %s", stderr)
}

// A concurrency of 1e12 was fitted, and a peak of 2.2 million threads
// printed; one of -1 was refused in the USL package's terms. Each names the
// column's flag and the range.
func TestFitRefusesAConcurrencyOutOfRange(t *testing.T) {
	for _, n := range []string{"1e12", "-1", "0.5"} {
		p := filepath.Join(t.TempDir(), "r.csv")
		require.NoError(t, os.WriteFile(p, []byte("concurrency,throughput\n1,100\n2,190\n4,350\n"+n+",400\n"), 0o644))
		code, stdout, stderr := runCmd("fit", p)
		assert.Equal(t, 1, code, stdout)
		assert.Contains(t, stderr, "row 5: concurrency "+strings.Replace(n, "1e12", "1e+12", 1)+" (column -n 1): want 1..1000000")
	}
}
