package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/innosim/innosim/internal/cmdflag"
	"github.com/innosim/innosim/internal/outfile"
	"github.com/innosim/innosim/internal/report"
	"github.com/innosim/innosim/internal/study"
)

// studyJSON is one study as reproduce --json writes it.
type studyJSON struct {
	ID        string      `json:"id"`
	Title     string      `json:"title"`
	Mechanism string      `json:"mechanism"`
	Seed      uint64      `json:"seed"`
	Tables    []tableJSON `json:"tables"`
	Notes     []string    `json:"notes,omitempty"`
	Checks    []checkJSON `json:"checks"`
	Pass      bool        `json:"pass"`
	Verdict   string      `json:"verdict"`
}

// tableJSON is a report.Table as JSON writes it: a cell that is a figure
// (it reads as a finite number) is a number, one that stands for no figure
// ("-" or empty) is null, and any other (a label, "16+16") a string.
type tableJSON struct {
	Title  string   `json:"title,omitempty"`
	Header []string `json:"header"`
	Rows   [][]any  `json:"rows"`
}

func newTableJSON(t report.Table) tableJSON {
	tj := tableJSON{Title: t.Title, Header: t.Header, Rows: [][]any{}}
	for _, row := range t.Rows {
		cells := make([]any, len(row))
		for i, c := range row {
			switch v, err := strconv.ParseFloat(c, 64); {
			case c == "-" || c == "":
				cells[i] = nil
			case err == nil && !math.IsNaN(v) && !math.IsInf(v, 0):
				cells[i] = v
			default:
				cells[i] = c
			}
		}
		tj.Rows = append(tj.Rows, cells)
	}
	return tj
}

func tablesJSON(ts []report.Table) []tableJSON {
	out := make([]tableJSON, len(ts))
	for i, t := range ts {
		out[i] = newTableJSON(t)
	}
	return out
}

type checkJSON struct {
	Name   string `json:"name"`
	Pass   bool   `json:"pass"`
	Detail string `json:"detail"`
}

func reproduceCommand() command {
	return command{
		name:    "reproduce",
		summary: "reproduce the reference studies (a, b, c, d or all): published vs simulated, PASS/FAIL",
		run:     reproduce,
	}
}

// reproduceOptions is reproduce's command line, parsed.
type reproduceOptions struct {
	seed             uint64
	charts, jsonPath string
	studies          []study.Study
}

// reproduce is innosim reproduce: it parses the command line
// (parseReproduce), opens the outputs, runs each study and prints it
// (writeStudy), then the verdicts; errFailed when a study fails.
func reproduce(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseReproduce(args, stderr)
	if err != nil {
		return err
	}
	made, err := chartsDir(o.charts)
	if err != nil {
		return err
	}
	if made {
		// Removes the directory only while it is empty: when the command
		// ends before writing a chart, it leaves nothing behind.
		defer func() { _ = os.Remove(o.charts) }()
	}
	pairs := []string{"-json", o.jsonPath}
	for _, s := range o.studies {
		path := ""
		if o.charts != "" {
			path = filepath.Join(o.charts, "study_"+s.ID+".svg")
		}
		pairs = append(pairs, "-charts", path)
	}
	outs, err := outputs(stdout, pairs...)
	if err != nil {
		return err
	}
	defer discardAll(outs)
	jsonOut, chartOuts := outs[0], outs[1:]
	text := stdout // the tables and verdicts, unless the JSON goes to stdout instead
	if jsonOut.IsStdout() {
		text = io.Discard
	}
	var js []studyJSON
	prog := newProgress(stderr, "reproduce")
	defer prog.Close()
	for i, s := range o.studies {
		rep, err := s.Run(ctx, study.Options{Seed: o.seed, Progress: prog.Phase("study "+strings.ToUpper(s.ID), "cells")})
		prog.End()
		if err != nil {
			return fmt.Errorf("study %s: %w", s.ID, err)
		}
		if err := writeStudy(text, s, rep); err != nil {
			return err
		}
		if err := chartOuts[i].Write(func(f *os.File) error { return rep.Chart(f.Name()) }); err != nil {
			return err
		}
		js = append(js, newStudyJSON(s, rep, o.seed))
	}
	return writeVerdicts(text, jsonOut, js)
}

// parseReproduce reads reproduce's flags and its studies, in the order
// named (all when none is named), and refuses -costs: a study runs on its own machine.
func parseReproduce(args []string, stderr io.Writer) (reproduceOptions, error) {
	fs := cmdflag.New("reproduce", stderr, "innosim reproduce [flags] [all | a b c d ...]",
		"Runs each study's sweep in simulation and prints the simulated table beside the",
		"published one, then one verdict line per study; exits 1 if any study fails.",
		"Each study runs on the machine of its publication, with its own cost profiles",
		"(study C compares two kernels); a calibrated profile is for run --costs.",
		"Name studies to run only them, in the order named (reproduce a c); none, or all, runs",
		"every study. Flags may come before or after the studies; -- ends the flags.")
	var o reproduceOptions
	fs.Uint64Var(&o.seed, "seed", 1, "random seed of every simulated cell")
	fs.StringVar(&o.charts, "charts", "", "write one SVG chart per study into this directory (made if missing; its parent must exist)")
	fs.String("costs", "", "refused: each study runs on its own machine (use run --costs to simulate this machine)")
	fs.StringVar(&o.jsonPath, "json", "", "also write the studies' tables, checks and verdicts to this JSON file; - writes them to stdout instead of the text")
	which, err := fs.ParseInterspersed(args)
	if err != nil {
		return o, err
	}
	if len(which) == 0 || len(which) == 1 && which[0] == "all" {
		o.studies, which = study.All(), nil
	}
	for i, id := range which {
		if id == "all" {
			return o, cmdflag.Usagef("all with %q: all is every study, want it alone", strings.Join(slices.Delete(slices.Clone(which), i, i+1), " "))
		}
		if j := slices.Index(which[:i], id); j >= 0 {
			return o, cmdflag.Usagef("study %q given twice: want each study once", id)
		}
		s, err := study.Lookup(id)
		if err != nil {
			return o, cmdflag.Usagef("study %q, want a, b, c, d or all", id)
		}
		o.studies = append(o.studies, s)
	}
	// A study's verdict holds its published machine's costs against its
	// published figures: study C's two kernels would become one, and A, B
	// and D would be checked on a machine their data were not measured on.
	return o, fs.Check(cmdflag.Valid("costs", func(costs string) error {
		return fmt.Errorf("a study runs on its own machine, with the cost profiles of its publication (study C compares two kernels), so a verdict on this machine's costs would not be the study's; use innosim run --costs %s to simulate this machine", costs)
	}))
}

// writeStudy prints a study's report: its tables, notes and checks.
func writeStudy(text io.Writer, s study.Study, rep *study.Report) error {
	fmt.Fprintf(text, "== study %s: %s\n", strings.ToUpper(s.ID), s.Title)
	fmt.Fprintf(text, "mechanism: %s\n\n", s.Mechanism)
	for _, t := range rep.Tables {
		if err := t.WriteText(text); err != nil {
			return err
		}
		fmt.Fprintln(text)
	}
	for _, n := range rep.Notes {
		fmt.Fprintf(text, "note: %s\n", n)
	}
	for _, c := range rep.Checks {
		mark := "ok  "
		if !c.Pass {
			mark = "FAIL"
		}
		fmt.Fprintf(text, "check %s %s (%s)\n", mark, c.Name, c.Detail)
	}
	_, err := fmt.Fprintln(text)
	return err
}

// newStudyJSON is a study's report as reproduce --json writes it.
func newStudyJSON(s study.Study, rep *study.Report, seed uint64) studyJSON {
	sj := studyJSON{ID: s.ID, Title: s.Title, Mechanism: s.Mechanism, Seed: seed, Tables: tablesJSON(rep.Tables), Notes: rep.Notes,
		Pass: rep.Pass(), Verdict: rep.Verdict()}
	for _, c := range rep.Checks {
		sj.Checks = append(sj.Checks, checkJSON{Name: c.Name, Pass: c.Pass, Detail: c.Detail})
	}
	return sj
}

// writeVerdicts prints each study's verdict line and writes the JSON;
// errFailed when a study failed.
func writeVerdicts(text io.Writer, jsonOut *outfile.File, js []studyJSON) error {
	failed := false
	for _, sj := range js {
		fmt.Fprintln(text, sj.Verdict)
		failed = failed || !sj.Pass
	}
	if err := jsonOut.WriteStream(func(w io.Writer) error { return report.WriteJSON(w, js) }); err != nil {
		return err
	}
	if failed {
		return errFailed
	}
	return nil
}

// chartsDir checks reproduce's -charts directory before any study runs, as
// outfile.New checks a file output: an existing dir must be a directory, and a
// missing one is made only when its parent exists (a path whose parent is
// not there is refused, not created on the way). It reports whether it made
// dir. An empty dir is no output.
func chartsDir(dir string) (made bool, err error) {
	if dir == "" {
		return false, nil
	}
	fi, err := os.Stat(dir)
	switch {
	case err == nil && !fi.IsDir():
		return false, fmt.Errorf("-charts %s: not a directory", dir)
	case err == nil:
		return false, nil
	case !errors.Is(err, os.ErrNotExist):
		return false, fmt.Errorf("-charts: %w", err)
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		return false, fmt.Errorf("-charts: %w", err)
	}
	return true, nil
}
