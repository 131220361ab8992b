package main

import (
	"math"

	"github.com/innosim/innosim/internal/validate"
)

// validateJSON is what validate --json writes: every table at each seed,
// and whether a predicted table missed its bound (the exit status 1). A
// figure is a number, or null where there is none (a cell without a
// published figure, a metric of no cells, a simulated zero's infinite
// |log|).
type validateJSON struct {
	Runs   []validateRunJSON `json:"runs"`
	Missed bool              `json:"missed"`
}

// validateRunJSON is the tables of one seed.
type validateRunJSON struct {
	Seed   uint64              `json:"seed"`
	Tables []validateTableJSON `json:"tables"`
}

// validateTableJSON is one validate.Table with its summary and verdict.
type validateTableJSON struct {
	Name        string              `json:"name"`
	Source      string              `json:"source"`
	Use         string              `json:"use"`       // fitted or predicted
	Reference   string              `json:"reference"` // published, or live for a user's own measurements
	Ratio       bool                `json:"ratio"`
	MaxAbsLog   *float64            `json:"max_abs_log"` // the predicted table's bound; null: its checks alone
	Missing     string              `json:"missing,omitempty"`
	Rows        []validateRowJSON   `json:"rows"`
	Checks      []validateCheckJSON `json:"checks"`
	Cells       int                 `json:"cells"`
	SameSide    *int                `json:"same_side"` // of sided, for a ratio table; null for another
	Sided       *int                `json:"sided"`
	MeanAbsLog  *float64            `json:"mean_abs_log"`
	WorstLabel  string              `json:"worst_label,omitempty"`
	WorstAbsLog *float64            `json:"worst_abs_log"`
	Miss        bool                `json:"miss"`
	MissReason  string              `json:"miss_reason,omitempty"`
}

// validateRowJSON is one cell.
type validateRowJSON struct {
	Label     string   `json:"label"`
	Published *float64 `json:"published"`
	Simulated *float64 `json:"simulated"`
	AbsLog    *float64 `json:"abs_log"`
}

// validateCheckJSON is one of a table's claims.
type validateCheckJSON struct {
	Name   string `json:"name"`
	Pass   bool   `json:"pass"`
	Detail string `json:"detail"`
}

// newValidateJSON returns the runs (runs[k] at seeds[k]) as validateJSON.
func newValidateJSON(seeds []uint64, runs [][]validate.Table, missed bool) validateJSON {
	js := validateJSON{Runs: []validateRunJSON{}, Missed: missed}
	for k, ts := range runs {
		run := validateRunJSON{Seed: seeds[k], Tables: []validateTableJSON{}}
		for _, t := range ts {
			run.Tables = append(run.Tables, newValidateTableJSON(t))
		}
		js.Runs = append(js.Runs, run)
	}
	return js
}

func newValidateTableJSON(t validate.Table) validateTableJSON {
	s := t.Summary()
	miss, why := t.Miss()
	tj := validateTableJSON{Name: t.Name, Source: t.Source, Use: t.Use.String(), Reference: "published", Ratio: t.Ratio,
		Missing: t.Missing, Rows: []validateRowJSON{}, Checks: []validateCheckJSON{}, Cells: s.Cells,
		MeanAbsLog: number(s.MeanAbsLog), WorstAbsLog: number(s.WorstAbsLog), Miss: miss, MissReason: why}
	if t.Reference != "" {
		tj.Reference = t.Reference
	}
	if t.MaxAbsLog > 0 {
		tj.MaxAbsLog = number(t.MaxAbsLog)
	}
	if t.Ratio {
		tj.SameSide, tj.Sided = &s.SameSide, &s.Sided
	}
	if s.Cells > 0 {
		tj.WorstLabel = s.Worst.Label
	}
	for _, r := range t.Rows {
		rj := validateRowJSON{Label: r.Label, Simulated: number(r.Simulated), AbsLog: number(r.AbsLog())}
		if r.Published > 0 {
			rj.Published = number(r.Published)
		}
		tj.Rows = append(tj.Rows, rj)
	}
	for _, c := range t.Checks {
		tj.Checks = append(tj.Checks, validateCheckJSON{Name: c.Name, Pass: c.Pass, Detail: c.Detail})
	}
	return tj
}

// number returns v for JSON: a number, or nil (null) for a NaN or infinite
// v, which JSON has no number for.
func number(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}
