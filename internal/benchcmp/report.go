package benchcmp

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"

	"golang.org/x/perf/benchunit"
)

// WriteTo writes the report as text: the environment check, one line per
// benchmark and unit, the benchmarks found in one file only, warnings, and a
// final "verdict:" line. When the environments differ the output names the
// differing keys and never uses the word for a slowdown verdict, so a script that
// greps for it cannot be fooled.
func (r *Report) WriteTo(w io.Writer) (int64, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "old: %s (%d results)\nnew: %s (%d results)\n", r.OldName, r.OldResults, r.NewName, r.NewResults)
	if len(r.EnvDiffs) > 0 {
		b.WriteString("environments differ:\n")
		for _, d := range r.EnvDiffs {
			fmt.Fprintf(&b, "  %s: %s -> %s\n", d.Key, values(d.Old), values(d.New))
		}
		b.WriteString("changes below are between two environments, not between two versions of the code;\n" +
			"re-run old and new on one environment for a verdict.\n")
	} else {
		b.WriteString("environments match\n")
	}
	b.WriteByte('\n')

	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "benchmark\tunit\told\tnew\tchange\t95% interval\tp (n)\tverdict")
	var notes []string
	for _, c := range r.Changes {
		var marks []string
		for _, w := range c.Warnings {
			notes = appendNote(&marks, notes, w.Error())
		}
		name := c.Key.Name
		if c.OldKey.Name != "" && c.OldKey.Name != name {
			name = c.OldKey.Name + " vs " + name // paired across -GOMAXPROCS suffixes
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s (%d+%d)\t%s%s\n",
			name, c.Unit, summary(c.Unit, c.Old.Center, c.Old.PctRangeString()),
			summary(c.Unit, c.New.Center, c.New.PctRangeString()), pct(c.Ratio),
			interval(c), pValue(c.P), c.OldN, c.NewN, c.Verdict, strings.Join(marks, ""))
	}
	if err := tw.Flush(); err != nil {
		return 0, fmt.Errorf("benchcmp: format report: %w", err)
	}
	for _, k := range r.OnlyOld {
		fmt.Fprintf(&b, "only in old: %s\n", k.Name)
	}
	for _, k := range r.OnlyNew {
		fmt.Fprintf(&b, "only in new: %s\n", k.Name)
	}
	for i, n := range notes {
		fmt.Fprintf(&b, "[%d] %s\n", i+1, n)
	}
	b.WriteString(r.verdictLine())
	n, err := io.WriteString(w, b.String())
	if err != nil {
		return int64(n), fmt.Errorf("benchcmp: write report: %w", err)
	}
	return int64(n), nil
}

// verdictLine is the last line of the report.
func (r *Report) verdictLine() string {
	if r.Verdict == NotJudged {
		keys := make([]string, len(r.EnvDiffs))
		for i, d := range r.EnvDiffs {
			keys[i] = d.Key
		}
		return "verdict: none, environments differ (" + strings.Join(keys, ", ") + ")\n"
	}
	count := map[Verdict]int{}
	for _, c := range r.Changes {
		count[c.Verdict]++
	}
	extra := ""
	if n := count[Inconclusive]; n > 0 {
		extra += fmt.Sprintf(", %d inconclusive", n)
	}
	if n := count[TooFewSamples]; n > 0 {
		extra += fmt.Sprintf(", %d with too few samples", n)
	}
	return fmt.Sprintf("verdict: %s (%d regression, %d improvement, %d changed, %d unchanged%s of %d)\n",
		r.Verdict, count[Regression], count[Improvement], count[Changed], count[NoChange], extra, len(r.Changes))
}

// appendNote numbers note, reusing the number of an identical earlier note, and
// appends its mark to marks unless marks already holds it (the old and the new
// sample often carry the same warning).
func appendNote(marks *[]string, notes []string, note string) []string {
	i := slices.Index(notes, note)
	if i < 0 {
		notes = append(notes, note)
		i = len(notes) - 1
	}
	if mark := fmt.Sprintf(" [%d]", i+1); !slices.Contains(*marks, mark) {
		*marks = append(*marks, mark)
	}
	return notes
}

// interval formats the change's 95% interval, or "-" when it is unbounded
// (fewer than MinSamples on a side, or an old lower bound of 0): an interval of
// [-100%, +inf] says nothing a dash does not.
func interval(c Change) string {
	if c.OldN < MinSamples || c.NewN < MinSamples || math.IsInf(c.Hi, 0) || math.IsNaN(c.Lo) || math.IsNaN(c.Hi) {
		return "-"
	}
	return "[" + pct(c.Lo) + ", " + pct(c.Hi) + "]"
}

func values(v []string) string {
	if v == nil {
		return "(absent)"
	}
	return fmt.Sprintf("%q", strings.Join(v, " | "))
}

func summary(unit string, center float64, rng string) string {
	return benchunit.Scale(center, benchunit.ClassOf(unit)) + " ± " + rng
}

// pct formats a ratio as a signed percent change; ±Inf and NaN as unbounded.
func pct(ratio float64) string {
	switch {
	case math.IsNaN(ratio):
		return "?"
	case math.IsInf(ratio, 1):
		return "+inf"
	case math.IsInf(ratio, -1):
		return "-inf"
	}
	return fmt.Sprintf("%+.1f%%", (ratio-1)*100)
}

// pValue formats p as benchstat does, with "p<0.001" for the smallest.
func pValue(p float64) string {
	if p < 0.001 {
		return "p<0.001"
	}
	return fmt.Sprintf("p=%.3f", p)
}
