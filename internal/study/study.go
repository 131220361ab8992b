package study

import (
	"context"
	"fmt"
	"strings"

	"github.com/innosim/innosim/internal/report"
	"github.com/innosim/innosim/internal/validate"
	"github.com/innosim/innosim/sim"
)

// Study is one of the four reference studies: a sweep of cells built from the
// study's own configuration, the published data beside the simulated, and the
// acceptance checks that give its verdict.
type Study struct {
	// ID is the study's letter: "a", "b", "c" or "d".
	ID string
	// Title is a one-line summary.
	Title string
	// Mechanism says which modelled effect produces the study's result.
	Mechanism string
	run       func(ctx context.Context, o Options) (*Report, error)
}

// Options control a study run.
type Options struct {
	// Seed seeds every cell (each cell adds its index). Same seed, same output.
	Seed uint64
	// Progress, if not nil, is called as cells finish with the cells done and
	// the total (from several goroutines).
	Progress func(done, total int)
	// Costs, if not nil, replaces the cost profile of every cell (a profile
	// from innosim calibrate: this machine's costs). Each study's own profiles
	// are then unused, so study C's old/new-kernel contrast disappears.
	Costs *sim.CostProfile
}

// Check is one acceptance check of a study and its outcome.
type Check struct {
	Name   string
	Pass   bool
	Detail string // the numbers behind the outcome
}

// Report is what a study run produced: tables (published beside simulated) and
// checks.
type Report struct {
	Study  Study
	Tables []report.Table
	Checks []Check
	Notes  []string
	// Plot is the study's chart (see Chart).
	Plot report.Chart
	// Validation is the study's published figures beside the simulated ones,
	// as innosim validate lists them: Fitted for the tables the study's
	// parameters were chosen on, Predicted for the rest.
	Validation []validate.Table
}

// Chart writes the report's chart to path (.svg, .png or .pdf), as
// report.Chart.Write.
func (r *Report) Chart(path string) error { return r.Plot.Write(path) }

// Pass reports whether every check passed.
func (r *Report) Pass() bool {
	for _, c := range r.Checks {
		if !c.Pass {
			return false
		}
	}
	return true
}

// Verdict returns "study A: PASS" or "study A: FAIL — <check>: <numbers>" naming
// every failed check.
func (r *Report) Verdict() string {
	id := strings.ToUpper(r.Study.ID)
	var failed []string
	for _, c := range r.Checks {
		if !c.Pass {
			failed = append(failed, c.Name+": "+c.Detail)
		}
	}
	if len(failed) == 0 {
		return "study " + id + ": PASS"
	}
	return "study " + id + ": FAIL — " + strings.Join(failed, "; ")
}

// Run runs the study.
func (s Study) Run(ctx context.Context, o Options) (*Report, error) {
	return s.run(ctx, o)
}

// All returns the four reference studies in order A, B, C, D.
func All() []Study {
	return []Study{studyA(), studyB(), studyC(), studyD()}
}

// Lookup returns the study with the given letter (case-insensitive).
func Lookup(id string) (Study, error) {
	for _, s := range All() {
		if strings.EqualFold(s.ID, id) {
			return s, nil
		}
	}
	return Study{}, fmt.Errorf("study: %q, want a, b, c or d: %w", id, sim.ErrInvalidConfig)
}

// runCells seeds the cells from o and runs them with o's progress (each for a
// twentieth of its virtual time when ctx is validate.Quick's).
func runCells(ctx context.Context, o Options, cells []sim.Cell) ([]sim.Result, error) {
	for i := range cells {
		cells[i].Machine.Seed = o.Seed*1_000_003 + uint64(i)
		if o.Costs != nil {
			cells[i].Machine.Costs = *o.Costs
		}
	}
	validate.Shorten(ctx, cells)
	var progress func(int)
	if o.Progress != nil {
		progress = func(done int) { o.Progress(done, len(cells)) }
	}
	return sim.RunCells(ctx, cells, progress)
}

func check(name string, pass bool, format string, args ...any) Check {
	return Check{Name: name, Pass: pass, Detail: fmt.Sprintf(format, args...)}
}
