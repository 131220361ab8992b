package study

import (
	"context"
	"fmt"

	"github.com/innosim/innosim/concurrency"
	"github.com/innosim/innosim/internal/report"
	"github.com/innosim/innosim/internal/validate"
	"github.com/innosim/innosim/sim"
)

// Study B's settings: mysqlslap against a small in-memory table on MySQL 5.0
// (Linux, CFS), 4 and 8 cores, innodb_thread_concurrency 0/4/8/16, 1..64 clients;
// innodb_concurrency_tickets 500 (5.0's default). The study does not give
// innodb_thread_sleep_delay; the model runs with 0 (queue at once).
var (
	studyBCPUs    = []int{4, 8}
	studyBLimits  = []int{0, 4, 8, 16}
	studyBClients = []int{1, 2, 4, 8, 16, 32, 64}
)

func studyBGate(p concurrency.Policy, limit int) *sim.GateConfig {
	cfg := concurrency.DefaultConfig(limit)
	cfg.Tickets = 500
	cfg.SleepDelay = 0
	return &sim.GateConfig{Policy: p, Config: cfg}
}

func studyB() Study {
	return Study{
		ID:    "b",
		Title: "the concurrency gate becomes the bottleneck (mysqlslap, innodb_thread_concurrency, 4 vs 8 cores)",
		Mechanism: "the legacy Queue gate takes kernel_mutex on every enter and exit, the same mutex the " +
			"transaction start and commit take; on 8 cores that mutex saturates, so limits 4, 8 and 16 give " +
			"the same throughput (the plateau) while limit 0 skips the gate and its two critical sections. " +
			"The Atomic and Handoff cores take no mutex, so their plateau is gone.",
		run: runStudyB,
	}
}

func runStudyB(ctx context.Context, o Options) (*Report, error) {
	type key struct {
		p     concurrency.Policy
		cpus  int
		limit int
		cl    int
	}
	var keys []key
	for _, p := range []concurrency.Policy{concurrency.PolicyQueue, concurrency.PolicyAtomic, concurrency.PolicyHandoff} {
		for _, c := range studyBCPUs {
			if p != concurrency.PolicyQueue && c != 8 {
				continue
			}
			for _, l := range studyBLimits {
				if p != concurrency.PolicyQueue && l == 0 {
					continue
				}
				for _, cl := range studyBClients {
					keys = append(keys, key{p, c, l, cl})
				}
			}
		}
	}
	cells := make([]sim.Cell, len(keys))
	for i, k := range keys {
		cells[i] = sim.Cell{Workload: "slap_select", Threads: k.cl, Gate: studyBGate(k.p, k.limit),
			Machine: sim.MachineConfig{CPUs: k.cpus, Scheduler: sim.CFS, Costs: sim.OldKernel(), SpinLoops: sim.DefaultSpinLoops,
				SyncArray: sim.SyncArray50}} // 5.0: waits and signals through sync_primary_wait_array's mutex
	}
	res, err := runCells(ctx, o, cells)
	if err != nil {
		return nil, err
	}
	x := map[key]float64{}
	for i, k := range keys {
		x[k] = res[i].Throughput
	}
	t := report.Table{Title: "Study B: queries/s by innodb_thread_concurrency (mysqlslap select; published: a plateau, no table)",
		Header: []string{"gate", "cpus", "limit"}}
	for _, cl := range studyBClients {
		t.Header = append(t.Header, fmt.Sprintf("c%d", cl))
	}
	for _, p := range []concurrency.Policy{concurrency.PolicyQueue, concurrency.PolicyAtomic, concurrency.PolicyHandoff} {
		for _, c := range studyBCPUs {
			for _, l := range studyBLimits {
				if _, ok := x[key{p, c, l, 1}]; !ok {
					continue
				}
				row := []any{p, c, l}
				for _, cl := range studyBClients {
					row = append(row, x[key{p, c, l, cl}])
				}
				t.AddRow(row...)
			}
		}
	}
	rep := &Report{Study: studyB(), Tables: []report.Table{t}}
	rep.Plot = report.Chart{Title: "Study B: 8 cpus, innodb_thread_concurrency (queue gate unless named)", XLabel: "clients",
		YLabel: "queries/s", LogX: true}
	for _, s := range []struct {
		p concurrency.Policy
		l int
	}{{concurrency.PolicyQueue, 0}, {concurrency.PolicyQueue, 4}, {concurrency.PolicyQueue, 8}, {concurrency.PolicyQueue, 16}, {concurrency.PolicyAtomic, 8}, {concurrency.PolicyHandoff, 8}} {
		var xs, ys []float64
		for _, cl := range studyBClients {
			xs, ys = append(xs, float64(cl)), append(ys, x[key{s.p, 8, s.l, cl}])
		}
		rep.Plot.Series = append(rep.Plot.Series, report.Series{Name: fmt.Sprintf("%s limit %d", s.p, s.l), X: xs, Y: ys})
	}
	vt := validate.Table{Name: "study B plateau (8 cpus, queue gate)", Use: validate.Fitted, Ratio: true,
		Source: "study B's text: limits 4, 8 and 16 give the same throughput (a plateau: ratio 1.0), limit 0 more"}
	plateau, off, scale := true, true, true
	var pd, od, sd string
	for _, cl := range studyBClients {
		if cl < 8 {
			continue
		}
		q4, q8, q16 := x[key{concurrency.PolicyQueue, 8, 4, cl}], x[key{concurrency.PolicyQueue, 8, 8, cl}], x[key{concurrency.PolicyQueue, 8, 16, cl}]
		q0, q0c4 := x[key{concurrency.PolicyQueue, 8, 0, cl}], x[key{concurrency.PolicyQueue, 4, 0, cl}]
		r8, r16 := q8/q4, q16/q4
		vt.Rows = append(vt.Rows, validate.Row{Label: fmt.Sprintf("limit8/limit4 c%d", cl), Published: 1, Simulated: r8},
			validate.Row{Label: fmt.Sprintf("limit16/limit4 c%d", cl), Published: 1, Simulated: r16})
		pd += fmt.Sprintf(" c%d: %.2f/%.2f", cl, r8, r16)
		if r8 < 0.9 || r8 > 1.1 || r16 < 0.9 || r16 > 1.1 {
			plateau = false
		}
		od += fmt.Sprintf(" c%d: %.2f", cl, q0/q8)
		if q0 < 1.2*q8 {
			off = false
		}
		sd += fmt.Sprintf(" c%d: %.2f", cl, q0/q0c4)
		if q0 < q0c4 {
			scale = false
		}
	}
	vt.Checks = []validate.Check{{Name: "limit 0 ≥ 1.2 × limit 8 at ≥ 8 clients", Pass: off, Detail: "limit0/limit8:" + od}}
	rep.Validation = []validate.Table{vt}
	rep.Checks = []Check{
		check("8 cpus, ≥ 8 clients: limit 8 and 16 within 10% of limit 4", plateau, "limit8/limit4, limit16/limit4:%s", pd),
		check("limit 0 ≥ 1.2 × limit 8", off, "limit0/limit8:%s", od),
		check("limit 0: 8 cpus ≥ 4 cpus", scale, "8cpu/4cpu:%s", sd),
	}
	for _, p := range []concurrency.Policy{concurrency.PolicyAtomic, concurrency.PolicyHandoff} {
		q, a := x[key{concurrency.PolicyQueue, 8, 8, 64}], x[key{p, 8, 8, 64}]
		rep.Notes = append(rep.Notes, fmt.Sprintf("%s gate, 8 cpus, limit 8, 64 clients: %.0f queries/s = %.2f × queue (no gate mutex, no plateau)", p, a, a/q))
	}
	return rep, nil
}
