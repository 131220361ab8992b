package validate

import (
	"encoding/csv"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/gonum/stat"

	"github.com/innosim/innosim/internal/live"
	"github.com/innosim/innosim/sim"
)

// liveColumns are the columns of innosim live's CSV that a live table must
// have; the others of its header are optional, and one column not among
// liveKnown is the swept server setting.
var liveColumns = []string{"workload", "cpus", "threads", "throughput"}

// liveKnown are every column innosim live writes besides its setting.
var liveKnown = []string{"workload", "cpus", "threads", "throughput", "unit", "utilisation", "futex_spin_share",
	"reads_per_s", "writes_per_s", "fsyncs_per_s", "p95_latency_ms", "server_cpu_us_per_query", "client_cpu_us_per_query", liveServerRSSColumn, liveClientRSSColumn}

// LiveShapeTolerance is the largest difference between a curve's simulated
// and live value at its top thread count, each as a share of its own curve's
// peak, that the shape check passes.
const LiveShapeTolerance = 0.15

// LiveLevelThreads is the thread count whose throughput the level table
// compares: each curve's row at exactly this count. A curve without one has
// no level row and fails a check of its own (liveTables): its nearest thread
// count would be another regime, reported as this one.
const LiveLevelThreads = 64

// parseLive reads the rows of an innosim live --csv table. A row's unit, when
// given, must be its workload's (sim.Workload.Unit): the simulator counts
// that unit, so a throughput in another is refused, not compared. A curve
// (workload and setting value) has one core count: its shape, level and
// probes are read along its thread counts. Every cell is checked
// (sim.Cell.Validate) once its probes are set, so a row the simulator would
// refuse is refused with its line before any cell runs. Its cells run on
// the CFS scheduler with the new-kernel profile until WithCosts gives the
// machine's calibrated one, with the client on the same cores (sim.Cell.Client:
// innosim live runs sysbench beside the server), the client's and the
// server's CPU per query from each curve's one-thread row (setProbe) and the
// cost of a wake onto an idle CPU (sim.Cell.RemoteWake); a thread_handling
// column chooses the simulator's thread handling (sim.ParseThreadHandling),
// and live.SimWorkloads each workload's model. The memory columns' growth
// per thread is kept for WithCosts (setGrowth).
func parseLive(ut UserTable, cr *csv.Reader, head []string, col map[string]int) (UserTable, error) {
	name := ut.Name
	for _, c := range liveColumns {
		if _, ok := col[c]; !ok {
			return ut, fmt.Errorf("validate: %s: live table has no column %q, want %s: %w", name, c, strings.Join(liveColumns, ","), sim.ErrInvalidConfig)
		}
	}
	for _, h := range head {
		h = strings.TrimSpace(h)
		if slices.Contains(liveKnown, h) {
			continue
		}
		if ut.Setting != "" {
			return ut, fmt.Errorf("validate: %s: live table has two setting columns, %q and %q: want at most one: %w", name, ut.Setting, h, sim.ErrInvalidConfig)
		}
		ut.Setting = h
	}
	costs, err := sim.Profile("new-kernel")
	if err != nil {
		return ut, err
	}
	ut.Live = true
	var clientCPU, serverCPU []float64               // µs per query, by row; -1 where not given
	var serverRSS, clientRSS []float64               // KiB, by row; -1 where not given
	lineOf := map[string]int{}                       // a point (curve, cpus, threads) → its line
	curveAt := map[string]struct{ line, cpus int }{} // a curve → its first line and its cores
	err = readRows(name, cr, col, func(r userRow) error {
		cpus, threads, w, x, err := r.common("throughput")
		if err != nil {
			return err
		}
		model := w // the simulator's model of the live workload
		if m, ok := live.SimWorkloads[w]; ok {
			model = m
		}
		if _, ok := col["unit"]; ok && r.get("unit") != "" {
			if wl, _ := sim.LookupWorkload(model); r.get("unit") != wl.Unit {
				return r.bad("unit", fmt.Sprintf("%s (what %s counts)", wl.Unit, w))
			}
		}
		cell := sim.Cell{Workload: model, Threads: threads, Warmup: LiveWarmup, Steady: LiveSteady(), Measure: userMeasure,
			Machine: sim.MachineConfig{CPUs: cpus, Scheduler: sim.CFS, Costs: costs, SpinLoops: sim.DefaultSpinLoops},
			Client:  &sim.ClientConfig{}, RemoteWake: true}
		for _, f := range []struct {
			col  string
			dst  *[]float64
			want string
		}{{liveClientColumn, &clientCPU, "a number of µs in 0..1000000"}, {liveServerColumn, &serverCPU, "a number of µs in 0..1000000"},
			{liveServerRSSColumn, &serverRSS, "a number of KiB in 0..1000000000"}, {liveClientRSSColumn, &clientRSS, "a number of KiB in 0..1000000000"}} {
			v, top := -1.0, 1e6
			if f.col == liveServerRSSColumn || f.col == liveClientRSSColumn {
				top = 1e9
			}
			if _, ok := col[f.col]; ok && r.get(f.col) != "" {
				v, err = strconv.ParseFloat(r.get(f.col), 64)
				if err != nil || !(v >= 0 && v <= top) {
					return r.bad(f.col, f.want)
				}
			}
			*f.dst = append(*f.dst, v)
		}
		curve := w
		if ut.Setting != "" {
			v := r.get(ut.Setting)
			curve = fmt.Sprintf("%s %s=%s", w, ut.Setting, v)
			if err := applyLiveSetting(&cell, ut.Setting, v); err != nil {
				return r.bad(ut.Setting, err.Error())
			}
		}
		if first, ok := curveAt[curve]; ok && first.cpus != cpus {
			// its shape, level and probes are read along the thread counts of
			// one machine
			return fmt.Errorf("validate: %s:%d: %s on %d cpus, but line %d has it on %d cpus, want one core count a curve: %w",
				r.file, r.line, curve, cpus, first.line, first.cpus, sim.ErrInvalidConfig)
		} else if !ok {
			curveAt[curve] = struct{ line, cpus int }{r.line, cpus}
		}
		key := fmt.Sprint(curve, "|", cpus, "|", threads)
		if first, dup := lineOf[key]; dup {
			return fmt.Errorf("validate: %s:%d: the point of line %d again (%s, %d cpus, %d threads), want each point once: %w",
				r.file, r.line, first, curve, cpus, threads, sim.ErrInvalidConfig)
		}
		lineOf[key] = r.line
		ut.Cells = append(ut.Cells, cell)
		ut.Published = append(ut.Published, x)
		ut.Curves = append(ut.Curves, curve)
		ut.Lines = append(ut.Lines, r.line)
		return nil
	})
	if err != nil {
		return ut, err
	}
	setProbe(ut, clientCPU, func(c *sim.ClientConfig, d time.Duration) { c.Event = d })
	setProbe(ut, serverCPU, func(c *sim.ClientConfig, d time.Duration) { c.ServerCPU = d })
	ut.residents = make([][2]int64, len(ut.Cells))
	setGrowth(ut, serverRSS, func(i int, b int64) { ut.residents[i][0] = b })
	setGrowth(ut, clientRSS, func(i int, b int64) { ut.residents[i][1] = b })
	return ut, ut.Validate() // with its probes set; before any cell runs
}

// LiveWarmup and LiveSteady are a live cell's simulated warm-up (and that
// of any cell with its client on the machine, such as innosim run -client's): with the
// client on the machine a connection waits for its turn on the cores at every
// round trip, so at 1,024 connections (2,048 threads on 2 cores) one connect
// takes hundreds of ms, all connections complete in waves a round apart, and
// a fixed warm-up measures the ramp or a crest. The warm-up goes on past
// LiveWarmup until MSER-5 finds the end of the transient
// (sim.SteadyWarmup); a cell still in its transient at 120 s of virtual
// time has no figure. It is the collapse case's rule (collapseSteady).
// innosim live warms up a second of wall time.
const LiveWarmup = 100 * time.Millisecond

// LiveSteady returns a new SteadyWarmup of that rule.
func LiveSteady() *sim.SteadyWarmup { return collapseSteady() }

// liveClientColumn is innosim live's column of sysbench's CPU per query,
// liveServerColumn its column of mariadbd's.
const (
	liveClientColumn = "client_cpu_us_per_query"
	liveServerColumn = "server_cpu_us_per_query"
	// liveServerRSSColumn is innosim live's column of mariadbd's largest
	// resident set during a run, liveClientRSSColumn of sysbench's peak, KiB.
	liveServerRSSColumn = "server_rss_kib"
	liveClientRSSColumn = "client_rss_kib"
)

// setGrowth gives every cell i of each curve, through set, the growth of a
// resident set (KiB, by row; -1 where not given) per thread along that
// curve: the least-squares slope of the resident set against the thread
// count over the curve's rows that have one, in bytes, the memory each
// connection's server side (or each client thread) holds. It is a property
// of the programs, read from the memory columns only, never the
// throughput's. A curve with fewer than two such rows, or whose resident
// set does not grow, gets none.
func setGrowth(ut UserTable, kib []float64, set func(i int, bytes int64)) {
	type points struct{ x, y []float64 }
	by := map[string]*points{}
	for i, c := range ut.Curves {
		if kib[i] < 0 {
			continue
		}
		p := by[c]
		if p == nil {
			p = &points{}
			by[c] = p
		}
		p.x = append(p.x, float64(ut.Cells[i].Threads))
		p.y = append(p.y, kib[i])
	}
	for i, c := range ut.Curves {
		p := by[c]
		if p == nil || len(p.x) < 2 || stat.Variance(p.x, nil) == 0 {
			continue // one thread count only
		}
		if _, slope := stat.LinearRegression(p.x, p.y, nil, false); slope > 0 {
			set(i, min(int64(slope*1024+0.5), 1<<30))
		}
	}
}

// setProbe gives every cell of each curve the CPU per query (µs, by row; -1
// where not given) measured at that curve's fewest threads that have one, a
// probe of the program's own cost (at one thread nothing else competes),
// through set; the throughput column is not read, and neither is the figure
// at any other thread count. For the client (sysbench on the same cores) it
// is sim.ClientConfig.Event: sysbench's user and system time, so the client's
// two system calls per query are in it and get no kernel work of their own;
// a curve with no figure keeps a client of system calls only. For the server
// it is sim.ClientConfig.ServerCPU (mariadbd's user and system time), which
// scales the workload's CPU bursts to it; a curve with no figure keeps the
// workload's own.
func setProbe(ut UserTable, us []float64, set func(*sim.ClientConfig, time.Duration)) {
	probe := map[string]int{}
	for i, c := range ut.Curves {
		if us[i] < 0 {
			continue
		}
		if j, ok := probe[c]; !ok || ut.Cells[i].Threads < ut.Cells[j].Threads {
			probe[c] = i
		}
	}
	for i, c := range ut.Curves {
		if j, ok := probe[c]; ok {
			set(ut.Cells[i].Client, time.Duration(us[j]*float64(time.Microsecond)))
		}
	}
}

// WithCosts returns the table with every cell on the cost profile p: for a
// live table, the calibrated profile of the machine it was measured on
// (innosim calibrate --out). A published table keeps its own costs. The
// profile can make a curve's CPU per query impossible on that machine
// (sim.ClientConfig.ServerCPU): call Validate on the result before running it.
//
// The footprints of the table's memory columns (ResidentFootprints) go on
// the cells only with a profile that has caches to refill them (CacheL2 and
// CacheLLC, a calibrated one): without it they would cost nothing.
func (ut UserTable) WithCosts(p sim.CostProfile) UserTable {
	if !ut.Live {
		return ut
	}
	ut.Cells = append([]sim.Cell(nil), ut.Cells...)
	caches := p.HasCaches()
	for i := range ut.Cells {
		ut.Cells[i].Machine.Costs = p
		if caches && i < len(ut.residents) {
			client := *ut.Cells[i].Client
			client.ServerFootprint, client.ClientFootprint = ut.residents[i][0], ut.residents[i][1]
			ut.Cells[i].Client = &client
		}
	}
	return ut
}

// ResidentFootprints reports whether a live table's memory columns
// (server_rss_kib, client_rss_kib) give any curve a footprint, which
// WithCosts charges with a calibrated profile only.
func (ut UserTable) ResidentFootprints() bool {
	for _, r := range ut.residents {
		if r[0] > 0 || r[1] > 0 {
			return true
		}
	}
	return false
}

// liveTables compares a live table with the simulated throughputs sim, in
// two tables, since a simulator can get either right without the other:
//
//   - shape: per curve, the value at its top thread count as a share of the
//     curve's own peak, live beside simulated, each with a check that the two
//     are within LiveShapeTolerance;
//   - level: per curve, the throughput at LiveLevelThreads threads, within
//     the table's bound (default 1.5×).
//
// A check that cannot be made fails, its detail starting "not made:" and
// saying what is missing, so that its table misses rather than holds on
// nothing:
//
//   - a curve with no row at exactly LiveLevelThreads threads has no level
//     row, and a failed check "CURVE: a row at 64 threads" naming the thread
//     counts it has;
//   - a curve whose top thread count is the peak of both its live and its
//     simulated curve (one row alone, or a curve measured only while it
//     still rises) keeps its shape row, 1.00 beside 1.00, but its check
//     fails: neither curve has turned, so the pair says nothing of where a
//     curve turns or how far it falls. A curve that falls on one side only is
//     compared as any other.
//
// Every check's name depends on the table alone, not on sim, so the tables
// have one shape at every seed (WriteSeeds).
func (ut UserTable) liveTables(simX []float64) []Table {
	var order []string
	byCurve := map[string][]int{}
	for i, c := range ut.Curves {
		if _, ok := byCurve[c]; !ok {
			order = append(order, c)
		}
		byCurve[c] = append(byCurve[c], i)
	}
	costs := ut.Cells[0].Machine.Costs.Name
	shape := Table{Name: ut.Name + ": shape (top thread count / own peak)", Source: ut.Source + ", costs " + costs, Use: Predicted, Reference: "live"}
	level := Table{Name: fmt.Sprintf("%s: level at %d threads", ut.Name, LiveLevelThreads), Source: ut.Source + ", costs " + costs,
		Use: Predicted, MaxAbsLog: math.Log(ut.Bound), Reference: "live"}
	for _, c := range order {
		idx := byCurve[c]
		top, at := idx[0], -1
		var livePeak, simPeak float64
		for _, i := range idx {
			th := ut.Cells[i].Threads
			if th > ut.Cells[top].Threads {
				top = i
			}
			if th == LiveLevelThreads {
				at = i
			}
			livePeak = max(livePeak, ut.Published[i])
			if !math.IsNaN(simX[i]) { // a cell that reached no steady state
				simPeak = max(simPeak, simX[i])
			}
		}
		ls, ss := ut.Published[top]/livePeak, 0.0
		if simPeak > 0 {
			ss = simX[top] / simPeak
		}
		tt := ut.Cells[top].Threads
		check := Check{
			Name:   fmt.Sprintf("%s: t%d/peak within %.2f of live", c, tt, LiveShapeTolerance),
			Pass:   math.Abs(ss-ls) <= LiveShapeTolerance,
			Detail: fmt.Sprintf("live %.2f, simulated %.2f", ls, ss),
		}
		if ut.Published[top] == livePeak && simPeak > 0 && simX[top] == simPeak {
			check.Pass = false
			check.Detail = fmt.Sprintf("not made: t%d is the peak of both the live and the simulated curve (live %.2f, simulated %.2f): "+
				"neither has turned, which says nothing of the shape; measure the curve past its peak", tt, ls, ss)
		}
		shape.Rows = append(shape.Rows, Row{Label: fmt.Sprintf("%s t%d/peak", c, tt), Published: ls, Simulated: ss})
		shape.Checks = append(shape.Checks, check)
		if at < 0 {
			level.Checks = append(level.Checks, Check{
				Name: fmt.Sprintf("%s: a row at %d threads", c, LiveLevelThreads),
				Detail: fmt.Sprintf("not made: no t%d row (the curve has %s); a level at another thread count is not the level at %d",
					LiveLevelThreads, threadList(ut, idx), LiveLevelThreads),
			})
			continue
		}
		level.Rows = append(level.Rows, Row{Label: ut.label(at, ut.Cells[at]), Published: ut.Published[at], Simulated: simX[at]})
	}
	return []Table{shape, level}
}

// threadList returns the thread counts of cells idx, in order ("t1, t2, t4").
func threadList(ut UserTable, idx []int) string {
	ts := make([]int, len(idx))
	for k, i := range idx {
		ts[k] = ut.Cells[i].Threads
	}
	slices.Sort(ts)
	s := make([]string, len(ts))
	for k, t := range ts {
		s[k] = fmt.Sprintf("t%d", t)
	}
	return strings.Join(s, ", ")
}

// applyLiveSetting applies a live table's setting column to its cell: only
// thread_handling reaches the simulator; any other setting is refused, since
// the simulator would ignore it.
func applyLiveSetting(c *sim.Cell, key, val string) error {
	if key != "thread_handling" {
		return fmt.Errorf("a setting the simulator models (thread_handling), not %s", key)
	}
	th, err := sim.ParseThreadHandling(val)
	if err != nil {
		return errors.New("one-thread-per-connection or pool-of-threads")
	}
	c.ThreadHandling = th
	return nil
}
