package benchcmp

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"golang.org/x/perf/benchmath"
)

// Alpha is the significance level below which a Mann-Whitney p-value counts as a
// change, benchstat's default (benchmath.DefaultThresholds).
const Alpha = 0.05

// Confidence is the level of the medians' confidence intervals, benchstat's 0.95.
const Confidence = 0.95

// Verdict is the judgement on one benchmark-and-unit or on the whole comparison.
type Verdict string

// Verdicts. Regression, Improvement and Changed need p < Alpha and a change
// interval that excludes no change (so at least 6 samples a side, below which the
// medians' 95% intervals are unbounded); Regression and Improvement also need a
// unit whose better direction is known. NotJudged is every verdict when the
// environments differ.
const (
	Regression  Verdict = "regression"
	Improvement Verdict = "improvement"
	Changed     Verdict = "changed"               // significant, but the unit's better direction is unknown
	NoChange    Verdict = "no significant change" // p ≥ Alpha, or too few samples to tell
	NotJudged   Verdict = "not judged"            // the environments differ
)

// EnvDiff is one environment key whose values differ between the files. A nil
// slice means the file lacks the key.
type EnvDiff struct {
	Key      string
	Old, New []string
}

// Change is the comparison of one benchmark in one unit.
type Change struct {
	Key      Key
	Unit     string // tidied unit, e.g. sec/op
	Old, New benchmath.Summary
	OldN     int
	NewN     int
	Ratio    float64 // New.Center / Old.Center
	Lo, Hi   float64 // bounds of the ratio's conservative interval (Lo ≥ 0; Hi may be +Inf)
	P        float64 // Mann-Whitney U p-value
	Verdict  Verdict
	Warnings []error
}

// Report is the result of Compare.
type Report struct {
	OldName, NewName string
	OldResults       int
	NewResults       int
	EnvDiffs         []EnvDiff // empty when the environments agree
	Changes          []Change  // benchmarks in both files, in the new file's order, units in order
	OnlyOld, OnlyNew []Key     // benchmarks in one file only
	Verdict          Verdict   // NotJudged when EnvDiffs is not empty
}

// Compare compares old with new. It first compares their environment keys
// (benchenv.IsEnvironmentKey); any difference makes every verdict NotJudged. It
// returns an error wrapping ErrUnitMismatch, naming both files and lines, when a
// benchmark present in both reports different units, and one wrapping
// ErrNothingInCommon when no benchmark is in both files.
func Compare(old, new *File) (*Report, error) {
	r := &Report{
		OldName: old.Name, NewName: new.Name,
		OldResults: old.Results(), NewResults: new.Results(),
		EnvDiffs: envDiffs(old.Env, new.Env),
	}
	judge := len(r.EnvDiffs) == 0
	thresholds := benchmath.DefaultThresholds
	thresholds.CompareAlpha = Alpha
	for _, ns := range new.Benchmarks {
		prev := old.Lookup(ns.Key)
		if prev == nil {
			r.OnlyNew = append(r.OnlyNew, ns.Key)
			continue
		}
		if !sameUnits(prev.Units, ns.Units) {
			return nil, fmt.Errorf("%s:%d and %s:%d: %w: %s reports %s in the old file but %s in the new",
				old.Name, prev.Line, new.Name, ns.Line, ErrUnitMismatch, ns.Key,
				strings.Join(prev.Units, ", "), strings.Join(ns.Units, ", "))
		}
		for _, unit := range prev.Units {
			assume := old.assumption(unit)
			so := benchmath.NewSample(prev.Value[unit], &thresholds)
			sn := benchmath.NewSample(ns.Value[unit], &thresholds)
			c := Change{
				Key: ns.Key, Unit: unit,
				Old: assume.Summary(so, Confidence), New: assume.Summary(sn, Confidence),
				OldN: len(so.Values), NewN: len(sn.Values),
			}
			cmp := assume.Compare(so, sn)
			c.P = cmp.P
			c.Ratio, c.Lo, c.Hi = ratios(c.Old, c.New)
			c.Warnings = append(append(append(c.Warnings, so.Warnings...), sn.Warnings...), cmp.Warnings...)
			c.Warnings = append(append(c.Warnings, c.Old.Warnings...), c.New.Warnings...)
			switch {
			case !judge:
				c.Verdict = NotJudged
			case c.P >= cmp.Alpha || c.Ratio == 1 || (c.Lo <= 1 && 1 <= c.Hi):
				// Both tests must agree: a p-value below Alpha whose medians'
				// intervals still overlap "no change" is the noise of a busy
				// machine more often than a change in the code.
				c.Verdict = NoChange
			default:
				c.Verdict = direction(old.better(unit), c.Ratio)
			}
			r.Changes = append(r.Changes, c)
		}
	}
	for _, prev := range old.Benchmarks {
		if new.Lookup(prev.Key) == nil {
			r.OnlyOld = append(r.OnlyOld, prev.Key)
		}
	}
	if len(r.Changes) == 0 {
		return nil, fmt.Errorf("%s and %s: %w (%d benchmarks only in the old file, %d only in the new)",
			old.Name, new.Name, ErrNothingInCommon, len(r.OnlyOld), len(r.OnlyNew))
	}
	r.Verdict = overall(judge, r.Changes)
	return r, nil
}

// direction turns a significant change into a verdict given whether higher (+1)
// or lower (-1) is better.
func direction(better int, ratio float64) Verdict {
	switch {
	case better == 0:
		return Changed
	case (ratio > 1) == (better > 0):
		return Improvement
	default:
		return Regression
	}
}

func overall(judge bool, changes []Change) Verdict {
	if !judge {
		return NotJudged
	}
	seen := map[Verdict]bool{}
	for _, c := range changes {
		seen[c.Verdict] = true
	}
	for _, v := range []Verdict{Regression, Improvement, Changed} {
		if seen[v] {
			return v
		}
	}
	return NoChange
}

// ratios returns new/old for the centers and the conservative interval from the
// two confidence intervals; a non-positive denominator gives an unbounded side.
func ratios(old, new benchmath.Summary) (ratio, lo, hi float64) {
	div := func(a, b float64) float64 {
		if b <= 0 || math.IsInf(a, 0) || math.IsInf(b, 0) || math.IsNaN(a) || math.IsNaN(b) {
			return math.NaN()
		}
		return a / b
	}
	ratio = div(new.Center, old.Center)
	if old.Center == 0 && new.Center == 0 {
		ratio = 1
	}
	lo, hi = div(new.Lo, old.Hi), div(new.Hi, old.Lo)
	if math.IsNaN(lo) {
		lo = 0 // benchmark values are non-negative: the ratio's floor is 0
	}
	if math.IsNaN(hi) {
		hi = math.Inf(1)
	}
	return ratio, lo, hi
}

// envDiffs lists the environment keys whose value sets differ, sorted by key.
func envDiffs(old, new map[string][]string) []EnvDiff {
	keys := map[string]bool{}
	for k := range old {
		keys[k] = true
	}
	for k := range new {
		keys[k] = true
	}
	var out []EnvDiff
	for k := range keys {
		if strings.Join(old[k], "\x00") != strings.Join(new[k], "\x00") || (old[k] == nil) != (new[k] == nil) {
			out = append(out, EnvDiff{Key: k, Old: old[k], New: new[k]})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}
