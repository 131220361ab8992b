package study

import (
	"context"
	"fmt"
	"strings"

	"github.com/innosim/innosim/internal/validate"
	"github.com/innosim/innosim/sim"
)

// StudyAReadWrite runs study A's machine, unchanged, on sysbench oltp_read_write
// and returns the Predicted table of its priority on/off ratio. The public
// report (MySQL bug 37536) gives no read-write figures, only claims, which are
// the table's checks: the ratio is below 1 with fewer threads than cpus and
// above 1 with at least twice as many; it rises with threads at 4 and 8 cpus;
// at 12 and 16 cpus it peaks at 32 or 48 threads and is lower at 64 ("falls
// apart"); and read-write throughput of both settings falls at 16 cpus from
// its peak toward 64 threads. Each cell runs once per setting (study A's
// read-only runs twice): the claims are about shape, not the last percent.
func StudyAReadWrite(ctx context.Context, o Options) (validate.Table, error) {
	type key struct{ cpus, th int }
	var cells []key
	var built []sim.Cell
	for _, c := range studyACPUs {
		for _, th := range studyAThreads {
			cells = append(cells, key{c, th})
			for _, prioOn := range []bool{true, false} {
				cell, err := studyAWorkloadCell("oltp_read_write", c, th, prioOn)
				if err != nil {
					return validate.Table{}, err
				}
				built = append(built, cell)
			}
		}
	}
	res, err := runCells(ctx, o, built)
	if err != nil {
		return validate.Table{}, err
	}
	ratio := map[key]float64{}
	on, off := map[key]float64{}, map[key]float64{}
	t := validate.Table{Name: "study A read-write on/off", Use: validate.Predicted, Ratio: true,
		Source: "MySQL bug 37536's text on oltp read-write (no figures; its claims are the checks)"}
	for i, k := range cells {
		on[k], off[k] = res[2*i].Throughput, res[2*i+1].Throughput
		ratio[k] = on[k] / off[k]
		t.Rows = append(t.Rows, validate.Row{Label: fmt.Sprintf("%dcpu t%d", k.cpus, k.th), Simulated: ratio[k]})
	}
	var below, above []string
	for _, k := range cells {
		if k.th < k.cpus && ratio[k] >= 1 {
			below = append(below, fmt.Sprintf("%dcpu t%d %.2f", k.cpus, k.th, ratio[k]))
		}
		if k.th >= 2*k.cpus && ratio[k] <= 1 {
			above = append(above, fmt.Sprintf("%dcpu t%d %.2f", k.cpus, k.th, ratio[k]))
		}
	}
	t.Checks = append(t.Checks,
		validate.Check{Name: "ratio < 1 with fewer threads than cpus", Pass: len(below) == 0, Detail: "offending: " + none(below)},
		validate.Check{Name: "ratio > 1 with at least twice as many threads as cpus", Pass: len(above) == 0, Detail: "offending: " + none(above)})
	for _, c := range []int{4, 8} {
		var seq []string
		rising := true
		prev := 0.0
		for _, th := range []int{8, 16, 32, 48, 64} {
			if th < 2*c {
				continue
			}
			r := ratio[key{c, th}]
			seq = append(seq, fmt.Sprintf("%.2f", r))
			if r < prev {
				rising = false
			}
			prev = r
		}
		t.Checks = append(t.Checks, validate.Check{Name: fmt.Sprintf("%d cpus: ratio rises with threads (from 2×cpus)", c), Pass: rising,
			Detail: strings.Join(seq, " → ")})
	}
	for _, c := range []int{12, 16} {
		best, bestTh := 0.0, 0
		for _, th := range studyAThreads {
			if r := ratio[key{c, th}]; r > best {
				best, bestTh = r, th
			}
		}
		r64 := ratio[key{c, 64}]
		t.Checks = append(t.Checks, validate.Check{Name: fmt.Sprintf("%d cpus: ratio peaks at 32 or 48 threads, lower at 64", c),
			Pass: (bestTh == 32 || bestTh == 48) && r64 < best, Detail: fmt.Sprintf("peak %.2f at %d threads, %.2f at 64", best, bestTh, r64)})
	}
	for _, s := range []struct {
		name string
		x    map[key]float64
	}{{"on", on}, {"off", off}} {
		name, x := s.name, s.x
		best, bestTh := 0.0, 0
		for _, th := range studyAThreads {
			if v := x[key{16, th}]; v > best {
				best, bestTh = v, th
			}
		}
		v64 := x[key{16, 64}]
		t.Checks = append(t.Checks, validate.Check{Name: "16 cpus: priorities " + name + " throughput falls from its peak toward 64 threads",
			Pass: bestTh < 64 && v64 < best, Detail: fmt.Sprintf("peak %.0f at %d threads, %.0f at 64", best, bestTh, v64)})
	}
	return t, nil
}

func none(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}
