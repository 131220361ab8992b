package validate

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// capped is a predicted table with one check, "capped", that passes when
// pass is true, and one cell simulated at sim against a published 100 with a
// bound of ×1.5.
func capped(sim float64, pass bool, detail string) Table {
	return Table{Name: "capped table", Source: "a test", MaxAbsLog: math.Log(1.5),
		Rows:   []Row{{Label: "cell a", Published: 100, Simulated: sim}},
		Checks: []Check{{Name: "capped", Pass: pass, Detail: detail}}}
}

// summaryRow returns the summary line of the table named name in out.
func summaryRow(t *testing.T, out, name string) string {
	t.Helper()
	_, sum, ok := strings.Cut(out, "\nSummary")
	require.True(t, ok, "no summary in %q", out)
	for _, l := range strings.Split(sum, "\n") {
		if strings.HasPrefix(l, name) {
			return l
		}
	}
	t.Fatalf("no summary row for %q in %q", name, sum)
	return ""
}

func TestWriteSeedsReportsAVerdictThatFlipsWithTheSeedAsAMissAtThatSeed(t *testing.T) {
	var b bytes.Buffer
	missed, err := WriteSeeds(&b, []uint64{1, 2, 3}, [][]Table{
		{capped(110, true, "1,600")},
		{capped(120, false, "1,700")},
		{capped(105, true, "1,550")},
	})
	require.NoError(t, err)
	out := b.String()
	assert.True(t, missed, "a check that fails at seed 2 is a miss, though it holds at seeds 1 and 3")
	assert.Regexp(t, `MISS at seed 2\s*$`, summaryRow(t, out, "capped table"))
	assert.Contains(t, out, "check FAIL capped (seed 1 ok: 1,600; seed 2 FAIL: 1,700; seed 3 ok: 1,550)")
	assert.Contains(t, out, "MISS at seed 2: capped\n")
	assert.NotContains(t, out, "MISS at seed 1")
	assert.NotContains(t, out, "MISS at seed 3")
}

func TestWriteSeedsReportsACellOutsideItsBoundAtOneSeedAsAMiss(t *testing.T) {
	var b bytes.Buffer
	missed, err := WriteSeeds(&b, []uint64{7, 8}, [][]Table{
		{capped(160, true, "")}, // ×1.60, outside ×1.5
		{capped(140, true, "")},
	})
	require.NoError(t, err)
	assert.True(t, missed)
	assert.Regexp(t, `MISS at seed 7\s*$`, summaryRow(t, b.String(), "capped table"))
	assert.Contains(t, b.String(), "MISS at seed 7: worst cell cell a off by ×1.60, bound ×1.50")
}

func TestWriteSeedsHoldsOnlyWhatHoldsAtEverySeedAndSaysMissWhenItMissesAtAll(t *testing.T) {
	var b bytes.Buffer
	missed, err := WriteSeeds(&b, []uint64{1, 2}, [][]Table{
		{capped(110, true, "x"), capped(200, false, "y")},
		{capped(120, true, "x"), capped(190, false, "z")},
	})
	require.NoError(t, err)
	assert.True(t, missed)
	out := b.String()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	assert.Regexp(t, `holds\s*$`, lines[len(lines)-2], "the first table holds at both seeds")
	assert.Regexp(t, `\bMISS\s*$`, lines[len(lines)-1], "the second misses at both seeds: a plain MISS")
	assert.Contains(t, out, "check FAIL capped (y)\n", "a check that fails at every seed keeps the first seed's detail")
	assert.Contains(t, out, "MISS at seed 1: ")
	assert.Contains(t, out, "MISS at seed 2: ")

	b.Reset()
	fit := func(sim float64) Table {
		return Table{Name: "fit", Use: Fitted, Rows: []Row{{Label: "x", Published: 1, Simulated: sim}}, MaxAbsLog: math.Log(1.1)}
	}
	missed, err = WriteSeeds(&b, []uint64{1, 2}, [][]Table{{fit(1)}, {fit(3)}})
	require.NoError(t, err)
	assert.False(t, missed, "a fitted table never misses, at any seed")
	assert.Regexp(t, `fitted\s*$`, summaryRow(t, b.String(), "fit"))
}

func TestWriteSeedsShowsEachCellsAndTheMeanErrorsRangeOverTheSeeds(t *testing.T) {
	var b bytes.Buffer
	_, err := WriteSeeds(&b, []uint64{1, 2, 3}, [][]Table{
		{capped(110, true, "")},
		{capped(90, true, "")},
		{capped(125, true, "")},
	})
	require.NoError(t, err)
	out := b.String()
	assert.Regexp(t, `(?m)^cell a +100\.0 +110\.0 +1\.10 +90\.0 +125\.0$`, out, "first seed's figures, then the least and greatest simulated")
	// |log| 0.095 at seed 1 (×1.10), 0.105 at seed 2 (×0.90), 0.223 at seed 3 (×1.25)
	assert.Contains(t, out, "mean |log(sim/pub)| 0.095 (over the seeds 0.095 to 0.223)")
	assert.Regexp(t, `^capped table +predicted +1 +- +0\.095 +0\.095 +0\.223 +cell a \(×1\.10\) +holds`, summaryRow(t, out, "capped table"))
}

// A cell that is NaN at one seed (0/0) leaves the other seeds' range: the
// built-in min and max gave NaN for both, beside a first seed's number.
func TestWriteSeedsRangePassesOverANaNSeed(t *testing.T) {
	var b bytes.Buffer
	_, err := WriteSeeds(&b, []uint64{1, 2, 3}, [][]Table{
		{capped(110, true, "")},
		{capped(math.NaN(), true, "")},
		{capped(125, true, "")},
	})
	require.NoError(t, err)
	assert.Regexp(t, `(?m)^cell a +100\.0 +110\.0 +1\.10 +110\.0 +125\.0$`, b.String())
}

// With one seed the output is Write's, so a run without --seeds keeps its
// golden files.
func TestWriteSeedsWithOneSeedIsWrite(t *testing.T) {
	tables := []Table{capped(160, false, "d"), {Name: "fit", Use: Fitted, Ratio: true, Rows: []Row{{Label: "x", Published: 2, Simulated: 0.5}}}}
	var want, got bytes.Buffer
	wantMissed, err := Write(&want, tables)
	require.NoError(t, err)
	missed, err := WriteSeeds(&got, []uint64{5}, [][]Table{tables})
	require.NoError(t, err)
	assert.Equal(t, wantMissed, missed)
	assert.Equal(t, want.String(), got.String())
}

func TestWriteSeedsRefusesRunsItCannotLineUp(t *testing.T) {
	a := capped(100, true, "")
	renamed := a
	renamed.Checks = []Check{{Name: "another claim", Pass: true}}
	moreRows := a
	moreRows.Rows = append(slices.Clone(a.Rows), Row{Label: "b", Simulated: 1})
	for _, c := range []struct {
		name  string
		seeds []uint64
		runs  [][]Table
		want  string
	}{
		{"no seed", nil, nil, "no seed: want at least one"},
		{"fewer runs than seeds", []uint64{1, 2}, [][]Table{{a}}, "1 runs of tables for 2 seeds"},
		{"a seed given twice", []uint64{1, 2, 1}, [][]Table{{a}, {a}, {a}}, "seed 1 given twice: want each seed once"},
		{"a table missing at one seed", []uint64{1, 2}, [][]Table{{a, a}, {a}}, "1 tables at seed 2, 2 at seed 1"},
		{"a check of another name", []uint64{1, 2}, [][]Table{{a}, {renamed}}, `table 1 ("capped table") at seed 2 differs`},
		{"a row more", []uint64{1, 2}, [][]Table{{a}, {moreRows}}, `table 1 ("capped table") at seed 2 differs`},
	} {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			_, err := WriteSeeds(&b, c.seeds, c.runs)
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
			assert.Empty(t, b.String(), "nothing is written before the error")
		})
	}
}
