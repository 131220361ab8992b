package benchcmp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/innosim/innosim/internal/cmdflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func parseTestdata(t *testing.T, name string) *File {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	require.NoError(t, err)
	defer f.Close()
	pf, err := Parse(f, name)
	require.NoError(t, err)
	return pf
}

func compareTestdata(t *testing.T, old, new string) (*Report, string) {
	t.Helper()
	r, err := Compare(parseTestdata(t, old), parseTestdata(t, new))
	require.NoError(t, err)
	var b bytes.Buffer
	_, err = r.WriteTo(&b)
	require.NoError(t, err)
	return r, b.String()
}

// Study C: the same code on a new kernel is slower, and that is not a verdict.
func TestCompareKernelOnlyDifferenceGivesNoVerdict(t *testing.T) {
	r, out := compareTestdata(t, "kernel_old.txt", "kernel_new.txt")
	require.Equal(t, []EnvDiff{{Key: "kernel", Old: []string{"5.4.0-91-generic"}, New: []string{"5.11.0-41-generic"}}}, r.EnvDiffs)
	require.Equal(t, NotJudged, r.Verdict)
	for _, c := range r.Changes {
		require.Equal(t, NotJudged, c.Verdict, c.Key.Name)
	}
	require.Contains(t, out, "environments differ")
	require.Contains(t, out, `kernel: "5.4.0-91-generic" -> "5.11.0-41-generic"`)
	require.Contains(t, out, "verdict: none, environments differ (kernel)\n")
	require.NotContains(t, out, "regression", "no word of a regression across environments")
}

func TestCompareSameEnvironment(t *testing.T) {
	tests := []struct {
		name        string
		old, new    string
		wantVerdict Verdict
		wantTime    Verdict // verdict for sec/op of every benchmark
		wantRatio   float64 // sec/op ratio, roughly
	}{
		{"a 2x slowdown is a significant regression", "same_old.txt", "same_slow.txt", Regression, Regression, 2},
		{"a 2x speedup is a significant improvement", "same_slow.txt", "same_old.txt", Improvement, Improvement, 0.5},
		{"two runs of the same code agree", "same_old.txt", "same_again.txt", NoChange, NoChange, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, out := compareTestdata(t, tt.old, tt.new)
			require.Empty(t, r.EnvDiffs)
			require.Equal(t, tt.wantVerdict, r.Verdict)
			require.Contains(t, out, "environments match")
			require.Contains(t, out, "verdict: "+string(tt.wantVerdict))
			n := 0
			for _, c := range r.Changes {
				if c.Unit != "sec/op" {
					continue
				}
				n++
				require.Equal(t, tt.wantTime, c.Verdict, c.Key.Name)
				require.InDelta(t, tt.wantRatio, c.Ratio, 0.1*tt.wantRatio, c.Key.Name)
				require.Equal(t, 10, c.OldN)
				require.Equal(t, 10, c.NewN)
				if tt.wantTime != NoChange {
					require.Less(t, c.P, Alpha)
					require.True(t, c.Lo <= c.Ratio && c.Ratio <= c.Hi, "interval [%v, %v] holds %v", c.Lo, c.Hi, c.Ratio)
					require.False(t, c.Lo <= 1 && 1 <= c.Hi, "a significant change's interval excludes no change")
				}
			}
			require.Equal(t, 3, n)
		})
	}
}

func TestCompareFutexShareLowerIsBetter(t *testing.T) {
	old := "BenchmarkX-2 1 100 ns/op 10 futex-share\n"
	new := "BenchmarkX-2 1 100 ns/op 50 futex-share\n"
	r, err := Compare(mustParse(t, "old.txt", strings.Repeat(old, 8)), mustParse(t, "new.txt", strings.Repeat(new, 8)))
	require.NoError(t, err)
	got := map[string]Verdict{}
	for _, c := range r.Changes {
		got[c.Unit] = c.Verdict
	}
	require.Equal(t, map[string]Verdict{"sec/op": NoChange, "futex-share": Regression}, got)
}

func TestCompareUnknownUnitIsChangedNotRegression(t *testing.T) {
	r, err := Compare(mustParse(t, "old.txt", strings.Repeat("BenchmarkX 1 5 widgets\n", 8)),
		mustParse(t, "new.txt", strings.Repeat("BenchmarkX 1 9 widgets\n", 8)))
	require.NoError(t, err)
	require.Equal(t, Changed, r.Verdict)
}

func TestCompareMissingEnvironmentKeyDiffers(t *testing.T) {
	r, err := Compare(mustParse(t, "old.txt", "kernel: 6.1\nBenchmarkX 1 5 ns/op\n"), mustParse(t, "new.txt", "BenchmarkX 1 5 ns/op\n"))
	require.NoError(t, err)
	require.Equal(t, []EnvDiff{{Key: "kernel", Old: []string{"6.1"}}}, r.EnvDiffs)
	require.Equal(t, NotJudged, r.Verdict)
}

func TestCompareIgnoresNonEnvironmentKeys(t *testing.T) {
	r, err := Compare(mustParse(t, "old.txt", "commit: aaa\nBenchmarkX 1 5 ns/op\n"), mustParse(t, "new.txt", "commit: bbb\nBenchmarkX 1 5 ns/op\n"))
	require.NoError(t, err)
	require.Empty(t, r.EnvDiffs)
	require.Equal(t, TooFewSamples, r.Verdict, "one sample a side")
}

func TestCompareListsOneSidedBenchmarks(t *testing.T) {
	r, err := Compare(mustParse(t, "old.txt", "BenchmarkA 1 5 ns/op\nBenchmarkB 1 5 ns/op\n"), mustParse(t, "new.txt", "BenchmarkB 1 5 ns/op\nBenchmarkC 1 5 ns/op\n"))
	require.NoError(t, err)
	require.Equal(t, []Key{{Name: "A"}}, r.OnlyOld)
	require.Equal(t, []Key{{Name: "C"}}, r.OnlyNew)
	require.Len(t, r.Changes, 1)
}

func TestCompareUnitsDifferBetweenFiles(t *testing.T) {
	_, err := Compare(mustParse(t, "old.txt", "x: 1\nBenchmarkA 1 5 ns/op\n"), mustParse(t, "new.txt", "\n\nBenchmarkA 1 5 MB/s\n"))
	require.ErrorIs(t, err, ErrUnitMismatch)
	require.Contains(t, err.Error(), "old.txt:2 and new.txt:3")
}

func mustParse(t *testing.T, name, s string) *File {
	t.Helper()
	f, err := Parse(strings.NewReader(s), name)
	require.NoError(t, err)
	return f
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name    string
		input   string
		wantErr error
		wantMsg string
	}{
		{"empty file", "", ErrNoResults, "in.txt: no benchmark results"},
		{"only configuration", "goos: linux\nPASS\n", ErrNoResults, "in.txt: no benchmark results"},
		{"missing units", "BenchmarkA 10 5 ns/op\nBenchmarkA 10 5\n", ErrMalformed, "in.txt:2: malformed benchmark line: missing units"},
		{"missing measurements", "BenchmarkA 10\n", ErrMalformed, "in.txt:1: malformed benchmark line: missing measurements"},
		{"bad iteration count", "goos: linux\nBenchmarkA ten 5 ns/op\n", ErrMalformed, "in.txt:2:"},
		{"zero iterations", "BenchmarkA 0 5 ns/op\n", ErrMalformed, "in.txt:1: malformed benchmark line: iteration count 0"},
		{"not a number", "BenchmarkA 1 five ns/op\n", ErrMalformed, "in.txt:1:"},
		{"NaN", "BenchmarkA 1 NaN ns/op\n", ErrMalformed, "in.txt:1: malformed benchmark line: NaN"},
		{"negative", "BenchmarkA 1 -5 ns/op\n", ErrMalformed, "in.txt:1: malformed benchmark line: -5e-09 sec/op is negative, want ≥ 0"},
		{"truncated last line", "BenchmarkA 1 5 ns/op\nBenchmarkA 1 5 ns/o", ErrMalformed, "in.txt:2: malformed benchmark line: truncated"},
		{"a unit twice on one line", "BenchmarkA 1 5 ns/op 6 ns/op\n", ErrMalformed, "in.txt:1: malformed benchmark line: unit sec/op twice"},
		{"units change within a file", "BenchmarkA 1 5 ns/op\nBenchmarkA 1 5 ns/op 3 B/op\n", ErrUnitMismatch,
			"in.txt:2: benchmark units differ: A reports sec/op, B/op here but sec/op at line 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(tt.input), "in.txt")
			require.Error(t, err)
			require.True(t, errors.Is(err, tt.wantErr), "got %v", err)
			require.Contains(t, err.Error(), tt.wantMsg)
		})
	}
}

// benchfmt tidies 5 ns/op to sec/op but leaves 0 ns/op as it is; both must land
// in one unit.
func TestParseTidiesZeroValues(t *testing.T) {
	f, err := Parse(strings.NewReader("BenchmarkA 1 0 ns/op\nBenchmarkA 1 5 ns/op\n"), "in.txt")
	require.NoError(t, err)
	require.Equal(t, []string{"sec/op"}, f.Benchmarks[0].Units)
	require.InDeltaSlice(t, []float64{0, 5e-9}, f.Benchmarks[0].Value["sec/op"], 1e-15)
}

func TestParseGroupsByPackageAndName(t *testing.T) {
	in := `pkg: a
BenchmarkX-2 10 5 ns/op
BenchmarkX-2 10 6 ns/op
pkg: b
BenchmarkX-2 10 7 ns/op
BenchmarkX-4 10 8 ns/op
BenchmarkX-2	10	9 ns/op
`
	f, err := Parse(strings.NewReader(in), "in.txt")
	require.NoError(t, err)
	require.Len(t, f.Benchmarks, 3)
	require.InDeltaSlice(t, []float64{5e-9, 6e-9}, f.Lookup(Key{"a", "X-2"}).Value["sec/op"], 1e-15)
	require.InDeltaSlice(t, []float64{7e-9, 9e-9}, f.Lookup(Key{"b", "X-2"}).Value["sec/op"], 1e-15)
	require.Equal(t, 5, f.Results())
}

// errUsage in a test's table stands for a *cmdflag.UsageError.
var errUsage = errors.New("usage")

func TestRun(t *testing.T) {
	td := func(name string) string { return filepath.Join("testdata", name) }
	tests := []struct {
		name    string
		args    []string
		wantErr error
		wantOut string
	}{
		{"kernel differs", []string{td("kernel_old.txt"), td("kernel_new.txt")}, nil, "verdict: none, environments differ (kernel)"},
		{"regression without -fail", []string{td("same_old.txt"), td("same_slow.txt")}, nil, "verdict: regression"},
		{"regression with -fail", []string{"-fail", td("same_old.txt"), td("same_slow.txt")}, ErrRegression, "verdict: regression"},
		// -fail asked for a verdict; across environments there is none, and
		// exit 0 would read as a pass
		{"-fail across environments is no pass", []string{"-fail", td("kernel_old.txt"), td("kernel_new.txt")}, ErrNotJudged, "environments differ"},
		{"one file", []string{td("same_old.txt")}, errUsage, ""},
		{"missing file", []string{td("same_old.txt"), td("nope.txt")}, os.ErrNotExist, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			err := Run(tt.args, &out, &errOut)
			switch tt.wantErr {
			case nil:
				require.NoError(t, err)
			case errUsage:
				require.True(t, cmdflag.IsUsage(err), "%v", err)
			default:
				require.ErrorIs(t, err, tt.wantErr)
			}
			require.Contains(t, out.String(), tt.wantOut)
		})
	}
}

// Two outliers in the old run leave the U test significant but the medians'
// intervals overlapping: not enough to call a change, and not a verdict of no
// change either (it used to say "no significant change" beside p < 0.05).
func TestCompareSignificantPButOverlappingIntervalIsInconclusive(t *testing.T) {
	var old, new strings.Builder
	for i, v := range []int{1, 2, 3, 4, 5, 6, 7, 8, 1000, 1001} {
		fmt.Fprintf(&old, "BenchmarkA 1 %d ns/op\n", v)
		fmt.Fprintf(&new, "BenchmarkA 1 %d ns/op\n", 9+i)
	}
	r, err := Compare(mustParse(t, "old.txt", old.String()), mustParse(t, "new.txt", new.String()))
	require.NoError(t, err)
	require.Len(t, r.Changes, 1)
	c := r.Changes[0]
	require.Less(t, c.P, Alpha, "the case needs a significant U test")
	require.True(t, c.Lo <= 1 && 1 <= c.Hi, "the case needs an interval holding no change: [%v, %v]", c.Lo, c.Hi)
	require.Equal(t, Inconclusive, c.Verdict)
	require.Equal(t, Inconclusive, r.Verdict)
	out := report(t, r)
	require.Contains(t, out, "inconclusive [1]\n[1] inconclusive: p < 0.05 but the 95% interval of the change includes 0%")
	require.Contains(t, out, "verdict: inconclusive (0 regression, 0 improvement, 0 changed, 0 unchanged, 1 inconclusive of 1)")
}

func report(t *testing.T, r *Report) string {
	t.Helper()
	var b bytes.Buffer
	_, err := r.WriteTo(&b)
	require.NoError(t, err)
	return b.String()
}

// Fewer than 6 samples a side give no verdict: 5+5 samples 55% apart reach p =
// 0.008, and the report said "no significant change" with an interval of
// [-100.0%, +inf] and the same footnote twice.
func TestCompareTooFewSamples(t *testing.T) {
	var old, new strings.Builder
	for i := range 5 {
		fmt.Fprintf(&old, "BenchmarkX-2 1000 %d ns/op\n", 101+i)
		fmt.Fprintf(&new, "BenchmarkX-2 1000 %d ns/op\n", 44+i)
	}
	r, err := Compare(mustParse(t, "old.txt", old.String()), mustParse(t, "new.txt", new.String()))
	require.NoError(t, err)
	require.Len(t, r.Changes, 1)
	require.Less(t, r.Changes[0].P, Alpha)
	require.Equal(t, TooFewSamples, r.Changes[0].Verdict)
	require.Equal(t, TooFewSamples, r.Verdict)
	out := report(t, r)
	require.NotContains(t, out, "no significant change")
	require.NotContains(t, out, "+inf")
	require.Contains(t, out, "-55.3%  -  ")
	require.Contains(t, out, "too few samples (n < 6) [1]\n")
	require.NotContains(t, out, "[1] [1]")
	require.Contains(t, out, "verdict: too few samples (n < 6) (0 regression, 0 improvement, 0 changed, 0 unchanged, 1 with too few samples of 1)")
}

// A new allocation is a regression: 0 allocs/op in every old sample and 1 in
// every new one was "inconclusive", its change "?", because the ratio of the
// old interval's bound 0 was taken as unknown.
func TestCompareFromZeroIsAChange(t *testing.T) {
	var old, new strings.Builder
	for i := range 8 {
		fmt.Fprintf(&old, "BenchmarkX-2 1000 %d ns/op 0 B/op 0 allocs/op\n", 100+i%2)
		fmt.Fprintf(&new, "BenchmarkX-2 1000 %d ns/op 16 B/op 1 allocs/op\n", 100+i%2)
	}
	r, err := Compare(mustParse(t, "old.txt", old.String()), mustParse(t, "new.txt", new.String()))
	require.NoError(t, err)
	byUnit := map[string]Change{}
	for _, c := range r.Changes {
		byUnit[c.Unit] = c
	}
	for _, unit := range []string{"B/op", "allocs/op"} {
		c := byUnit[unit]
		require.Equal(t, Regression, c.Verdict, unit)
		require.True(t, math.IsInf(c.Ratio, 1), "%s ratio %v", unit, c.Ratio)
	}
	require.Equal(t, Regression, r.Verdict)
	require.Contains(t, report(t, r), "+inf")
}

// A benchmark run at another GOMAXPROCS has another name suffix:
// that is an environment difference, not two unrelated benchmarks ("no
// benchmark in both files").
func TestCompareDifferentGOMAXPROCSIsAnEnvironmentDifference(t *testing.T) {
	var old, new strings.Builder
	for i := range 6 {
		fmt.Fprintf(&old, "BenchmarkX-2 1000 %d ns/op\nBenchmarkY/n=1-2 1000 %d ns/op\nBenchmarkOnlyOld-2 1 1 ns/op\n", 100+i, 10+i)
		fmt.Fprintf(&new, "BenchmarkX-4 1000 %d ns/op\nBenchmarkY/n=1-4 1000 %d ns/op\n", 200+i, 10+i)
	}
	r, err := Compare(mustParse(t, "old.txt", old.String()), mustParse(t, "new.txt", new.String()))
	require.NoError(t, err)
	require.Equal(t, []EnvDiff{{Key: "gomaxprocs", Old: []string{"2"}, New: []string{"4"}}}, r.EnvDiffs)
	require.Equal(t, NotJudged, r.Verdict)
	require.Len(t, r.Changes, 2)
	require.Equal(t, []Key{{Name: "OnlyOld-2"}}, r.OnlyOld)
	require.Contains(t, report(t, r), "environments differ:\n  gomaxprocs: \"2\" -> \"4\"\n")
	// the row names both files' benchmarks, not only the new one's
	require.Contains(t, report(t, r), "X-2 vs X-4 ")

	// go test -cpu 1,2 in both: every benchmark matches its own GOMAXPROCS
	both := "BenchmarkX 1 5 ns/op\nBenchmarkX-2 1 5 ns/op\n"
	r, err = Compare(mustParse(t, "old.txt", both), mustParse(t, "new.txt", both))
	require.NoError(t, err)
	require.Empty(t, r.EnvDiffs)
	require.Len(t, r.Changes, 2)
}

func TestCompareNamesEveryDifferingEnvironmentKey(t *testing.T) {
	tests := []struct {
		name     string
		old, new string
		wantKeys []string
	}{
		{"a mitigation changed", "vuln-spectre_v2: Mitigation: Retpolines\n", "vuln-spectre_v2: Mitigation: Enhanced IBRS\n", []string{"vuln-spectre_v2"}},
		{"fewer cores and a quota", "gomaxprocs: 8\ncpu-quota: none\n", "gomaxprocs: 2\ncpu-quota: 2 cpus (200000/100000 us)\n", []string{"cpu-quota", "gomaxprocs"}},
		{"a GODEBUG setting", "godebug: none\n", "godebug: asyncpreemptoff=1\n", []string{"godebug"}},
		{"same environment, different commit", "commit: a\nkernel: 6.1\n", "commit: b\nkernel: 6.1\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Compare(mustParse(t, "old.txt", tt.old+"BenchmarkA 1 5 ns/op\n"), mustParse(t, "new.txt", tt.new+"BenchmarkA 1 5 ns/op\n"))
			require.NoError(t, err)
			var keys []string
			for _, d := range r.EnvDiffs {
				keys = append(keys, d.Key)
			}
			require.Equal(t, tt.wantKeys, keys)
			if tt.wantKeys != nil {
				require.Equal(t, NotJudged, r.Verdict)
			} else {
				require.Equal(t, TooFewSamples, r.Verdict, "one sample a side")
			}
		})
	}
}

// Two files that share no benchmark (every benchmark renamed, or the wrong file)
// have nothing to compare: that is an error, never a clean "no significant
// change" that a CI step with -fail would pass.
func TestCompareNothingInCommonIsAnError(t *testing.T) {
	tests := []struct {
		name     string
		old, new string
	}{
		{"renamed", "BenchmarkA 1 5 ns/op\n", "BenchmarkB 1 5 ns/op\n"},
		{"same name in another package", "pkg: a\nBenchmarkA 1 5 ns/op\n", "pkg: b\nBenchmarkA 1 5 ns/op\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Compare(mustParse(t, "old.txt", tt.old), mustParse(t, "new.txt", tt.new))
			require.ErrorIs(t, err, ErrNothingInCommon)
			require.Contains(t, err.Error(), "old.txt and new.txt")
		})
	}
}

// endless is an input that never ends, as /dev/zero or a runaway pipe.
type endless struct{ read int64 }

func (e *endless) Read(p []byte) (int, error) {
	clear(p)
	e.read += int64(len(p))
	return len(p), nil
}

// compare reads its inputs within a bound: an endless input is refused
// after the bound and one byte, never read whole.
func TestParseRefusesAnEndlessInputAfterTheBound(t *testing.T) {
	e := &endless{}
	_, err := parseBounded(e, "/dev/zero", 64<<10)
	require.ErrorIs(t, err, ErrMalformed)
	require.ErrorContains(t, err, "/dev/zero: larger than 65536 bytes")
	require.Equal(t, int64(64<<10+1), e.read, "read exactly the bound and one byte")
}

// -json writes the comparison as every command writes JSON: -json FILE
// beside the text, -json - on stdout instead of it. compare had no JSON.
func TestRunWritesJSON(t *testing.T) {
	td := func(name string) string { return filepath.Join("testdata", name) }
	var out, errOut bytes.Buffer
	require.NoError(t, Run([]string{"-json", "-", td("same_old.txt"), td("same_slow.txt")}, &out, &errOut))
	var js reportJSON
	require.NoError(t, json.Unmarshal(out.Bytes(), &js), out.String())
	assert.Equal(t, Regression, js.Verdict)
	require.NotEmpty(t, js.Changes)
	assert.Equal(t, "sec/op", js.Changes[0].Unit)
	require.NotNil(t, js.Changes[0].Ratio)
	assert.Greater(t, *js.Changes[0].Ratio, 1.0)

	path := filepath.Join(t.TempDir(), "cmp.json")
	out.Reset()
	require.NoError(t, Run([]string{"-json", path, td("kernel_old.txt"), td("kernel_new.txt")}, &out, &errOut))
	assert.Contains(t, out.String(), "verdict: none, environments differ (kernel)", "the text as without -json")
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &js))
	assert.Equal(t, NotJudged, js.Verdict)
	require.Len(t, js.EnvDiffs, 1)
	assert.Equal(t, "kernel", js.EnvDiffs[0].Key)
}
