package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/innosim/innosim/aio"
	"github.com/innosim/innosim/concurrency"
	"github.com/innosim/innosim/internal/report"
	"github.com/innosim/innosim/mycnf"
	"github.com/innosim/innosim/sim"
)

func runCommand() command {
	return command{
		name:    "run",
		summary: "simulate a my.cnf with a workload over threads × cpus (× one varied setting)",
		run:     runSweep,
	}
}

// intList is a flag holding a comma-separated list of positive integers.
type intList []int

// String returns the list as given on the command line ("1,2,4").
func (l *intList) String() string {
	s := make([]string, len(*l))
	for i, v := range *l {
		s[i] = strconv.Itoa(v)
	}
	return strings.Join(s, ",")
}

// Set parses a comma-separated list of positive integers, replacing the default.
func (l *intList) Set(v string) error {
	var out intList
	for _, f := range strings.Split(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return fmt.Errorf("%q is not a positive integer", f)
		}
		out = append(out, n)
	}
	*l = out
	return nil
}

// varyKeys are the --vary keys that are not option-file keys.
var varyKeys = []string{"sched", "profile", "gate", "wake"}

type runFlags struct {
	cnf, workload, vary, sched, profile, costs, gate, wake, csv, plot string
	server                                                            string
	showSettings                                                      bool
	threads, cpus                                                     intList
	seed                                                              uint64
	measure                                                           time.Duration
	device                                                            deviceFlag
}

func runSweep(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f := runFlags{threads: intList{1, 2, 4, 8, 16, 32, 64}, cpus: intList{4}}
	fs.StringVar(&f.cnf, "cnf", "", "MySQL option file to read (the groups of -server); MySQL's defaults if empty")
	fs.StringVar(&f.server, "server", "mysql", "server whose option groups -cnf is read for: mysql or mariadb, optionally -X.Y (mysql-5.1, mariadb-10.5)")
	fs.BoolVar(&f.showSettings, "show-settings", false, "print the settings the run uses, and the line each came from, before the table")
	fs.StringVar(&f.workload, "workload", "", "workload: "+strings.Join(sim.WorkloadNames(), ", ")+" (required)")
	fs.Var(&f.threads, "threads", "client thread counts, comma-separated")
	fs.Var(&f.cpus, "cpus", "core counts, comma-separated")
	fs.StringVar(&f.vary, "vary", "", "one setting and its values, key=v1,v2: an option-file key (innodb_thread_concurrency=0,8) or "+strings.Join(varyKeys, ", "))
	fs.StringVar(&f.sched, "sched", "cfs", "scheduler model: cfs (Linux) or ts (Solaris)")
	fs.StringVar(&f.profile, "profile", "old-kernel", "cost profile: old-kernel, new-kernel or a profile file")
	fs.StringVar(&f.costs, "costs", "", "cost profile file written by innosim calibrate --out (instead of -profile)")
	fs.StringVar(&f.gate, "gate", "queue", "gate core when innodb_thread_concurrency > 0: queue, atomic or handoff")
	fs.StringVar(&f.wake, "wake", "all", "AIO wake policy: all, targeted or deferred")
	fs.Uint64Var(&f.seed, "seed", 1, "random seed")
	fs.Var(&f.device, "device", "storage device the AIO handlers and the workload's reads wait for: units=N[,read=5ms][,write=5ms][,fsync=5ms][,dist=uniform|fixed|exponential]")
	fs.DurationVar(&f.measure, "measure", sim.DefaultMeasure, "virtual time measured per cell (after a warm-up)")
	fs.StringVar(&f.csv, "csv", "", "also write the results to this CSV file")
	fs.StringVar(&f.plot, "plot", "", "also draw throughput vs threads to this chart (.svg, .png or .pdf)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: innosim run --workload W [flags]")
		fmt.Fprintln(stderr, "\nSimulates the server of a my.cnf under a sysbench-like workload for every")
		fmt.Fprintln(stderr, "threads × cpus (× --vary value) cell and prints throughput by threads.")
		fmt.Fprintln(stderr, "\nflags:")
		fs.PrintDefaults()
	}
	if done, err := parseFlags(fs, args); done {
		return err
	}
	if fs.NArg() != 0 {
		return fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	if f.costs != "" && f.profile != "old-kernel" {
		return fmt.Errorf("%w: -costs and -profile both given: want one", errUsage)
	}
	if f.workload == "" {
		return fmt.Errorf("%w: -workload is required (one of %s)", errUsage, strings.Join(sim.WorkloadNames(), ", "))
	}
	if _, err := sim.LookupWorkload(f.workload); err != nil {
		return fmt.Errorf("%w: -workload %q: want one of %s", errUsage, f.workload, strings.Join(sim.WorkloadNames(), ", "))
	}
	if f.measure < time.Millisecond || f.measure > time.Minute {
		return fmt.Errorf("%w: -measure %v: want 1ms..1m", errUsage, f.measure)
	}
	base, err := readCnf(f.cnf, f.server, f.showSettings, stderr)
	if err != nil {
		return err
	}
	varyKey, varyVals := "", []string{""}
	if f.vary != "" {
		k, v, ok := strings.Cut(f.vary, "=")
		if !ok || k == "" || v == "" {
			return fmt.Errorf("%w: -vary %q: want key=v1,v2", errUsage, f.vary)
		}
		varyKey, varyVals = k, strings.Split(v, ",")
	}
	if f.showSettings {
		writeSettings(stdout, base, f.server, varyKey)
	}
	type row struct {
		val  string
		cpus int
	}
	var rows []row
	var cells []sim.Cell
	for _, v := range varyVals {
		opts := f
		s := base
		if varyKey != "" {
			if err := applyVary(&opts, &s, varyKey, v); err != nil {
				return fmt.Errorf("%w: -vary %s=%s: %v", errUsage, varyKey, v, err)
			}
		}
		proto, err := buildCell(opts, s)
		if err != nil {
			return err
		}
		proto.Device = f.device.cfg
		for _, c := range f.cpus {
			rows = append(rows, row{v, c})
			for _, th := range f.threads {
				cell := proto
				cell.Threads, cell.Machine.CPUs = th, c
				cells = append(cells, cell)
			}
		}
	}
	for i := range cells {
		cells[i].Machine.Seed = f.seed*1_000_003 + uint64(i)
	}
	update, finish := progress(stderr, "cells")
	var each func(int)
	if update != nil {
		each = func(done int) { update(done, len(cells)) }
	}
	res, err := sim.RunCells(ctx, cells, each)
	finish()
	if err != nil {
		return err
	}
	w, _ := sim.LookupWorkload(f.workload)
	t := report.Table{Title: fmt.Sprintf("%s (%s) by client threads", f.workload, w.Unit)}
	long := report.Table{Header: []string{"cpus", "threads", "throughput", "unit", "utilisation", "futex_spin_share", "reads_per_s", "writes_per_s", "fsyncs_per_s"}}
	if varyKey != "" {
		t.Header = append(t.Header, varyKey)
		long.Header = append([]string{varyKey}, long.Header...)
	}
	t.Header = append(t.Header, "cpus")
	for _, th := range f.threads {
		t.Header = append(t.Header, "t"+strconv.Itoa(th))
	}
	t.Header = append(t.Header, "usl peak")
	var chart []report.Series
	for i, r := range rows {
		cellsRow := []any{}
		if varyKey != "" {
			cellsRow = append(cellsRow, r.val)
		}
		cellsRow = append(cellsRow, r.cpus)
		var ns, xs []float64
		for j, th := range f.threads {
			x := res[i*len(f.threads)+j]
			cellsRow = append(cellsRow, x.Throughput)
			ns, xs = append(ns, float64(th)), append(xs, x.Throughput)
			rd, wr, fy := x.IORates()
			lr := []any{r.cpus, th, x.Throughput, w.Unit, x.Utilisation(), x.FutexSpinShare(), rd, wr, fy}
			if varyKey != "" {
				lr = append([]any{r.val}, lr...)
			}
			long.AddRow(lr...)
		}
		peak := "-" // too few thread counts, or a peak the data do not locate
		if u, err := sim.FitUSL(ns, xs); err == nil {
			if p, ok := u.PeakNear(slices.Min(ns), slices.Max(ns)); ok {
				peak = fmt.Sprintf("%.1f", p)
			}
		}
		t.AddRow(append(cellsRow, peak)...)
		name := fmt.Sprintf("%d cpus", r.cpus)
		if varyKey != "" {
			name = fmt.Sprintf("%s=%s, %s", varyKey, r.val, name)
		}
		chart = append(chart, report.Series{Name: name, X: ns, Y: xs})
	}
	if err := t.WriteText(stdout); err != nil {
		return err
	}
	if f.device.cfg != nil {
		it := ioTable(f.workload, len(rows), f.threads, res, func(i int) string {
			if varyKey != "" {
				return fmt.Sprintf("%s=%s %d", varyKey, rows[i].val, rows[i].cpus)
			}
			return strconv.Itoa(rows[i].cpus)
		})
		if err := it.WriteText(stdout); err != nil {
			return err
		}
	}
	if f.csv != "" {
		out, err := os.Create(f.csv)
		if err != nil {
			return fmt.Errorf("-csv: %w", err)
		}
		if err := long.WriteCSV(out); err != nil {
			out.Close()
			return fmt.Errorf("-csv: %w", err)
		}
		if err := out.Close(); err != nil {
			return fmt.Errorf("-csv: %w", err)
		}
	}
	if f.plot != "" {
		if err := report.WriteChart(f.plot, t.Title, "client threads", w.Unit, true, chart); err != nil {
			return fmt.Errorf("-plot: %w", err)
		}
	}
	return nil
}

// applyVary applies one --vary value: a run flag (sched, profile, gate, wake) or
// an option-file key through mycnf.Settings.Set.
func applyVary(f *runFlags, s *mycnf.Settings, key, val string) error {
	switch key {
	case "sched":
		f.sched = val
	case "profile":
		f.profile = val
	case "gate":
		f.gate = val
	case "wake":
		f.wake = val
	default:
		if err := s.Set(key, val); err != nil {
			return fmt.Errorf("not one of %s, nor an option-file key: %w", strings.Join(varyKeys, ", "), err)
		}
	}
	return nil
}

// buildCell makes the cell prototype from the flags and settings.
func buildCell(f runFlags, s mycnf.Settings) (sim.Cell, error) {
	c, err := sim.CellFromSettings(s, f.workload)
	if err != nil {
		return sim.Cell{}, err
	}
	if c.Machine.Scheduler, err = sim.ParseScheduler(f.sched); err != nil {
		return sim.Cell{}, fmt.Errorf("%w: -sched %q: want cfs or ts", errUsage, f.sched)
	}
	if f.costs != "" {
		if c.Machine.Costs, err = sim.LoadProfile(f.costs); err != nil {
			return sim.Cell{}, fmt.Errorf("-costs: %w", err)
		}
	} else if c.Machine.Costs, err = sim.Profile(f.profile); err != nil {
		if _, statErr := os.Stat(f.profile); statErr != nil {
			return sim.Cell{}, fmt.Errorf("%w: -profile %q: want old-kernel, new-kernel or a profile file", errUsage, f.profile)
		}
		if c.Machine.Costs, err = sim.LoadProfile(f.profile); err != nil {
			return sim.Cell{}, fmt.Errorf("-profile: %w", err)
		}
	}
	g, err := concurrency.ParsePolicy(f.gate)
	if err != nil || g != concurrency.PolicyQueue && g != concurrency.PolicyAtomic && g != concurrency.PolicyHandoff {
		return sim.Cell{}, fmt.Errorf("%w: -gate %q: want queue, atomic or handoff", errUsage, f.gate)
	}
	if c.Gate != nil {
		c.Gate.Policy = g
	}
	var wp aio.WakePolicy
	switch f.wake {
	case "all":
		wp = aio.WakeAll
	case "targeted":
		wp = aio.WakeTargeted
	case "deferred":
		wp = aio.WakeDeferred
	default:
		return sim.Cell{}, fmt.Errorf("%w: -wake %q: want all, targeted or deferred", errUsage, f.wake)
	}
	if c.AIO != nil {
		c.AIO.Wake = wp
	}
	c.Measure = f.measure
	return c, nil
}
