package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/innosim/innosim/internal/study"
	"github.com/innosim/innosim/sim"
)

func reproduceCommand() command {
	return command{
		name:    "reproduce",
		summary: "reproduce the reference studies (a, b, c, d or all): published vs simulated, PASS/FAIL",
		run:     reproduce,
	}
}

func reproduce(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("reproduce", flag.ContinueOnError)
	fs.SetOutput(stderr)
	seed := fs.Uint64("seed", 1, "random seed of every simulated cell")
	charts := fs.String("charts", "", "write one SVG chart per study into this directory")
	costs := fs.String("costs", "", "run every cell on this cost profile file (innosim calibrate --out) instead of the studies' built-in profiles")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: innosim reproduce [flags] [a|b|c|d|all]")
		fmt.Fprintln(stderr, "\nRuns each study's sweep in simulation and prints the simulated table beside the")
		fmt.Fprintln(stderr, "published one, then one verdict line per study; exits 1 if any study fails.")
		fmt.Fprintln(stderr, "The verdicts use the studies' built-in cost profiles unless -costs names a file.")
		fmt.Fprintln(stderr, "\nflags:")
		fs.PrintDefaults()
	}
	if done, err := parseFlags(fs, args); done {
		return err
	}
	var studies []study.Study
	switch which := fs.Args(); {
	case len(which) == 0 || len(which) == 1 && which[0] == "all":
		studies = study.All()
	case len(which) == 1:
		s, err := study.Lookup(which[0])
		if err != nil {
			return fmt.Errorf("%w: study %q, want a, b, c, d or all", errUsage, which[0])
		}
		studies = []study.Study{s}
	default:
		return fmt.Errorf("%w: want one study, got %q", errUsage, strings.Join(which, " "))
	}
	opts := study.Options{Seed: *seed}
	if *costs != "" {
		p, err := sim.LoadProfile(*costs)
		if err != nil {
			return fmt.Errorf("-costs: %w", err)
		}
		opts.Costs = &p
	}
	if *charts != "" {
		if err := os.MkdirAll(*charts, 0o755); err != nil {
			return err
		}
	}
	var verdicts []string
	failed := false
	for _, s := range studies {
		update, finish := progress(stderr, "study "+strings.ToUpper(s.ID))
		o := opts
		o.Progress = update
		rep, err := s.Run(ctx, o)
		finish()
		if err != nil {
			return fmt.Errorf("study %s: %w", s.ID, err)
		}
		fmt.Fprintf(stdout, "== study %s: %s\n", strings.ToUpper(s.ID), s.Title)
		fmt.Fprintf(stdout, "mechanism: %s\n\n", s.Mechanism)
		for _, t := range rep.Tables {
			if err := t.WriteText(stdout); err != nil {
				return err
			}
			fmt.Fprintln(stdout)
		}
		for _, n := range rep.Notes {
			fmt.Fprintf(stdout, "note: %s\n", n)
		}
		for _, c := range rep.Checks {
			mark := "ok  "
			if !c.Pass {
				mark = "FAIL"
			}
			fmt.Fprintf(stdout, "check %s %s (%s)\n", mark, c.Name, c.Detail)
		}
		fmt.Fprintln(stdout)
		if *charts != "" {
			path := filepath.Join(*charts, "study_"+s.ID+".svg")
			if err := rep.Chart(path); err != nil {
				return err
			}
		}
		verdicts = append(verdicts, rep.Verdict())
		failed = failed || !rep.Pass()
	}
	for _, v := range verdicts {
		fmt.Fprintln(stdout, v)
	}
	if failed {
		return errFailed
	}
	return nil
}
