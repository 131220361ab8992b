// Package validate holds the simulator to published figures it was and was not
// fitted to: a Table is simulated cells beside published ones, with the error
// metrics of innosim validate (cells on the same side of 1.0, mean and worst
// |log(sim/pub)|), whether the table chose parameters (Fitted) or not
// (Predicted), and a predicted table's bound.
package validate

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/innosim/innosim/internal/report"
)

// Use says whether a table's figures were used to choose the simulator's
// parameters.
type Use uint8

const (
	// Predicted: not used to choose parameters; a miss of its bound fails
	// validate.
	Predicted Use = iota
	// Fitted: parameters were chosen while looking at it; its error is reported,
	// never a verdict.
	Fitted
)

// String returns "predicted" or "fitted".
func (u Use) String() string {
	if u == Fitted {
		return "fitted"
	}
	return "predicted"
}

// Row is one cell: a label (the swept parameters), the published figure and the
// simulated one. Published ≤ 0 or NaN means the source gives no figure for the
// cell (only a claim, see Check); such a row is shown but enters no metric.
type Row struct {
	Label     string
	Published float64
	Simulated float64
}

// hasPublished reports whether the row has a published figure.
func (r Row) hasPublished() bool { return r.Published > 0 && !math.IsNaN(r.Published) }

// AbsLog returns |log(sim/pub)|: 0 for an exact match, log 2 for a factor of 2
// either way, +Inf for a simulated zero (or negative) against a published
// figure. It is NaN for a row without a published figure.
func (r Row) AbsLog() float64 {
	if !r.hasPublished() {
		return math.NaN()
	}
	if r.Simulated <= 0 || math.IsNaN(r.Simulated) {
		return math.Inf(1)
	}
	return math.Abs(math.Log(r.Simulated / r.Published))
}

// Check is a claim of the source that is not a figure ("capped at 1,600",
// "wake-one no slower"), tested on the simulated cells.
type Check struct {
	Name   string
	Pass   bool
	Detail string
}

// Table is one published table or field case beside the simulation.
type Table struct {
	// Name identifies the table ("study A read-only on/off").
	Name string
	// Source names where the published figures come from (a study, a bug
	// number, a user's file).
	Source string
	// Use is Fitted or Predicted.
	Use Use
	// Ratio marks figures that are ratios (on/off, new/old): the cells on the
	// same side of 1.0 as the published one are counted. A published 1.0 has no
	// side and is not counted.
	Ratio bool
	// MaxAbsLog, when > 0, is a predicted table's bound: every cell with a
	// published figure within this |log(sim/pub)| (log 1.5: within a factor of
	// 1.5). Zero means the table's Checks alone are its bound.
	MaxAbsLog float64
	// Rows are the cells.
	Rows []Row
	// Checks are the source's claims that are not figures; a predicted table
	// misses its bound when one fails.
	Checks []Check
	// Missing, when not empty, says why the simulator cannot produce the table
	// yet (a mechanism not modelled); a predicted table that is Missing misses.
	Missing string
	// Reference names the figures the simulation is held to where they are
	// not a publication's: "live" for a user's own live measurements
	// (innosim live --csv). Empty is "published", abbreviated "pub".
	Reference string
}

// reference returns the name of the table's reference figures and its
// short form, as in "sim/pub": "published" and "pub" unless Reference says.
func (t Table) reference() (name, short string) {
	if t.Reference != "" {
		return t.Reference, t.Reference
	}
	return "published", "pub"
}

// Summary is a table's error metrics over the rows with a published figure.
type Summary struct {
	// Cells is the number of rows with a published figure.
	Cells int
	// SameSide and Sided count, for a Ratio table, the cells on the published
	// side of 1.0 and the cells that have a side (published ≠ 1).
	SameSide, Sided int
	// MeanAbsLog is the mean of |log(sim/pub)| (NaN without cells; +Inf if a
	// simulated cell is zero).
	MeanAbsLog float64
	// Worst is the row with the largest |log(sim/pub)|, WorstAbsLog its value.
	Worst       Row
	WorstAbsLog float64
}

// Summary computes the table's error metrics; a Missing table has none.
func (t Table) Summary() Summary {
	s := Summary{MeanAbsLog: math.NaN(), WorstAbsLog: math.NaN()}
	if t.Missing != "" {
		return s
	}
	var sum float64
	for _, r := range t.Rows {
		if !r.hasPublished() {
			continue
		}
		e := r.AbsLog()
		s.Cells++
		sum += e
		if s.Cells == 1 || e > s.WorstAbsLog {
			s.Worst, s.WorstAbsLog = r, e
		}
		if t.Ratio && r.Published != 1 {
			s.Sided++
			if (r.Simulated > 1) == (r.Published > 1) && r.Simulated != 1 {
				s.SameSide++
			}
		}
	}
	if s.Cells > 0 {
		s.MeanAbsLog = sum / float64(s.Cells)
	}
	return s
}

// Miss reports whether a predicted table misses its bound, and why. A fitted
// table never misses: its error is information, not a verdict.
func (t Table) Miss() (bool, string) {
	if t.Use == Fitted {
		return false, ""
	}
	if t.Missing != "" {
		return true, "not modelled: " + t.Missing
	}
	var why []string
	if t.MaxAbsLog > 0 {
		if s := t.Summary(); s.Cells > 0 && !(s.WorstAbsLog <= t.MaxAbsLog) {
			why = append(why, fmt.Sprintf("worst cell %s off by ×%s, bound ×%.2f",
				s.Worst.Label, factor(s.WorstAbsLog), math.Exp(t.MaxAbsLog)))
		}
	}
	for _, c := range t.Checks {
		if !c.Pass {
			why = append(why, c.Name)
		}
	}
	return len(why) > 0, strings.Join(why, "; ")
}

// factor formats exp(x) as a factor ("1.42"), "inf" for +Inf.
func factor(x float64) string {
	if math.IsInf(x, 1) {
		return "inf"
	}
	return fmt.Sprintf("%.2f", math.Exp(x))
}

// Write prints each table (simulated beside published, then its metrics and
// checks) and, last, one line per table: its use, its error and, for a
// predicted table, whether it holds its bound. It returns whether any predicted
// table missed.
func Write(w io.Writer, tables []Table) (missed bool, err error) {
	for _, t := range tables {
		if err := t.write(w); err != nil {
			return false, err
		}
	}
	sum := report.Table{Title: "Summary", Header: []string{"table", "use", "cells", "same side", "mean |log|", "worst", "verdict"}}
	for _, t := range tables {
		s := t.Summary()
		side := "-"
		if t.Ratio && s.Sided > 0 {
			side = fmt.Sprintf("%d/%d", s.SameSide, s.Sided)
		}
		verdict := "fitted"
		if t.Use == Predicted {
			verdict = "holds"
			if m, _ := t.Miss(); m {
				verdict, missed = "MISS", true
			}
		}
		sum.AddRow(t.Name, t.Use.String(), s.Cells, side, logText(s.MeanAbsLog), worstText(s), verdict)
	}
	if err := sum.WriteText(w); err != nil {
		return false, err
	}
	return missed, nil
}

func logText(x float64) string {
	switch {
	case math.IsNaN(x):
		return "-"
	case math.IsInf(x, 1):
		return "inf"
	}
	return fmt.Sprintf("%.3f", x)
}

// sideAndBound is the end of a table's summary line: the cells on the
// published side of 1.0 (ratio tables) and the bound (predicted tables with
// one), each after ", ", or "".
func (t Table) sideAndBound(s Summary) string {
	var b string
	if t.Ratio && s.Sided > 0 {
		b += fmt.Sprintf(", same side of 1.0 %d/%d", s.SameSide, s.Sided)
	}
	if t.Use == Predicted && t.MaxAbsLog > 0 {
		b += fmt.Sprintf(", bound ×%.2f", math.Exp(t.MaxAbsLog))
	}
	return b
}

func worstText(s Summary) string {
	if s.Cells == 0 {
		return "-"
	}
	return fmt.Sprintf("%s (×%s)", s.Worst.Label, factor(s.WorstAbsLog))
}

// write prints the table: its cells, metrics, checks and verdict
// (writeSeeded with one run).
func (t Table) write(w io.Writer) error { return writeSeeded(w, nil, []Table{t}) }
