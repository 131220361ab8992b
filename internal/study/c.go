package study

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/innosim/innosim/internal/report"
	"github.com/innosim/innosim/internal/validate"
	"github.com/innosim/innosim/sim"
)

// Study C's settings: MariaDB's regression machine (Linux, CFS); the same build
// before and after a reboot onto a kernel with more mitigations. The cores are not
// given; 4 matches the published peak of about 100k connections/s.
var (
	studyCThreads = []int{1, 8, 16, 32, 64, 128, 256}
	studyCCPUs    = 4
	studyCBuild   = "10.3.24" // the published row shown beside the simulation
)

func studyC() Study {
	return Study{
		ID:    "c",
		Title: "a \"regression\" that was the test machine (connect; SELECT 1; disconnect, old vs new kernel)",
		Mechanism: "the connect cycle is 18 system calls (accept4, shutdown and close among them) and 5 context " +
			"switches around 26 µs of user CPU; the new-kernel profile makes every kernel entry and switch a " +
			"little dearer and a connection's setup and teardown much dearer, so once the cores are saturated " +
			"(16+ threads) connections/s fall by about a quarter, while oltp_read_only, with two socket " +
			"calls per 40 µs of CPU, loses a few percent.",
		run: runStudyC,
	}
}

func runStudyC(ctx context.Context, o Options) (*Report, error) {
	_, rows, err := refTable("study_c_connect_qps.csv")
	if err != nil {
		return nil, err
	}
	var pubOld, pubNew []float64
	for _, r := range rows {
		if r[0] != studyCBuild {
			continue
		}
		for _, v := range r[2:] {
			if r[1] == "old_kernel" {
				pubOld = append(pubOld, atof(v))
			} else {
				pubNew = append(pubNew, atof(v))
			}
		}
	}
	var cells []sim.Cell
	for _, wl := range []string{"connect", "oltp_read_only", "oltp_point_select"} {
		for _, th := range studyCThreads {
			for _, p := range []sim.CostProfile{sim.OldKernel(), sim.NewKernel()} {
				cells = append(cells, sim.Cell{Workload: wl, Threads: th,
					Machine: sim.MachineConfig{CPUs: studyCCPUs, Scheduler: sim.CFS, Costs: p, SpinLoops: sim.DefaultSpinLoops,
						SyncArray: sim.SyncArray55}}) // 10.3's InnoDB (5.7's): waits through the wait array, atomic signal count
			}
		}
	}
	res, err := runCells(ctx, o, cells)
	if err != nil {
		return nil, err
	}
	t := report.Table{Title: "Study C: connections/s, old vs new kernel (published: MariaDB " + studyCBuild + ")",
		Header: []string{"threads", "pub old", "pub new", "pub new/old", "sim old", "sim new", "sim new/old", "cpu-bound new/old"}}
	var xs, so_, sn_, po, pn []float64
	abs := validate.Table{Name: "study C connect connections/s", Source: "MariaDB MDEV-24140 " + studyCBuild + " (study C)", Use: validate.Fitted}
	rat := validate.Table{Name: "study C connect new/old", Source: abs.Source, Use: validate.Fitted, Ratio: true}
	cpuBound := validate.Table{Name: "study C cpu-bound new/old", Use: validate.Predicted, Ratio: true,
		Source: "study C's text: the same kernel change costs a CPU-bound workload a few percent (no figures)"}
	pointSelect := validate.Table{Name: "study C point-select new/old", Use: validate.Predicted, Ratio: true,
		Source: "study C's text: a CPU-bound workload loses a few percent (no figures); sysbench 1.0 oltp_point_select"}
	ok1, ok2 := true, true
	var d1, d2 []string
	n := len(studyCThreads)
	for i, th := range studyCThreads {
		so, sn := res[2*i].Throughput, res[2*i+1].Throughput
		co, cn := res[2*n+2*i].Throughput, res[2*n+2*i+1].Throughput
		po_, pn_ := res[4*n+2*i].Throughput, res[4*n+2*i+1].Throughput
		pointSelect.Rows = append(pointSelect.Rows, validate.Row{Label: fmt.Sprintf("oltp_point_select t%d", th), Simulated: pn_ / po_})
		t.AddRow(th, pubOld[i], pubNew[i], pubNew[i]/pubOld[i], so, sn, sn/so, cn/co)
		abs.Rows = append(abs.Rows, validate.Row{Label: fmt.Sprintf("old t%d", th), Published: pubOld[i], Simulated: so},
			validate.Row{Label: fmt.Sprintf("new t%d", th), Published: pubNew[i], Simulated: sn})
		rat.Rows = append(rat.Rows, validate.Row{Label: fmt.Sprintf("t%d", th), Published: pubNew[i] / pubOld[i], Simulated: sn / so})
		cpuBound.Rows = append(cpuBound.Rows, validate.Row{Label: fmt.Sprintf("oltp_read_only t%d", th), Simulated: cn / co})
		xs, so_, sn_, po, pn = append(xs, float64(th)), append(so_, so), append(sn_, sn), append(po, pubOld[i]), append(pn, pubNew[i])
		if th >= 16 && th <= 128 {
			loss, closs := 1-sn/so, 1-cn/co
			d1 = append(d1, fmt.Sprintf("t%d %.0f%%", th, 100*loss))
			d2 = append(d2, fmt.Sprintf("t%d %.0f%% vs %.0f%%", th, 100*closs, 100*loss))
			if loss < 0.15 || loss > 0.40 {
				ok1 = false
			}
			if closs > loss/2 {
				ok2 = false
			}
			cpuBound.Checks = append(cpuBound.Checks, validate.Check{Name: fmt.Sprintf("t%d: loses under a third of connect's loss", th),
				Pass: closs < loss/3, Detail: fmt.Sprintf("%.1f%% vs connect %.1f%%", 100*closs, 100*loss)})
			ploss := 1 - pn_/po_
			pointSelect.Checks = append(pointSelect.Checks, validate.Check{Name: fmt.Sprintf("t%d: loses under a third of connect's loss", th),
				Pass: ploss < loss/3, Detail: fmt.Sprintf("%.1f%% vs connect %.1f%%", 100*ploss, 100*loss)})
		}
	}
	rep := &Report{Study: studyC(), Tables: []report.Table{t}, Validation: []validate.Table{abs, rat, cpuBound, pointSelect}}
	rep.Plot = report.Chart{Title: "Study C: connect; SELECT 1; disconnect", XLabel: "client threads", YLabel: "connections/s", LogX: true,
		Series: []report.Series{{Name: "sim old kernel", X: xs, Y: so_, Color: 1}, {Name: "sim new kernel", X: xs, Y: sn_, Color: 2},
			{Name: "published old kernel", X: xs, Y: po, Dashed: true, Color: 1}, {Name: "published new kernel", X: xs, Y: pn, Dashed: true, Color: 2}}}
	rep.Checks = []Check{
		check("new kernel loses 15–40% at 16–128 threads", ok1, "%s", strings.Join(d1, ", ")),
		check("a CPU-bound workload loses less than half as much", ok2, "oltp_read_only vs connect: %s", strings.Join(d2, ", ")),
	}
	rep.Notes = append(rep.Notes, "a comparison across environments is not a regression verdict: profiles "+
		strconv.Quote(sim.OldKernel().Name)+" and "+strconv.Quote(sim.NewKernel().Name)+
		" differ only in system-call (by kind: any, connection setup) and context-switch cost")
	return rep, nil
}
