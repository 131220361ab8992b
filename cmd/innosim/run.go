package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/innosim/innosim/aio"
	"github.com/innosim/innosim/concurrency"
	"github.com/innosim/innosim/internal/cmdflag"
	"github.com/innosim/innosim/internal/outfile"
	"github.com/innosim/innosim/internal/progress"
	"github.com/innosim/innosim/internal/report"
	"github.com/innosim/innosim/internal/usl"
	"github.com/innosim/innosim/internal/validate"
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

// flagOfKey names the run flag that sets an option-file key under another
// name, so that the flag and a -vary of the key are refused together.
var flagOfKey = map[string]string{"innodb_use_native_aio": "aio"}

// varyKeys are the --vary keys that are not option-file keys.
var varyKeys = []string{"sched", "profile", "gate", "wake", "aio", "thread_handling"}

type runFlags struct {
	cnf, workload, vary, sched, profile, costs, gate, wake, csv, plot string
	json                                                              string
	aio                                                               string
	threadHandling                                                    string
	server                                                            string
	showSettings                                                      bool
	threads, cpus                                                     []int
	seed                                                              uint64
	measure                                                           time.Duration
	warmup                                                            warmupFlag
	device                                                            deviceFlag
	client                                                            clientFlag
}

func runSweep(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := cmdflag.New("run", stderr, "innosim run --workload W [flags]",
		"Simulates the server of a my.cnf under a sysbench-like workload for every",
		"threads × cpus (× --vary value) cell and prints throughput by threads.")
	var f runFlags
	fs.StringVar(&f.cnf, "cnf", "", "MySQL option file to read (the groups of -server); MySQL's defaults if empty")
	fs.StringVar(&f.server, "server", "mysql", "server whose option groups -cnf is read for: mysql or mariadb, optionally a release -X.Y (mysql-5.1, mariadb-10.5), which also sets its mutex wait array and defaults")
	fs.BoolVar(&f.showSettings, "show-settings", false, "print the settings the run uses, and the line each came from, before the table")
	fs.StringVar(&f.workload, "workload", "", "workload: "+strings.Join(sim.WorkloadNames(), ", ")+" (required)")
	fs.CountsVar(&f.threads, "threads", []int{1, 2, 4, 8, 16, 32, 64}, maxThreads, fmt.Sprintf("client thread `counts`, comma-separated, each 1..%d (run and printed in ascending order)", maxThreads))
	fs.CountsVar(&f.cpus, "cpus", []int{4}, maxCPUs, fmt.Sprintf("core `counts`, comma-separated, each 1..%d (run and printed in ascending order)", maxCPUs))
	fs.StringVar(&f.vary, "vary", "", "one setting and its values, key=v1,v2: an option-file key (innodb_thread_concurrency=0,8) or "+strings.Join(varyKeys, ", "))
	fs.StringVar(&f.sched, "sched", "cfs", "scheduler model: cfs (Linux) or ts (Solaris)")
	fs.StringVar(&f.profile, "profile", "old-kernel", "cost profile: old-kernel, new-kernel or a profile file")
	fs.StringVar(&f.costs, "costs", "", "cost profile file written by innosim calibrate --out (instead of -profile); a cost the file does not give keeps old-kernel's value, and a warning lists those that do")
	fs.StringVar(&f.gate, "gate", "queue", "gate core when innodb_thread_concurrency > 0: queue, atomic or handoff")
	fs.StringVar(&f.aio, "aio", "", "AIO mode: simulated or native (default: the option file's innodb_use_native_aio, ON unless set)")
	fs.StringVar(&f.threadHandling, "thread-handling", "", "MariaDB's thread_handling: one-thread-per-connection (default) or pool-of-threads (not with -server mysql): with -client, the pool's groups of workers taking turns as listener (threadpool_generic.cc: thd_wait_begin, check_stall); without it, a gate per CPU that serves one request at a time in front of a thread per connection, so a request waiting for a page read or an fsync holds its group")
	fs.Var(&f.client, "client", "run the benchmark client on the simulated cores, a client thread per connection as sysbench beside the server, with a wake onto an idle CPU charged (as validate's live cells): on (every key 0), or key=value pairs, each optional: cpu (the client's CPU per unit of the workload), send, recv (kernel work of its write and read), server-cpu (the server's CPU per unit with one connection), server-footprint, client-footprint (bytes a switch refills; need a calibrated -costs); durations 0..1s, sizes in bytes, KiB, MiB or GiB up to 1GiB (sim.ClientConfig). The round trip's sleep (oltp_point_select's 30 µs) is replaced by the client thread's CPU and system calls; refused for a workload with no round trip to a client (row_scan_*, mutex_wake_*) or whose wait is think time (read_ahead)")
	fs.StringVar(&f.wake, "wake", "", "AIO wake policy: all, targeted or deferred (default: all for simulated AIO, targeted for native)")
	fs.Uint64Var(&f.seed, "seed", 1, "random seed")
	fs.Var(&f.device, "device", "storage device the AIO handlers and the workload's reads wait for: units=N[,read=5ms][,write=5ms][,fsync=5ms][,dist=uniform|fixed|exponential], units 1..1024, durations 1ns..10s; a time of a kind of I/O the workload never does is refused")
	fs.DurationVar(&f.measure, "measure", sim.DefaultMeasure, "virtual time measured per cell (after a warm-up), a `duration` of 1ms..1m")
	fs.Var(&f.warmup, "warmup", "each cell's warm-up: a fixed virtual `duration` of 1ms..1m, or steady (until two successive windows agree, and under cfs not before every thread could have had half a scheduling latency of CPU: sim.SteadyWarmup, as validate's live cells; a cell not steady within 120 s of virtual time fails; it can stop on a ramp slower than its windows) (default: steady with -client, 20ms without)")
	fs.StringVar(&f.csv, "csv", "", "also write the results to this CSV file")
	fs.StringVar(&f.plot, "plot", "", "also draw throughput vs threads to this chart (.svg, .png or .pdf)")
	fs.StringVar(&f.json, "json", "", "also write the results, with the settings that made them, to this JSON file; - writes them to stdout instead of the tables")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return cmdflag.Usagef("unexpected argument %q", fs.Arg(0))
	}
	given := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { given[fl.Name] = true })
	if err := fs.Exclusive("costs", "profile"); err != nil {
		return err
	}
	if f.showSettings && f.json == outfile.Stdout {
		return cmdflag.Usagef("-show-settings with -json -: the settings would go to stdout with the JSON, whose rows hold them already: want one")
	}
	if f.workload == "" {
		return cmdflag.Usagef("-workload is required (one of %s)", strings.Join(sim.WorkloadNames(), ", "))
	}
	if _, err := sim.LookupWorkload(f.workload); err != nil {
		return cmdflag.Usagef("-workload %q: want one of %s", f.workload, strings.Join(sim.WorkloadNames(), ", "))
	}
	if f.measure < time.Millisecond || f.measure > time.Minute {
		return cmdflag.Usagef("-measure %v: want 1ms..1m", f.measure)
	}
	if f.plot != "" {
		if err := report.CheckChartPath(f.plot); err != nil {
			return cmdflag.Usagef("-plot: %w", err)
		}
	}
	base, err := readCnf(f.cnf, f.server, f.showSettings, stderr)
	if err != nil {
		return err
	}
	varyKey, varyVals := "", []string{""}
	if given["vary"] { // -vary "" too: it varies nothing, and -threads "" is refused
		if f.vary == "" {
			return cmdflag.Usagef("-vary \"\": want key=v1,v2, or no -vary")
		}
		// an empty value would run a bare key (innodb_use_native_aio=OFF, ran
		// OFF and ON), a value twice the same row twice
		k, vals, err := cmdflag.KeyValues("-vary", f.vary)
		if err != nil {
			return err
		}
		varyKey, varyVals = k, vals
		if k == "threads" || k == "cpus" {
			// the table's columns and rows: "-threads and -vary threads both
			// given" sent the user to a -vary that was then refused
			return cmdflag.Usagef("-vary %s: %s are swept by -%s itself (a list: -%s %s), not by -vary", k, k, k, k, strings.Join(vals, ","))
		}
		if srv, err := mycnf.ParseServer(f.server); err == nil && removedBy(srv, k) {
			return cmdflag.Usagef("-vary %s: %s", k, removedMessage(srv, k))
		}
		flagged := strings.ReplaceAll(k, "_", "-")
		if alias, ok := flagOfKey[k]; ok {
			flagged = alias
		}
		if given[flagged] || k == "profile" && given["costs"] {
			flagName := flagged
			if !given[flagged] {
				flagName = "costs"
			}
			return cmdflag.Usagef("-%s and -vary %s both given: want one (-vary sets %s in every row)", flagName, k, k)
		}
	}
	warnDefaultedCosts(stderr, "run", costFiles(f, varyKey, varyVals))
	if f.showSettings {
		writeSettings(stdout, base, f.server, varyKey, f)
	}
	type row struct {
		val  string
		cpus int
	}
	var rows []row
	var cells []sim.Cell
	var settings []settingsJSON // per -vary value
	var protos []sim.Cell       // per -vary value
	for _, v := range varyVals {
		opts := f
		s := base
		if varyKey != "" {
			if err := applyVary(&opts, &s, varyKey, v); err != nil {
				return cmdflag.Usagef("-vary %s=%s: %v", varyKey, v, err)
			}
		}
		proto, err := buildCell(opts, s, varyKey)
		if err != nil {
			return err
		}
		proto.Device = f.device.cfg
		if f.client.cfg != nil {
			client := *f.client.cfg
			proto.Client, proto.RemoteWake = &client, true
		}
		if wu := f.warmup.effective(f.client.cfg != nil); wu.steady {
			// connections complete in waves a round trip apart, a device's
			// queue fills: warm up until steady, as a live table's cells do
			proto.Warmup, proto.Steady = validate.LiveWarmup, validate.LiveSteady()
		} else {
			proto.Warmup = wu.d
		}
		protos = append(protos, proto)
		settings = append(settings, cellSettings(proto, opts))
		for _, c := range f.cpus {
			rows = append(rows, row{v, c})
			for _, th := range f.threads {
				cell := proto
				cell.Threads, cell.Machine.CPUs = th, c
				cells = append(cells, cell)
			}
		}
	}
	if err := checkTakesEffect(protos, base, varyKey, varyVals, f, given["gate"]); err != nil {
		return err
	}
	if err := checkDeviceUse(protos, f, varyKey); err != nil {
		return err
	}
	if err := checkPoolCPUs(protos, base, varyKey, varyVals, f); err != nil {
		return err
	}
	if err := checkGateEntered(protos, base, varyKey, varyVals, f); err != nil {
		return err
	}
	if f.device.cfg == nil {
		for j, proto := range protos {
			if commitFsyncs(proto) {
				row := ""
				if varyKey != "" {
					row = fmt.Sprintf("-vary %s=%s: ", varyKey, varyVals[j])
				}
				return cmdflag.Usagef("%sworkload %s with innodb_flush_log_at_trx_commit = 1 fsyncs the log at every commit: want -device (e.g. -device units=1,fsync=200us), or innodb_flush_log_at_trx_commit = 0 or 2 (-cnf or -vary)",
					row, f.workload)
			}
		}
	}
	for i := range cells {
		cells[i].Machine.Seed = cells[i].SeedFor(f.seed)
	}
	if err := checkRows(cells, len(f.cpus)*len(f.threads), varyKey, varyVals); err != nil {
		return err
	}
	for i := range cells {
		if err := cells[i].Validate(); err != nil {
			return cmdflag.Usagef("cell %d of %d (%d threads, %d cpus): %w%s", i+1, len(cells), cells[i].Threads, cells[i].Machine.CPUs, err, steadyHint(err))
		}
	}
	outs, err := outputs(stdout, "-csv", f.csv, "-json", f.json, "-plot", f.plot)
	if err != nil {
		return err
	}
	defer discardAll(outs)
	csvOut, jsonOut, plotOut := outs[0], outs[1], outs[2]
	text := stdout // the tables, unless the JSON goes to stdout instead
	if jsonOut.IsStdout() {
		text = io.Discard
	}
	prog := progress.Bars(stderr, "innosim run") // a bar on a terminal; redirected, stderr holds run's own lines only
	update := prog.Phase("cells", "cells")
	res, err := sim.RunCells(ctx, cells, func(done int) { update(done, len(cells)) })
	prog.Close()
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("interrupted: no output written: %w", err)
		}
		return fmt.Errorf("%w%s", err, steadyHint(err))
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
	t.Header = append(t.Header, "usl peak (threads)")
	js := runJSON{Workload: f.workload, Unit: w.Unit, Seed: f.seed, Measure: f.measure.String(), Warmup: warmupName(f), Vary: varyKey,
		Cnf: f.cnf, Server: f.server}
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
			js.Cells = append(js.Cells, cellJSON{Value: r.val, CPUs: r.cpus, Threads: th, Throughput: x.Throughput,
				Utilisation: report.Finite(x.Utilisation()), FutexSpinShare: report.Finite(x.FutexSpinShare()),
				ReadsPerS: rd, WritesPerS: wr, FsyncsPerS: fy, Seed: cells[i*len(f.threads)+j].Machine.Seed})
			if varyKey != "" {
				lr = append([]any{r.val}, lr...)
			}
			long.AddRow(lr...)
		}
		peak := "-" // too few thread counts, or a peak the data do not locate
		row := rowJSON{Value: r.val, CPUs: r.cpus, Settings: settings[i/len(f.cpus)]}
		if u, err := usl.Fit(ctx, ns, xs); err == nil {
			if p, ok := u.PeakNear(slices.Min(ns), slices.Max(ns)); ok {
				peak = fmt.Sprintf("%.1f", p)
				row.USLPeakThreads = &p
			}
		}
		js.Rows = append(js.Rows, row)
		t.AddRow(append(cellsRow, peak)...)
		name := fmt.Sprintf("%d cpus", r.cpus)
		if varyKey != "" {
			name = fmt.Sprintf("%s=%s, %s", varyKey, r.val, name)
		}
		chart = append(chart, report.Series{Name: name, X: ns, Y: xs})
	}
	if err := t.WriteText(text); err != nil {
		return err
	}
	if f.device.cfg != nil || anyIO(res) {
		lead := []string{"cpus"}
		if varyKey != "" {
			lead = []string{varyKey, "cpus"}
		}
		it := ioTable(f.workload, lead, len(rows), f.threads, res, func(i int) []any {
			if varyKey != "" {
				return []any{rows[i].val, rows[i].cpus}
			}
			return []any{rows[i].cpus}
		})
		if err := it.WriteText(text); err != nil {
			return err
		}
	}
	// every output is complete before any replaces its destination: a chart
	// that cannot be drawn leaves no CSV or JSON of the run either
	if err := csvOut.Fill(func(out *os.File) error { return long.WriteCSV(out) }); err != nil {
		return err
	}
	if err := jsonOut.FillStream(func(w io.Writer) error { return report.WriteJSON(w, js) }); err != nil {
		return err
	}
	if err := plotOut.Fill(func(out *os.File) error {
		return report.WriteChart(out.Name(), t.Title, "client threads", w.Unit, true, chart)
	}); err != nil {
		return err
	}
	for _, o := range outs {
		if err := o.Commit(); err != nil {
			return err
		}
	}
	return nil
}

// Bounds of -threads and -cpus: sim.Cell's.
const (
	maxThreads = 10000
	maxCPUs    = 1024
)

// runJSON is what run --json writes: the sweep's settings, one entry per cell
// and one per row of the table (each row with the settings its cells ran).
type runJSON struct {
	Workload string     `json:"workload"`
	Unit     string     `json:"unit"`
	Seed     uint64     `json:"seed"`
	Measure  string     `json:"measure"`
	Warmup   string     `json:"warmup"`
	Cnf      string     `json:"cnf,omitempty"`
	Server   string     `json:"server"`
	Vary     string     `json:"vary,omitempty"`
	Cells    []cellJSON `json:"cells"`
	Rows     []rowJSON  `json:"rows"`
}

// settingsJSON is what a row's cells ran with, after the option file, the
// flags and the -vary value: the scheduler, the cost profile's name, the
// gate (innodb_thread_concurrency 0: none), AIO's mode and wake policy (none
// for a workload without AIO), thread_handling, the device (none) and the
// client on the machine (none: off it).
type settingsJSON struct {
	Scheduler         string `json:"scheduler"`
	Costs             string `json:"costs"`
	ThreadConcurrency int    `json:"innodb_thread_concurrency"`
	Gate              string `json:"gate,omitempty"`
	AIO               string `json:"aio,omitempty"`
	Wake              string `json:"wake,omitempty"`
	ThreadHandling    string `json:"thread_handling"`
	Device            string `json:"device,omitempty"`
	Client            string `json:"client,omitempty"`
}

// cellSettings reads settingsJSON off a cell prototype built from f.
func cellSettings(c sim.Cell, f runFlags) settingsJSON {
	s := settingsJSON{Scheduler: c.Machine.Scheduler.String(), Costs: c.Machine.Costs.Name,
		ThreadHandling: c.ThreadHandling.String(), Device: f.device.String(), Client: f.client.String()}
	if f.costs != "" {
		s.Costs = f.costs
	}
	if c.Gate != nil {
		s.ThreadConcurrency, s.Gate = c.Gate.Config.Limit, c.Gate.Policy.String()
	}
	if c.AIO != nil {
		s.AIO, s.Wake = c.AIO.IO.String(), c.AIO.Wake.String()
	}
	return s
}

// cellJSON is one simulated cell, with the figures of its -csv row under
// the CSV's names (the unit is runJSON's): Value is the -vary value,
// Throughput in the workload's unit, ReadsPerS, WritesPerS and FsyncsPerS
// the device's operations per second of virtual time (sim.Result.IORates; 0
// without I/O), Seed the cell's own seed (sim.Cell.SeedFor of -seed).
type cellJSON struct {
	Value          string  `json:"value,omitempty"`
	CPUs           int     `json:"cpus"`
	Threads        int     `json:"threads"`
	Throughput     float64 `json:"throughput"`
	Utilisation    float64 `json:"utilisation"`
	FutexSpinShare float64 `json:"futex_spin_share"`
	ReadsPerS      float64 `json:"reads_per_s"`
	WritesPerS     float64 `json:"writes_per_s"`
	FsyncsPerS     float64 `json:"fsyncs_per_s"`
	Seed           uint64  `json:"seed"`
}

// rowJSON is one row of the table: the USL peak of its thread sweep, in
// threads, when the data locate one.
type rowJSON struct {
	Value          string       `json:"value,omitempty"`
	CPUs           int          `json:"cpus"`
	Settings       settingsJSON `json:"settings"`
	USLPeakThreads *float64     `json:"usl_peak_threads,omitempty"`
}

// applyVary applies one --vary value: a run flag (sched, profile, gate, wake, aio) or
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
	case "aio":
		f.aio = val
	case "thread_handling":
		f.threadHandling = val
	default:
		if err := s.Set(key, val); err != nil {
			if slices.Contains(mycnf.Keys(), strings.ReplaceAll(key, "-", "_")) {
				return fmt.Errorf("option-file key %s: %w", key, err) // a bad value, not a bad key
			}
			return fmt.Errorf("not one of %s, nor an option-file key: %w", strings.Join(varyKeys, ", "), err)
		}
	}
	return nil
}

// buildCell makes the cell prototype from the flags and settings; varied is
// the -vary key that set one of them ("" for none), for the errors to name
// what the user gave.
func buildCell(f runFlags, s mycnf.Settings, varied string) (sim.Cell, error) {
	// named is how the user gave a key's value: -vary key=val, or -key "val"
	named := func(key, val string) string {
		if varied == key {
			return fmt.Sprintf("-vary %s=%s", key, val)
		}
		return fmt.Sprintf("-%s %q", key, val)
	}
	switch f.aio { // innodb_use_native_aio by its mode's name
	case "":
	case "simulated":
		s.UseNativeAIO = false
	case "native":
		s.UseNativeAIO = true
	default:
		return sim.Cell{}, cmdflag.Usagef("%s: want simulated or native", named("aio", f.aio))
	}
	c, err := sim.CellFromSettings(s, f.workload)
	if err != nil {
		return sim.Cell{}, err
	}
	if c.Gate != nil && !entersGate(c) && settingIsDefault(s, "innodb_thread_concurrency") {
		// A release's own default (8 in MySQL 5.0 and 5.1) for a workload
		// that never enters InnoDB's gate: the limit has nothing to admit. A
		// limit the user set is left for Validate to refuse.
		c.Gate = nil
	}
	if c.Machine.Scheduler, err = sim.ParseScheduler(f.sched); err != nil {
		return sim.Cell{}, cmdflag.Usagef("%s: want cfs or ts", named("sched", f.sched))
	}
	if f.costs != "" {
		if c.Machine.Costs, _, err = loadProfile(f.costs); err != nil {
			return sim.Cell{}, fmt.Errorf("-costs: %w", err)
		}
	} else if c.Machine.Costs, err = sim.Profile(f.profile); err != nil {
		if _, statErr := os.Stat(f.profile); statErr != nil {
			return sim.Cell{}, cmdflag.Usagef("%s: want old-kernel, new-kernel or a profile file", named("profile", f.profile))
		}
		if c.Machine.Costs, _, err = loadProfile(f.profile); err != nil {
			return sim.Cell{}, fmt.Errorf("-profile: %w", err)
		}
	}
	g, err := concurrency.ParsePolicy(f.gate)
	if err != nil || g != concurrency.PolicyQueue && g != concurrency.PolicyAtomic && g != concurrency.PolicyHandoff {
		return sim.Cell{}, cmdflag.Usagef("%s: want queue, atomic or handoff", named("gate", f.gate))
	}
	if c.Gate != nil {
		c.Gate.Policy = g
	}
	if c.AIO == nil && (f.wake != "" || f.aio != "") {
		key, val := "wake", f.wake
		if f.wake == "" {
			key, val = "aio", f.aio
		}
		given := named(key, val)
		return sim.Cell{}, cmdflag.Usagef("%s with workload %s, which submits no AIO: want a workload with an AIO array (%s)", given, f.workload, strings.Join(aioWorkloads(), ", "))
	}
	var wp aio.WakePolicy
	switch f.wake {
	case "": // the configuration's: AIOConfig's choice for the mode
		if c.AIO != nil {
			wp = c.AIO.Wake
		}
	case "all":
		wp = aio.WakeAll
	case "targeted":
		wp = aio.WakeTargeted
	case "deferred":
		wp = aio.WakeDeferred
	default:
		return sim.Cell{}, cmdflag.Usagef("%s: want all, targeted or deferred", named("wake", f.wake))
	}
	if c.AIO != nil {
		c.AIO.Wake = wp
		if err := c.AIO.Validate(); err != nil {
			if wp == aio.WakeAll && c.AIO.IO == aio.IONative {
				return sim.Cell{}, wakeAllNativeError(f, s, varied, err)
			}
			return sim.Cell{}, cmdflag.Usagef("AIO of workload %s: %w", f.workload, err)
		}
	}
	if f.threadHandling != "" {
		if c.ThreadHandling, err = sim.ParseThreadHandling(f.threadHandling); err != nil {
			return sim.Cell{}, cmdflag.Usagef("-thread-handling %q: want one-thread-per-connection or pool-of-threads", f.threadHandling)
		}
	}
	srv, err := mycnf.ParseServer(f.server)
	if err != nil {
		return sim.Cell{}, cmdflag.Usagef("-server: %w", err)
	}
	if err := checkThreadHandling(srv, c.ThreadHandling); err != nil {
		return sim.Cell{}, err
	}
	if err := checkNativeAIO(srv, c, f.aio == "native"); err != nil {
		return sim.Cell{}, err
	}
	if c.Machine.SyncArray, err = syncArrayOf(srv); err != nil {
		return sim.Cell{}, err
	}
	c.Measure = f.measure
	return c, nil
}

// wakeAllNativeError refuses wake all (from -wake or -vary wake) with native
// AIO, which wakes no handler thread (err says so): it names where each came
// from, native AIO's source being -aio, -vary aio, the -cnf line of
// innodb_use_native_aio or the server's default (ON from MySQL 5.5), and
// what gives simulated AIO, whose wake policies include all.
func wakeAllNativeError(f runFlags, s mycnf.Settings, varied string, err error) error {
	wake := "-wake all"
	if varied == "wake" {
		wake = "-vary wake=all"
	}
	var native, want string
	switch {
	case varied == "aio":
		native = "-vary aio=native"
		want = "-wake targeted or deferred, or no -wake (each mode's default)"
	case f.aio == "native":
		native = "-aio native"
		want = "-aio simulated for wake all, or -wake targeted or deferred"
		if varied == "wake" {
			want = "-aio simulated for wake all, or -vary wake=targeted,deferred"
		}
	default:
		native = "innodb_use_native_aio = ON, the server's default"
		for _, st := range s.List() {
			if st.Key == "innodb_use_native_aio" && !st.IsDefault() {
				native = "innodb_use_native_aio = ON at " + st.From.String()
			}
		}
		want = "-aio simulated or -vary aio=simulated (or innodb_use_native_aio = OFF in -cnf) for wake all"
		if varied == "wake" {
			want = "-aio simulated (or innodb_use_native_aio = OFF in -cnf) to vary the wake policy of simulated AIO, or -vary wake=targeted,deferred"
		}
	}
	return cmdflag.Usagef("%s with native AIO (%s), which wakes no handler thread: want %s: %w", wake, native, want, err)
}

// checkTakesEffect refuses a setting that changes no cell of the sweep, which
// would otherwise be printed as if it had been simulated: -gate (given, or
// varied) when no row has a gate (innodb_thread_concurrency = 0 everywhere),
// and a -vary of which two values build the same cell (a key the workload
// never reads, such as innodb_read_io_threads for connect, or
// innodb_flush_log_at_trx_commit for one that never commits through the
// redo log: see withoutUnread). protos holds the cell prototype of each
// -vary value, in the order of vals; base the settings -vary changes. Two
// values that are one (two spellings of an option-file key's value, two paths
// of one cost profile) are refused as such: the workload reads the key.
func checkTakesEffect(protos []sim.Cell, base mycnf.Settings, varyKey string, vals []string, f runFlags, gateGiven bool) error {
	if (gateGiven || varyKey == "gate") && !slices.ContainsFunc(protos, func(c sim.Cell) bool { return c.Gate != nil }) {
		flagName := "-gate " + f.gate
		if varyKey == "gate" {
			flagName = "-vary gate"
		}
		return cmdflag.Usagef("%s with innodb_thread_concurrency = 0 in every row, which has no gate: want innodb_thread_concurrency > 0 (-cnf or -vary), or no %s",
			flagName, strings.Fields(flagName)[0])
	}
	read := make([]sim.Cell, len(protos))
	for i, p := range protos {
		read[i] = withoutUnread(p)
	}
	for j := range read {
		for i := range j {
			if !reflect.DeepEqual(read[i], read[j]) {
				continue
			}
			if same, ok := sameValue(base, varyKey, vals[i], vals[j]); ok {
				return cmdflag.Usagef("-vary %s: values %q and %q build the same cell: they %s: want each value once",
					varyKey, vals[i], vals[j], same)
			}
			return cmdflag.Usagef("-vary %s: values %q and %q build the same cell for workload %s (it does not read %s): want a setting that changes the run",
				varyKey, vals[i], vals[j], f.workload, varyKey)
		}
	}
	return nil
}

// flagKeyNames names what each of -vary's run-flag keys (varyKeys) chooses.
var flagKeyNames = map[string]string{"sched": "scheduler", "profile": "cost profile (the same name and costs)",
	"gate": "gate core", "wake": "wake policy", "aio": "AIO mode", "thread_handling": "thread handling"}

// sameValue reports whether a and b, two -vary values of key that build the
// same cell, are one value, and says so ("are one value of
// innodb_use_native_aio (ON)", "name the same cost profile ..."): an
// option-file key's two spellings of one value (ON and 1, 1G and 1024M), or
// any two values of a run-flag key, which every cell it reaches reads (a
// -gate without a gate, a -wake or -aio without an AIO array are refused
// before). Otherwise the workload does not read key.
func sameValue(base mycnf.Settings, key, a, b string) (string, bool) {
	if name, ok := flagKeyNames[key]; ok {
		return "name the same " + name, true
	}
	value := func(v string) (mycnf.Setting, bool) {
		s := base
		if s.Set(key, v) != nil {
			return mycnf.Setting{}, false
		}
		for _, st := range s.List() {
			if st.From == (mycnf.Pos{File: "Set"}) { // the one Set changed
				return st, true
			}
		}
		return mycnf.Setting{}, false
	}
	sa, okA := value(a)
	sb, okB := value(b)
	if !okA || !okB || sa.Value != sb.Value {
		return "", false
	}
	return fmt.Sprintf("are one value of %s (%s)", sa.Key, strings.TrimSpace(sa.Value+" "+sa.Unit)), true
}

// checkGateEntered refuses a gate (innodb_thread_concurrency > 0, set by a
// -cnf line or -vary: a release's own default is left out by buildCell) for
// a workload that never enters InnoDB's gate (connect, the mutex loads),
// naming where the limit came from: the gate would admit nothing the
// workload does. sim.Cell.Validate refuses such a cell too, but per cell, as
// "cell 8 of 14 (1 threads, 4 cpus): sim: Gate ...", a refusal of the flags
// read as a failure of one cell.
func checkGateEntered(protos []sim.Cell, base mycnf.Settings, varyKey string, vals []string, f runFlags) error {
	for j, p := range protos {
		if p.Gate == nil || entersGate(p) {
			continue
		}
		from := fmt.Sprintf("innodb_thread_concurrency = %d", p.Gate.Config.Limit)
		if varyKey == "innodb_thread_concurrency" {
			from = "-vary innodb_thread_concurrency=" + vals[j]
		} else {
			for _, st := range base.List() {
				if st.Key == "innodb_thread_concurrency" && !st.IsDefault() {
					from += " at " + st.From.String()
				}
			}
		}
		return cmdflag.Usagef("%s with workload %s, which never enters InnoDB's gate: want innodb_thread_concurrency = 0 for it (-cnf or -vary), or a workload that enters the gate",
			from, f.workload)
	}
	return nil
}

// checkRows refuses, as a refusal of the flags, a row of the sweep (the
// cells of one -vary value, per of them in cells, in order) whose every
// cell sim.Cell.Validate refuses for one reason: it does not depend on the
// cell's threads or cores, so it is the flags' combination, not a cell,
// that cannot run. The message names the -vary value, not a cell, and is
// the simulator's without its package prefix and sentinel text.
func checkRows(cells []sim.Cell, per int, varyKey string, vals []string) error {
	for j := 0; per > 0 && j*per < len(cells); j++ {
		var first error
		for _, c := range cells[j*per : min((j+1)*per, len(cells))] {
			err := c.Validate()
			if err == nil || first != nil && err.Error() != first.Error() {
				first = nil
				break
			}
			first = err
		}
		if first == nil {
			continue
		}
		row := ""
		if varyKey != "" {
			row = fmt.Sprintf("-vary %s=%s: ", varyKey, vals[j])
		}
		return &cmdflag.UsageError{Err: plainError{row + simMessage(first) + steadyHint(first), first}}
	}
	return nil
}

// simMessage returns err's message without the simulator's "sim: " prefix
// and its sentinel's text (": invalid config") at the end.
func simMessage(err error) string {
	msg := strings.TrimPrefix(err.Error(), "sim: ")
	return strings.TrimSuffix(msg, ": "+sim.ErrInvalidConfig.Error())
}

// plainError is an error shown as msg that wraps err, for errors.Is.
type plainError struct {
	msg string
	err error
}

func (e plainError) Error() string { return e.msg }
func (e plainError) Unwrap() error { return e.err }

// checkPoolCPUs refuses a -cpus above sim.MaxThreadPoolSize for a row of
// pool-of-threads (protos holds one cell per -vary value of vals; base the
// settings before -vary): the pool has a group per CPU, thread_pool_size's
// default, and run sets no other size (a -cnf's thread_pool_size is not
// modelled), while the simulator's pool takes at most MaxThreadPoolSize
// groups (concurrency.MaxLimit: a concurrency core per group; MariaDB allows
// more). The message names where the pool came from: -thread-handling,
// -vary thread_handling or the -cnf line.
func checkPoolCPUs(protos []sim.Cell, base mycnf.Settings, varyKey string, vals []string, f runFlags) error {
	over := slices.IndexFunc(f.cpus, func(c int) bool { return c > sim.MaxThreadPoolSize })
	if over < 0 {
		return nil
	}
	for j, p := range protos {
		if p.ThreadHandling != sim.PoolOfThreads || p.ThreadPoolSize != 0 {
			continue
		}
		from := "-thread-handling pool-of-threads"
		switch {
		case varyKey == "thread_handling":
			from = "-vary thread_handling=" + vals[j]
		case f.threadHandling == "":
			for _, st := range base.List() {
				if st.Key == "thread_handling" {
					from = "thread_handling = pool-of-threads at " + st.From.String()
				}
			}
		}
		return cmdflag.Usagef("-cpus %d with pool-of-threads (%s): the pool has a group per CPU (thread_pool_size's default, which run does not change: a -cnf's thread_pool_size is not modelled), and the simulator's pool takes 1..%d groups (sim.MaxThreadPoolSize): want -cpus 1..%d with pool-of-threads",
			f.cpus[over], from, sim.MaxThreadPoolSize, sim.MaxThreadPoolSize)
	}
	return nil
}

// withoutUnread returns proto with the settings its workload never reads
// left out (nil or 0, as if not set): Log (innodb_flush_log_at_trx_commit)
// unless the workload commits through the redo log, BufferPool
// (innodb_buffer_pool_size) unless it reads the pool (sim.Uses).
// sim.CellFromSettings sets both for every workload, and the seed hashes them
// (sim.Cell.SeedFor), so cells that differ only there run alike but for their
// seeds.
func withoutUnread(proto sim.Cell) sim.Cell {
	if u, ok := uses(proto); ok && !u.LogCommit {
		proto.Log = nil
	}
	if u, ok := uses(proto); ok && !u.BufferPool {
		proto.BufferPool = 0
	}
	return proto
}

// entersGate reports whether a cell of proto enters InnoDB's gate
// (innodb_thread_concurrency) at all.
func entersGate(proto sim.Cell) bool {
	u, ok := uses(proto)
	return !ok || u.Gate
}

// uses returns what proto's workload declares it uses; false when the
// workload is unknown (Validate then names what is wrong).
func uses(proto sim.Cell) (sim.Uses, bool) {
	w, err := sim.LookupWorkload(proto.Workload)
	return w.Uses, err == nil
}

// aioWorkloads returns the workloads that submit AIO (sim.Uses.AIO), sorted.
func aioWorkloads() []string {
	var names []string
	for _, n := range sim.WorkloadNames() {
		if w, _ := sim.LookupWorkload(n); w.Uses.AIO {
			names = append(names, n)
		}
	}
	return names
}

// settingIsDefault reports whether no line (nor -vary) set key in s.
func settingIsDefault(s mycnf.Settings, key string) bool {
	for _, st := range s.List() {
		if st.Key == key {
			return st.IsDefault()
		}
	}
	return false
}

// commitFsyncs reports whether a cell of proto commits through the redo log
// with innodb_flush_log_at_trx_commit = 1, so that each commit waits for an
// fsync of the log and the cell needs a device (sim.Machine.SetLog).
func commitFsyncs(proto sim.Cell) bool {
	if proto.Log != nil && proto.Log.FlushAtTrxCommit != 1 {
		return false
	}
	u, _ := uses(proto)
	return u.LogCommit
}

// checkDeviceUse refuses a -device that no cell of protos (one per -vary
// value) waits for, and a service time it gives (read, write, fsync) of a
// kind of I/O no cell does (sim.Cell.DeviceUse): either would change nothing
// but the seed. A cell whose use cannot be read is left for Validate.
func checkDeviceUse(protos []sim.Cell, f runFlags, varyKey string) error {
	if f.device.cfg == nil {
		return nil
	}
	var use sim.DeviceUse
	for _, p := range protos {
		u, err := p.DeviceUse()
		if err != nil {
			return nil
		}
		use.Read, use.Write, use.Fsync = use.Read || u.Read, use.Write || u.Write, use.Fsync || u.Fsync
	}
	rows := ""
	if varyKey != "" {
		rows = " in any row"
	}
	if use == (sim.DeviceUse{}) {
		return cmdflag.Usagef("-device with workload %s, which never waits for a device%s (no read, write or fsync, no AIO array, no commit that fsyncs: innodb_flush_log_at_trx_commit = 1): want a workload that does I/O, or no -device",
			f.workload, rows)
	}
	kinds := []struct {
		key, verb string
		used      bool
		d         time.Duration
	}{{"read", "reads", use.Read, f.device.cfg.Read}, {"write", "writes", use.Write, f.device.cfg.Write}, {"fsync", "fsyncs", use.Fsync, f.device.cfg.Fsync}}
	var does []string
	for _, k := range kinds {
		if k.used {
			does = append(does, k.verb)
		}
	}
	for _, k := range kinds {
		if f.device.given[k.key] && !k.used {
			return cmdflag.Usagef("-device %s=%v with workload %s, which never %s%s (it only %s): want no %s key in -device",
				k.key, k.d, f.workload, k.verb, rows, strings.Join(does, " and "), k.key)
		}
	}
	return nil
}

// warmupFlag is run's -warmup: "steady" or a fixed virtual duration of
// 1ms..1m; not given (the zero value), it is steady with -client and
// sim.DefaultWarmup (20 ms) without (effective). A fixed 0 is not offered:
// sim.Cell reads a zero Warmup as its default.
type warmupFlag struct {
	d             time.Duration
	given, steady bool
}

// steadyHint is what to add to a cell's error that wraps sim.ErrNotSteady:
// how to measure such a cell anyway.
func steadyHint(err error) string {
	if errors.Is(err, sim.ErrNotSteady) {
		return "; a fixed -warmup DURATION measures the cell after that warm-up instead"
	}
	return ""
}

// warmupName is the warm-up f's run uses, as -warmup would give it.
func warmupName(f runFlags) string {
	wu := f.warmup.effective(f.client.cfg != nil)
	return wu.String()
}

// effective is the warm-up a run uses: w as given, else the default for a
// run with (client) or without the client on the machine.
func (w warmupFlag) effective(client bool) warmupFlag {
	if w.given {
		return w
	}
	if client {
		return warmupFlag{given: true, steady: true}
	}
	return warmupFlag{given: true, d: sim.DefaultWarmup}
}

func (w *warmupFlag) String() string {
	switch {
	case !w.given:
		return "" // the flag package's default: run -h names it in the usage
	case w.steady:
		return "steady"
	}
	return w.d.String()
}

func (w *warmupFlag) Set(v string) error {
	if v == "steady" {
		*w = warmupFlag{given: true, steady: true}
		return nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return errors.New("want steady, or a duration with a unit of 1ms..1m, such as 20ms")
	}
	if d < time.Millisecond || d > time.Minute {
		return fmt.Errorf("%v is out of range: want steady, or 1ms..1m", d)
	}
	*w = warmupFlag{d: d, given: true}
	return nil
}
