package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/innosim/innosim/internal/outfile"
	"github.com/innosim/innosim/internal/progress"
	"github.com/innosim/innosim/sim"
)

func runCommand() command {
	return command{
		name:    "run",
		summary: "simulate a my.cnf with a workload over threads × cpus (× one varied setting)",
		run:     runSweep,
	}
}

// runSweep is innosim run: it parses the command line (parseRun), builds
// the sweep's cells (buildSweep), runs them (sweep.run) and renders their
// results (newRunReport). Every refusal comes before the first cell runs.
func runSweep(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseRun(args, stderr)
	if err != nil {
		return err
	}
	sw, err := buildSweep(o, stdout, stderr)
	if err != nil {
		return err
	}
	outs, err := outputs(stdout, "-csv", o.csv, "-json", o.json, "-plot", o.plot)
	if err != nil {
		return err
	}
	defer discardAll(outs)
	if err := outfile.CheckInputs(outs, "-cnf "+o.cnf, o.cnf, "-costs "+o.costs, o.costs, "-machine "+o.machineFile, o.machineFile); err != nil {
		return err
	}
	res, err := sw.run(ctx, stderr)
	if err != nil {
		return err
	}
	text := stdout // the tables, unless the CSV or JSON goes to stdout instead
	if anyStdout(outs) {
		text = io.Discard
	}
	if err := newRunReport(ctx, sw, res).write(text, outs[0], outs[1], outs[2]); err != nil {
		return err
	}
	sw.machine.writeAssumptions(text)
	return nil
}

// run runs the sweep's cells (sim.RunCells, which validates every cell
// before the first runs: a cell it refuses is refused in the command
// line's terms, sweep.refusal), with a progress bar on a terminal.
func (sw *sweep) run(ctx context.Context, stderr io.Writer) ([]sim.Result, error) {
	prog := progress.Bars(stderr, "innosim run") // a bar on a terminal; redirected, stderr holds run's own lines only
	update := prog.Phase("cells", "cells")
	res, err := sim.RunCells(ctx, sw.cells, func(done int) { update(done, len(sw.cells)) })
	prog.Close()
	switch {
	case err == nil:
		return res, nil
	case errors.As(err, new(*sim.CellError)):
		return nil, sw.refusal(err)
	case ctx.Err() != nil:
		return nil, fmt.Errorf("interrupted: no output written: %w", err)
	}
	return nil, fmt.Errorf("%w%s", err, steadyHint(err))
}
