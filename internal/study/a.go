package study

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/innosim/innosim/internal/report"
	"github.com/innosim/innosim/internal/validate"
	"github.com/innosim/innosim/sim"
)

// Study A's sweep, from the study's text: MySQL 5.1.24 on Solaris (TS class),
// sysbench oltp_read_only, 4/8/12/16 cores, 1..64 threads. The server settings
// come from study_a_my.cnf (innodb_thread_concurrency = 0: no gate; the spin
// loops and thread priorities at their 5.1 defaults).
var (
	studyACPUs    = []int{4, 8, 12, 16}
	studyAThreads = []int{1, 2, 4, 8, 12, 16, 32, 48, 64}
)

// studyACosts is the cost profile of study A's machine: OldKernel (cache-line
// transfers of 100 ns on a socket, 200 ns across) on a 2008 x86 server whose
// PAUSE takes longer, so one round of ut_delay(0..6) costs about 1 µs
// (innodb_spin_wait_delay 6 × 50 PAUSEs of ~10 ns on average). Its sleep
// queues are Solaris libc's (synch.c: queue_lock's spin lock, lwp_park and
// lwp_unpark), whose broadcast the machine models with
// MachineConfig.BroadcastChain, and its InnoDB (5.1.24's built-in) waits and
// signals through the global wait array (sim.SyncArray50, set in the cells).
// Its futex costs are OldKernel's sourced ones (FutexWalk 0, FutexGrowth
// 0.5): with the wait array the study passes on them, where before it needed
// a fitted pair (FutexWalk 1, FutexGrowth 8) for its convoy at 12 and 16 cpus
// to form (docs/decisions/global-wait-array.md has the trials). One cost is chosen on the
// read-only table (fitted): a priority change (priocntl's PC_SETPARMS under
// pthread_setschedparam) costs 300 ns beyond the call's entry. The table's
// twelve cells with fewer threads than cpus, where the two calls a statement
// are all that separates on from off, ask for about 1 µs (their mean ratio
// is 0.95); the study's check that every cell with at least twice as many
// threads as cpus stays above 1.05 holds it lower. Of 0 to 500 ns in 100 ns
// steps, 300 ns passes the study with the least read-only mean |log|, once
// InnoDB's mutexes yield after their spin rounds (os_thread_yield); 500 ns
// was chosen the same way before the yield, 600 ns before a futex wake
// stopped letting the woken thread take its waker's core.
func studyACosts() sim.CostProfile {
	p := sim.OldKernel()
	p.Name = "solaris-x86-2008"
	p.SpinRound = time.Microsecond
	p.SetPriority = 300 * time.Nanosecond
	return p
}

// studyADevice is the device of study A's machine, where its redo log lives.
// The report names none; this is a 2008 server's RAID controller with a
// battery-backed write cache, whose fsync of the log returns in about 0.2 ms
// (a write into the cache, not a disk rotation), with one request in
// service at a time for one log file. It was chosen before the read-write
// table was run, and read-only never waits for it.
func studyADevice() *sim.DeviceConfig {
	return &sim.DeviceConfig{Units: 1, Read: 5 * time.Millisecond, Write: 200 * time.Microsecond, Fsync: 200 * time.Microsecond}
}

// studyARepeats is how many seeds each cell of study A runs with: the ratio is
// total on / total off, so the bursty convoys average out.
const studyARepeats = 2

// studyACell is study_a_my.cnf's server (read through package mycnf) on cpus
// cores under TS, with thread priorities on (the file's default) or off
// (--skip-thread-priority).
func studyACell(cpus, threads int, prioOn bool) (sim.Cell, error) {
	return studyAWorkloadCell("oltp_read_only", cpus, threads, prioOn)
}

// studyAWorkloadCell is studyACell with another workload on the same machine.
func studyAWorkloadCell(workload string, cpus, threads int, prioOn bool) (sim.Cell, error) {
	s, err := studySettings("study_a_my.cnf")
	if err != nil {
		return sim.Cell{}, err
	}
	s.ThreadPriority = prioOn
	c, err := sim.CellFromSettings(s, workload)
	if err != nil {
		return sim.Cell{}, err
	}
	c.Threads, c.Machine.CPUs, c.Machine.Scheduler = threads, cpus, sim.TS
	c.Machine.Costs = studyACosts()
	c.Machine.BroadcastChain = true       // Solaris libc's cond_broadcast moves the waiters to os_mutex's queue (sim.Mutex)
	c.Machine.SyncArray = sim.SyncArray50 // 5.1.24's built-in InnoDB: waits and signals through sync_primary_wait_array's mutex
	c.Device = studyADevice()
	c.Measure = 200 * time.Millisecond // the convoys come and go: a longer window
	return c, nil
}

func studyA() Study {
	return Study{
		ID:    "a",
		Title: "thread priorities help only when threads outnumber cores (MySQL 5.1, Solaris TS, oltp_read_only)",
		Mechanism: "priorities on: two priocntl calls per statement (the cost below the core count); a thread " +
			"back from its client waits at the Wait level behind every thread in a statement, so statements " +
			"in flight finish first. Priorities off: FIFO among equals, so more statements are in flight at " +
			"once, read views copy more active transactions under kernel_mutex, and its waiters (moved by " +
			"Solaris's cond_broadcast and unparked one after another) come back behind them, each wait and " +
			"signal also through 5.1's one global wait array mutex; the loss grows " +
			"with threads and with cores.",
		run: runStudyA,
	}
}

func runStudyA(ctx context.Context, o Options) (*Report, error) {
	_, rows, err := refTable("study_a_priority_ratio.csv")
	if err != nil {
		return nil, err
	}
	pub := map[[2]int]float64{}
	for _, r := range rows {
		th, _ := strconv.Atoi(r[1])
		for i, c := range studyACPUs {
			pub[[2]int{th, c}] = atof(r[2+i])
		}
	}
	var cells []sim.Cell
	for _, c := range studyACPUs {
		for _, th := range studyAThreads {
			for _, on := range []bool{true, false} {
				cell, err := studyACell(c, th, on)
				if err != nil {
					return nil, err
				}
				for range studyARepeats {
					cells = append(cells, cell) // each copy gets its own seed
				}
			}
		}
	}
	res, err := runCells(ctx, o, cells)
	if err != nil {
		return nil, err
	}
	sim := map[[2]int]float64{}
	i := 0
	for _, c := range studyACPUs {
		for _, th := range studyAThreads {
			var on, off float64
			for r := range studyARepeats {
				on += res[i+r].Throughput
				off += res[i+studyARepeats+r].Throughput
			}
			sim[[2]int{th, c}] = on / off
			i += 2 * studyARepeats
		}
	}
	t := report.Table{Title: "Study A: throughput with priorities on / off (oltp_read_only, Solaris TS)", Header: []string{"threads"}}
	for _, c := range studyACPUs {
		t.Header = append(t.Header, fmt.Sprintf("cpu%d pub", c), "sim", "sim/pub")
	}
	for _, th := range studyAThreads {
		row := []any{th}
		for _, c := range studyACPUs {
			k := [2]int{th, c}
			row = append(row, pub[k], sim[k], sim[k]/pub[k])
		}
		t.AddRow(row...)
	}
	rep := &Report{Study: studyA(), Tables: []report.Table{t}}
	vt := validate.Table{Name: "study A read-only on/off", Source: "MySQL bug 37536 (study A)", Use: validate.Fitted, Ratio: true}
	for _, c := range studyACPUs {
		for _, th := range studyAThreads {
			k := [2]int{th, c}
			vt.Rows = append(vt.Rows, validate.Row{Label: fmt.Sprintf("%dcpu t%d", c, th), Published: pub[k], Simulated: sim[k]})
		}
	}
	rep.Validation = []validate.Table{vt}
	rep.Plot = report.Chart{Title: "Study A: priority on/off (solid: simulated, dashed: published)", XLabel: "client threads",
		YLabel: "throughput ratio on/off", LogX: true}
	for i, c := range studyACPUs {
		var xs, ys, ps []float64
		for _, th := range studyAThreads {
			xs, ys, ps = append(xs, float64(th)), append(ys, sim[[2]int{th, c}]), append(ps, pub[[2]int{th, c}])
		}
		rep.Plot.Series = append(rep.Plot.Series, report.Series{Name: fmt.Sprintf("%d cpus sim", c), X: xs, Y: ys, Color: i + 1},
			report.Series{Name: fmt.Sprintf("%d cpus published", c), X: xs, Y: ps, Dashed: true, Color: i + 1})
	}

	below, above, same, total := true, true, 0, 0
	var belowBad, aboveBad string
	for _, c := range studyACPUs {
		for _, th := range studyAThreads {
			k := [2]int{th, c}
			r := sim[k]
			if th < c && (r < 0.85 || r >= 1.0) {
				below = false
				belowBad += fmt.Sprintf(" %dthr/%dcpu=%.2f", th, c, r)
			}
			if th >= 2*c && r <= 1.05 {
				above = false
				aboveBad += fmt.Sprintf(" %dthr/%dcpu=%.2f", th, c, r)
			}
			total++
			if (r > 1) == (pub[k] > 1) {
				same++
			}
		}
	}
	rising := true
	var at64 string
	for i, c := range studyACPUs {
		at64 += fmt.Sprintf(" %.2f", sim[[2]int{64, c}])
		if i > 0 && sim[[2]int{64, c}] <= sim[[2]int{64, studyACPUs[i-1]}] {
			rising = false
		}
	}
	rep.Checks = []Check{
		check("threads < cpus in [0.85, 1.0)", below, "all in range%s", belowBad),
		check("threads ≥ 2×cpus above 1.05", above, "all above%s", aboveBad),
		check("64 threads: ratio rises with cpus", rising, "4/8/12/16 cpus:%s", at64),
		check("≥ 30 of 36 cells on the published side of 1.0", same >= 30, "%d of %d", same, total),
	}
	return rep, nil
}
