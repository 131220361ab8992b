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

// MinSamples is the fewest samples a side needs for a verdict: below it the
// medians' 95% confidence intervals are unbounded (benchmath cannot reach 95%
// with 5 values), so no interval of the change can exclude "no change".
const MinSamples = 6

// Verdicts. Regression, Improvement and Changed need MinSamples a side, p <
// Alpha and a change interval that excludes no change; Regression and
// Improvement also need a unit whose better direction is known. NotJudged is
// every verdict when the environments differ.
const (
	Regression    Verdict = "regression"
	Improvement   Verdict = "improvement"
	Changed       Verdict = "changed"                 // significant, but the unit's better direction is unknown
	TooFewSamples Verdict = "too few samples (n < 6)" // fewer than MinSamples on a side: no verdict either way
	Inconclusive  Verdict = "inconclusive"            // p < Alpha, but the change's interval holds no change
	NoChange      Verdict = "no significant change"   // p ≥ Alpha with enough samples
	NotJudged     Verdict = "not judged"              // the environments differ
)

// errInconclusive is the note of an Inconclusive change.
var errInconclusive = fmt.Errorf("inconclusive: p < %v but the 95%% interval of the change includes 0%%: the samples are too spread to tell (rerun both on a quiet machine, -count 10 or more)", Alpha)

// EnvDiff is one environment key whose values differ between the files. A nil
// slice means the file lacks the key.
type EnvDiff struct {
	Key      string
	Old, New []string
}

// Change is the comparison of one benchmark in one unit.
type Change struct {
	Key      Key    // the benchmark's name in the new file
	OldKey   Key    // its name in the old file: Key, or Key with another -GOMAXPROCS suffix
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
	pairs := pairProcs(old, new)
	if d, ok := procsDiff(pairs); ok && !hasEnvDiff(r.EnvDiffs, d.Key) {
		r.EnvDiffs = append(r.EnvDiffs, d)
		sort.Slice(r.EnvDiffs, func(i, j int) bool { return r.EnvDiffs[i].Key < r.EnvDiffs[j].Key })
	}
	judge := len(r.EnvDiffs) == 0
	thresholds := benchmath.DefaultThresholds
	thresholds.CompareAlpha = Alpha
	for _, ns := range new.Benchmarks {
		prev := old.Lookup(ns.Key)
		if prev == nil {
			prev = pairs[ns]
		}
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
				Key: ns.Key, OldKey: prev.Key, Unit: unit,
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
			case c.OldN < MinSamples || c.NewN < MinSamples:
				// With so few samples the p-value can still fall below Alpha
				// (5+5 samples reach 0.008), but there is no interval to hold
				// it against: say so rather than "no significant change".
				c.Verdict = TooFewSamples
			case c.P >= cmp.Alpha || c.Ratio == 1:
				c.Verdict = NoChange
			case c.Lo <= 1 && 1 <= c.Hi:
				// Both tests must agree: a p-value below Alpha whose medians'
				// intervals still overlap "no change" is the noise of a busy
				// machine more often than a change in the code; it is not a
				// verdict of no change either.
				c.Verdict = Inconclusive
				c.Warnings = append(c.Warnings, errInconclusive)
			default:
				c.Verdict = direction(old.better(unit), c.Ratio)
			}
			r.Changes = append(r.Changes, c)
		}
	}
	paired := map[*Series]bool{}
	for _, o := range pairs {
		paired[o] = true
	}
	for _, prev := range old.Benchmarks {
		if new.Lookup(prev.Key) == nil && !paired[prev] {
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

// procsKey is the environment key of a GOMAXPROCS difference seen only in
// the benchmark names' -N suffix (files without a fingerprint), the key
// benchenv writes for it.
const procsKey = "gomaxprocs"

// pairProcs pairs the benchmarks that differ only in their -GOMAXPROCS suffix
// (X-2 in old, X-4 in new): for each new series without an exact match, the
// one old series without an exact match whose name is the same once the
// suffix is removed, when that base name is unique among the unmatched on both
// sides. Such a pair is one benchmark run at two GOMAXPROCS, which is an
// environment difference, not two unrelated benchmarks.
func pairProcs(old, new *File) map[*Series]*Series {
	unmatched := func(f, other *File) map[Key][]*Series {
		m := map[Key][]*Series{}
		for _, s := range f.Benchmarks {
			if other.Lookup(s.Key) == nil {
				base, _ := splitProcs(s.Key)
				m[base] = append(m[base], s)
			}
		}
		return m
	}
	uo, un := unmatched(old, new), unmatched(new, old)
	pairs := map[*Series]*Series{}
	for base, ns := range un {
		olds := uo[base]
		if len(olds) != 1 || len(ns) != 1 {
			continue
		}
		if _, po := splitProcs(olds[0].Key); po != procsOf(ns[0].Key) {
			pairs[ns[0]] = olds[0]
		}
	}
	return pairs
}

// splitProcs splits k's name into the name without its -GOMAXPROCS suffix
// and that GOMAXPROCS ("1" when there is no suffix, as go test omits -1).
func splitProcs(k Key) (Key, string) {
	name := k.Name
	i := strings.LastIndexByte(name, '-')
	if i < 0 || i == len(name)-1 {
		return k, "1"
	}
	for _, c := range name[i+1:] {
		if c < '0' || c > '9' {
			return k, "1"
		}
	}
	return Key{Pkg: k.Pkg, Name: name[:i]}, name[i+1:]
}

func procsOf(k Key) string { _, p := splitProcs(k); return p }

// procsDiff returns the GOMAXPROCS difference of the pairs, if any.
func procsDiff(pairs map[*Series]*Series) (EnvDiff, bool) {
	oldP, newP := map[string]bool{}, map[string]bool{}
	for n, o := range pairs {
		_, po := splitProcs(o.Key)
		_, pn := splitProcs(n.Key)
		oldP[po], newP[pn] = true, true
	}
	if len(pairs) == 0 {
		return EnvDiff{}, false
	}
	set := func(m map[string]bool) []string {
		var out []string
		for v := range m {
			out = append(out, v)
		}
		sort.Strings(out)
		return out
	}
	return EnvDiff{Key: procsKey, Old: set(oldP), New: set(newP)}, true
}

func hasEnvDiff(diffs []EnvDiff, key string) bool {
	for _, d := range diffs {
		if d.Key == key {
			return true
		}
	}
	return false
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

// overall is the verdict of the whole comparison: the first of Regression,
// Improvement, Changed, TooFewSamples, Inconclusive that some change has, else
// NoChange. A benchmark that could not be judged keeps the whole from reading
// "no significant change".
func overall(judge bool, changes []Change) Verdict {
	if !judge {
		return NotJudged
	}
	seen := map[Verdict]bool{}
	for _, c := range changes {
		seen[c.Verdict] = true
	}
	for _, v := range []Verdict{Regression, Improvement, Changed, TooFewSamples, Inconclusive} {
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
		switch {
		case math.IsInf(a, 0) || math.IsInf(b, 0) || math.IsNaN(a) || math.IsNaN(b) || b < 0:
			return math.NaN()
		case b == 0 && a > 0:
			return math.Inf(1) // from nothing to something (0 allocs/op to 1)
		case b == 0:
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
