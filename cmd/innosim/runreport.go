package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"

	"github.com/innosim/innosim/internal/outfile"
	"github.com/innosim/innosim/internal/report"
	"github.com/innosim/innosim/internal/usl"
	"github.com/innosim/innosim/sim"
)

// runReport is what run prints and writes of a sweep's results: the table
// of throughput by threads (a row per -vary value × core count, with the
// USL peak of its series), the I/O table, the CSV's row per cell, the JSON
// and the chart's series.
type runReport struct {
	unit  string
	table report.Table
	io    *report.Table // nil when no cell did I/O and there is no device
	long  report.Table
	js    runJSON
	chart []report.Series
}

// newRunReport lays out res, the results of sw's cells in their order.
func newRunReport(ctx context.Context, sw *sweep, res []sim.Result) runReport {
	w, _ := sim.LookupWorkload(sw.workload)
	rep := runReport{unit: w.Unit,
		table: report.Table{Title: fmt.Sprintf("%s (%s) by client threads", sw.workload, w.Unit)},
		long:  report.Table{Header: []string{"cpus", "threads", "throughput", "unit", "utilisation", "futex_spin_share", "reads_per_s", "writes_per_s", "fsyncs_per_s"}},
		js: runJSON{Workload: sw.workload, Unit: w.Unit, Seed: sw.seed, MeasureNs: sw.measure.Nanoseconds(),
			Vary: sw.varyKey, Cnf: sw.cnf, Server: sw.runFlags.server, Machine: sw.machine.json()},
	}
	if sw.machine != nil {
		rep.js.ClientCPUs = sw.machine.client
	}
	rep.js.Warmup, rep.js.WarmupNs = warmupJSON(sw.runFlags)
	lead := []string{"cpus"}
	if sw.varyKey != "" {
		lead = []string{sw.varyKey, "cpus"}
		rep.long.Header = append([]string{sw.varyKey}, rep.long.Header...)
	}
	rep.table.Header = append(rep.table.Header, lead...)
	for _, th := range sw.threads {
		rep.table.Header = append(rep.table.Header, "t"+strconv.Itoa(th))
	}
	rep.table.Header = append(rep.table.Header, "usl peak (threads)")
	var labels [][]any // each row's leading cells
	for _, vr := range sw.variants {
		settings := cellSettings(vr.proto, vr.flags)
		for _, cpus := range sw.cpus {
			label := []any{cpus}
			if sw.varyKey != "" {
				label = []any{vr.value, cpus}
			}
			i := len(labels) * len(sw.threads)
			rep.addRow(ctx, sw, label, vr.value, cpus, settings, sw.cells[i:i+len(sw.threads)], res[i:i+len(sw.threads)])
			labels = append(labels, label)
		}
	}
	if sw.device.cfg != nil || anyIO(res) {
		it := ioTable(sw.workload, lead, len(labels), sw.threads, res, func(i int) []any { return labels[i] })
		rep.io = &it
	}
	return rep
}

// addRow adds a row of the table (led by label: the -vary value, the core
// count), its cells, a series of the chart and the JSON's row with its USL
// peak, when the data locate one.
func (rep *runReport) addRow(ctx context.Context, sw *sweep, label []any, value string, cpus int, settings settingsJSON, cells []sim.Cell, res []sim.Result) {
	row := slices.Clone(label)
	var ns, xs []float64
	for j, x := range res {
		th := sw.threads[j]
		rd, wr, fy := x.IORates()
		util, spin := report.Finite(x.Utilisation()), report.Finite(x.FutexSpinShare())
		cj := cellJSON{Value: value, CPUs: cpus, Threads: th, Throughput: &x.Throughput,
			Utilisation: &util, FutexSpinShare: &spin, ReadsPerS: &rd, WritesPerS: &wr, FsyncsPerS: &fy, Seed: cells[j].Machine.Seed}
		figures := []any{x.Throughput, rep.unit, x.Utilisation(), x.FutexSpinShare(), rd, wr, fy}
		if x.NotSteady {
			// still in its initial transient at its bound: its last
			// window's figures are none the simulator stands behind, so
			// none is printed (the CSV's are empty, the JSON's null), and
			// it is in the fit and chart neither
			figures = []any{notSteady, rep.unit, "", "", "", "", ""}
			cj.Throughput, cj.Utilisation, cj.FutexSpinShare, cj.NotSteady = nil, nil, nil, true
			cj.ReadsPerS, cj.WritesPerS, cj.FsyncsPerS = nil, nil, nil
		} else {
			ns, xs = append(ns, float64(th)), append(xs, x.Throughput)
		}
		row = append(row, figures[0])
		rep.long.AddRow(append(append(label[:len(label)-1:len(label)-1], cpus, th), figures...)...)
		rep.js.Cells = append(rep.js.Cells, cj)
	}
	peak := "-" // too few thread counts, or a peak the data do not locate
	jr := rowJSON{Value: value, CPUs: cpus, Settings: settings}
	if u, err := usl.Fit(ctx, ns, xs); err == nil && len(ns) > 0 {
		if p, ok := u.PeakNear(slices.Min(ns), slices.Max(ns)); ok {
			peak = fmt.Sprintf("%.1f", p)
			jr.USLPeakThreads = &p
		}
	}
	rep.js.Rows = append(rep.js.Rows, jr)
	rep.table.AddRow(append(row, peak)...)
	name := fmt.Sprintf("%d cpus", cpus)
	if sw.varyKey != "" {
		name = fmt.Sprintf("%s=%s, %s", sw.varyKey, value, name)
	}
	rep.chart = append(rep.chart, report.Series{Name: name, X: ns, Y: xs})
}

// write prints the tables on text and fills the outputs (-csv, -json,
// -plot, each nil for none), then renames them into place: every output is
// complete before any replaces its destination, so a chart that cannot be
// drawn leaves no CSV or JSON of the run either.
func (rep runReport) write(text io.Writer, csvOut, jsonOut, plotOut *outfile.File) error {
	if err := rep.table.WriteText(text); err != nil {
		return err
	}
	if rep.io != nil {
		if err := rep.io.WriteText(text); err != nil {
			return err
		}
	}
	if err := csvOut.FillStream(rep.long.WriteCSV); err != nil {
		return err
	}
	if err := jsonOut.FillStream(func(w io.Writer) error { return report.WriteJSON(w, rep.js) }); err != nil {
		return err
	}
	if err := plotOut.Fill(func(out *os.File) error {
		return report.WriteChart(out.Name(), rep.table.Title, "client threads", rep.unit, true, rep.chart)
	}); err != nil {
		return err
	}
	for _, o := range []*outfile.File{csvOut, jsonOut, plotOut} {
		if err := o.Commit(); err != nil {
			return err
		}
	}
	return nil
}

// notSteady is what the table and the CSV print for a cell still in its
// initial transient at its steady warm-up's bound (sim.Result.NotSteady).
const notSteady = "not steady"

// runJSON is what run --json writes: the sweep's settings, one entry per cell
// and one per row of the table (each row with the settings its cells ran).
type runJSON struct {
	Workload  string `json:"workload"`
	Unit      string `json:"unit"`
	Seed      uint64 `json:"seed"`
	MeasureNs int64  `json:"measure_ns"` // the window measured, virtual nanoseconds
	Warmup    string `json:"warmup"`     // fixed, or steady: until two windows agree
	WarmupNs  *int64 `json:"warmup_ns"`  // a fixed warm-up; null for steady
	Cnf       string `json:"cnf,omitempty"`
	Server    string `json:"server"`
	Vary      string `json:"vary,omitempty"`
	// Machine is -machine's box, omitted without it; ClientCPUs the
	// client's own cores (-client-cpus, a count: quarter's of the box),
	// 0 for none.
	Machine    *machineJSON `json:"machine,omitempty"`
	ClientCPUs int          `json:"client_cpus"`
	Cells      []cellJSON   `json:"cells"`
	Rows       []rowJSON    `json:"rows"`
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
// without I/O), Seed the cell's own seed (sim.Cell.SeedFor of -seed). Every
// figure is null for a cell that did not settle within its steady warm-up's
// bound, NotSteady then true (sim.Result.NotSteady).
type cellJSON struct {
	Value          string   `json:"value,omitempty"`
	CPUs           int      `json:"cpus"`
	Threads        int      `json:"threads"`
	Throughput     *float64 `json:"throughput"`
	NotSteady      bool     `json:"not_steady,omitempty"`
	Utilisation    *float64 `json:"utilisation"`
	FutexSpinShare *float64 `json:"futex_spin_share"`
	ReadsPerS      *float64 `json:"reads_per_s"`
	WritesPerS     *float64 `json:"writes_per_s"`
	FsyncsPerS     *float64 `json:"fsyncs_per_s"`
	Seed           uint64   `json:"seed"`
}

// rowJSON is one row of the table: the USL peak of its thread sweep, in
// threads, when the data locate one.
type rowJSON struct {
	Value          string       `json:"value,omitempty"`
	CPUs           int          `json:"cpus"`
	Settings       settingsJSON `json:"settings"`
	USLPeakThreads *float64     `json:"usl_peak_threads,omitempty"`
}
