package validate

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/innosim/innosim/internal/report"
)

// WriteSeeds prints tables simulated at several seeds, as Write prints the
// tables of one, and reports whether a predicted table missed its bound at any
// seed. A simulated figure is deterministic for its seed, so a verdict that
// changes with the seed is the seed's, not the simulator's: here a predicted
// table holds only if it holds at every seed.
//
// runs[k] holds every table simulated at seeds[k], in one order at every seed,
// each table of one shape at every seed: the same Name, Use, number of Rows,
// and Checks of the same names in the same order (a row's label may differ,
// e.g. the window a steady warm-up chose; the first seed's is shown).
//
// Each table shows the first seed's figures, and beside each simulated cell
// its least and greatest value over the seeds (sim min, sim max); its metrics
// line adds the least and greatest mean |log(sim/pub)|. A check is ok only if
// it passes at every seed, and a check that does not agree at every seed
// gives every seed's outcome and detail. A predicted table that misses
// gets one MISS line per seed at which it misses. The summary's mean |log| is
// the first seed's, followed by its min and max over the seeds; its verdict is
// "holds", "fitted", "MISS" (at every seed) or "MISS at seed 2" ("MISS at
// seeds 1, 3") when it misses at some seeds only.
//
// With one seed WriteSeeds is Write, byte for byte. It writes nothing and
// returns an error when seeds is empty, holds a seed twice, or is not as long
// as runs, and when two seeds' tables differ in number or shape.
func WriteSeeds(w io.Writer, seeds []uint64, runs [][]Table) (missed bool, err error) {
	if err := checkRuns(seeds, runs); err != nil {
		return false, err
	}
	if len(seeds) == 1 {
		return Write(w, runs[0])
	}
	across := make([][]Table, len(runs[0])) // across[i][k]: table i at seeds[k]
	for i := range across {
		for k := range seeds {
			across[i] = append(across[i], runs[k][i])
		}
	}
	for _, ts := range across {
		if err := writeSeeded(w, seeds, ts); err != nil {
			return false, err
		}
	}
	sum := report.Table{
		Title: fmt.Sprintf("Summary at seeds %s (figures at seed %d; mean |log| min and max over the seeds; a table holds only if it holds at every seed)",
			seedList(seeds), seeds[0]),
		Header: []string{"table", "use", "cells", "same side", "mean |log|", "min", "max", "worst", "verdict"},
	}
	for _, ts := range across {
		t, s := ts[0], ts[0].Summary()
		side := "-"
		if t.Ratio && s.Sided > 0 {
			side = fmt.Sprintf("%d/%d", s.SameSide, s.Sided)
		}
		lo, hi := meanAbsLogRange(ts)
		verdict := "fitted"
		if t.Use == Predicted {
			verdict = "holds"
			if at := missedAt(seeds, ts); len(at) == len(seeds) {
				verdict, missed = "MISS", true
			} else if len(at) > 0 {
				verdict, missed = "MISS at "+seedWord(at), true
			}
		}
		sum.AddRow(t.Name, t.Use.String(), s.Cells, side, logText(s.MeanAbsLog), logText(lo), logText(hi), worstText(s), verdict)
	}
	if err := sum.WriteText(w); err != nil {
		return false, err
	}
	return missed, nil
}

// checkRuns reports why seeds and runs cannot be written together.
func checkRuns(seeds []uint64, runs [][]Table) error {
	switch {
	case len(seeds) == 0:
		return fmt.Errorf("validate: no seed: want at least one")
	case len(runs) != len(seeds):
		return fmt.Errorf("validate: %d runs of tables for %d seeds: want one run a seed", len(runs), len(seeds))
	}
	for k, s := range seeds {
		if slices.Contains(seeds[:k], s) {
			return fmt.Errorf("validate: seed %d given twice: want each seed once", s)
		}
	}
	first := runs[0]
	for k, run := range runs[1:] {
		seed := seeds[k+1]
		if len(run) != len(first) {
			return fmt.Errorf("validate: %d tables at seed %d, %d at seed %d: want the same tables at every seed", len(run), seed, len(first), seeds[0])
		}
		for i, t := range run {
			f := first[i]
			same := t.Name == f.Name && t.Use == f.Use && len(t.Rows) == len(f.Rows) && len(t.Checks) == len(f.Checks)
			for j := 0; same && j < len(t.Checks); j++ {
				same = t.Checks[j].Name == f.Checks[j].Name
			}
			if !same {
				return fmt.Errorf("validate: table %d (%q) at seed %d differs in name, use, rows or checks from %q at seed %d: want one shape at every seed",
					i+1, t.Name, seed, f.Name, seeds[0])
			}
		}
	}
	return nil
}

// writeSeeded prints one table simulated at each of seeds (ts[k] at
// seeds[k]). With one table it is Table.write's layout: no seeds in the
// heading, no sim min and sim max, no range of the mean |log|, and MISS
// without a seed.
func writeSeeded(w io.Writer, seeds []uint64, ts []Table) error {
	t, seeded := ts[0], len(ts) > 1
	if seeded {
		fmt.Fprintf(w, "== %s (%s; source: %s; seeds %s)\n", t.Name, t.Use, t.Source, seedList(seeds))
	} else {
		fmt.Fprintf(w, "== %s (%s; source: %s)\n", t.Name, t.Use, t.Source)
	}
	if t.Missing != "" {
		fmt.Fprintf(w, "not modelled: %s\n", t.Missing)
	}
	if len(t.Rows) > 0 {
		ref, short := t.reference()
		header := []string{"cell", ref, "simulated", "sim/" + short}
		if seeded {
			header = append(header, "sim min", "sim max")
		}
		rt := report.Table{Header: header}
		for j, r := range t.Rows {
			lo, hi := span(ts, func(tk Table) float64 { return tk.Rows[j].Simulated })
			var row []any
			switch {
			case !r.hasPublished() && t.Missing != "":
				row = []any{r.Label, "-", "-", "-", "-", "-"}
			case !r.hasPublished():
				row = []any{r.Label, "-", r.Simulated, "-", lo, hi}
			case t.Missing != "":
				row = []any{r.Label, r.Published, "-", "-", "-", "-"}
			default:
				row = []any{r.Label, r.Published, r.Simulated, r.Simulated / r.Published, lo, hi}
			}
			rt.AddRow(row[:len(header)]...)
		}
		if err := rt.WriteText(w); err != nil {
			return err
		}
	}
	if t.Missing == "" {
		s := t.Summary()
		_, short := t.reference()
		line := fmt.Sprintf("cells %d, mean |log(sim/%s)| %s", s.Cells, short, logText(s.MeanAbsLog))
		if lo, hi := meanAbsLogRange(ts); seeded && s.Cells > 0 {
			line += fmt.Sprintf(" (over the seeds %s to %s)", logText(lo), logText(hi))
		}
		line += ", worst " + worstText(s)
		fmt.Fprintln(w, line+t.sideAndBound(s))
	}
	for j, c := range t.Checks {
		all := true
		for _, tk := range ts {
			all = all && tk.Checks[j].Pass
		}
		mark := "ok  "
		if !all {
			mark = "FAIL"
		}
		detail := c.Detail
		if none := !slices.ContainsFunc(ts, func(tk Table) bool { return tk.Checks[j].Pass }); !all && !none {
			var each []string
			for k, tk := range ts {
				out := "ok"
				if !tk.Checks[j].Pass {
					out = "FAIL"
				}
				each = append(each, fmt.Sprintf("seed %d %s: %s", seeds[k], out, tk.Checks[j].Detail))
			}
			detail = strings.Join(each, "; ")
		}
		fmt.Fprintf(w, "check %s %s (%s)\n", mark, c.Name, detail)
	}
	for k, tk := range ts {
		if m, why := tk.Miss(); m && seeded {
			fmt.Fprintf(w, "MISS at seed %d: %s\n", seeds[k], why)
		} else if m {
			fmt.Fprintf(w, "MISS: %s\n", why)
		}
	}
	_, err := fmt.Fprintln(w)
	return err
}

// meanAbsLogRange returns the least and greatest mean |log(sim/pub)| of ts
// (NaN, NaN for tables without cells; +Inf counts as the greatest).
func meanAbsLogRange(ts []Table) (lo, hi float64) {
	return span(ts, func(t Table) float64 { return t.Summary().MeanAbsLog })
}

// span returns the least and greatest of f over ts, passing over NaN (a
// figure with nothing to divide at that seed), so that one seed's NaN does
// not hide the others' range; NaN, NaN when every value is NaN.
func span(ts []Table, f func(Table) float64) (lo, hi float64) {
	lo, hi = math.NaN(), math.NaN()
	for _, t := range ts {
		v := f(t)
		if math.IsNaN(v) {
			continue
		}
		if math.IsNaN(lo) || v < lo {
			lo = v
		}
		if math.IsNaN(hi) || v > hi {
			hi = v
		}
	}
	return lo, hi
}

// missedAt returns the seeds at which ts (ts[k] at seeds[k]) misses its bound.
func missedAt(seeds []uint64, ts []Table) []uint64 {
	var at []uint64
	for k, t := range ts {
		if m, _ := t.Miss(); m {
			at = append(at, seeds[k])
		}
	}
	return at
}

// seedWord returns "seed 2" or "seeds 1, 3".
func seedWord(seeds []uint64) string {
	if len(seeds) == 1 {
		return fmt.Sprintf("seed %d", seeds[0])
	}
	return "seeds " + seedList(seeds)
}

// seedList returns seeds comma-separated ("1, 2, 3").
func seedList(seeds []uint64) string {
	s := make([]string, len(seeds))
	for k, v := range seeds {
		s[k] = fmt.Sprint(v)
	}
	return strings.Join(s, ", ")
}
