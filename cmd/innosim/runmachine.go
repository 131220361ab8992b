package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/innosim/innosim/internal/cmdflag"
	"github.com/innosim/innosim/internal/infile"
	"github.com/innosim/innosim/sim"
	"github.com/innosim/innosim/sim/spec"
)

// runMachine is the machine run's cells run on when -machine or
// -client-cpus is given: a box described by its spec sheet (package spec)
// and the cores its benchmark client is pinned to.
//
// With -machine, the sheet gives the CPUs, sockets, caches, cost profile
// and scheduler (sim.MachineFromSpec), so -sched and -profile are refused
// beside it rather than one silently overriding the other; -costs gives the
// calibration whose footprints the sheet cannot (sim.MachineFromSpec's
// calib), and -cpus the server's CPUs, as taskset pins mysqld to some of
// the box's (default: all but the client's). The scheduler's tunables stay
// those of the box's online CPUs, as the kernel's are, and the caches are
// the server's share of the box's.
type runMachine struct {
	path      string
	sheet     spec.Machine              // as -machine's file describes it
	params    *spec.Params              // nil without -machine
	calib     *sim.CostProfile          // -costs with -machine: its footprints
	client    int                       // the client's own cores (-client-cpus), 0 for none
	clientArg string                    // -client-cpus as given
	byCPUs    map[int]sim.MachineConfig // the machine of each -cpus value, with -machine
}

// parseClientCPUs reads -client-cpus: quarter (of a -machine's CPUs,
// spec.ClientSplit, as MariaDB's thread-pool benchmarks pinned sysbench),
// or a count of cores; with -machine they are taken from the box, without
// it added beside -cpus.
func parseClientCPUs(arg string, p *spec.Params) (int, error) {
	if arg == "quarter" {
		if p == nil {
			return 0, cmdflag.Usagef("-client-cpus quarter without -machine: a quarter of a machine's CPUs: want -machine FILE, or a count of cores for the client (added beside -cpus)")
		}
		_, client := spec.ClientSplit(p.CPUs)
		if client == 0 {
			return 0, cmdflag.Usagef("-client-cpus quarter with -machine %s: a quarter of its %d CPUs is no core: want a machine of 4 CPUs or more, or no -client-cpus (the client on the server's cores)", cmdflag.QuotePath(p.Name), p.CPUs)
		}
		return client, nil
	}
	n, err := strconv.Atoi(arg)
	most := maxCPUs - 1
	if p != nil {
		most = p.CPUs - 1
	}
	if err != nil || n < 0 || n > most {
		on := ""
		if p != nil {
			on = fmt.Sprintf(" of %s's %d CPUs (the server keeps at least one)", p.Name, p.CPUs)
		}
		return 0, cmdflag.Usagef("-client-cpus %q: want quarter, or 0..%d%s", arg, most, on)
	}
	return n, nil
}

// setMachine reads -machine and -client-cpus into o.machine, and with
// -machine sets -cpus' default to the server's CPUs of the box.
func (o *runOptions) setMachine() error {
	rm := &runMachine{path: o.machineFile}
	o.machine = rm
	if o.machineFile != "" {
		f, err := infile.Open(o.machineFile)
		if err != nil {
			return fmt.Errorf("-machine: %w", err) // a file it cannot read: exit 1, as -cnf's and -costs'
		}
		m, err := spec.Parse(f, o.machineFile)
		f.Close()
		if err != nil {
			return cmdflag.Usagef("-machine: %w", err)
		}
		p, err := m.Derive()
		if err != nil {
			return cmdflag.Usagef("-machine: %w", err)
		}
		rm.sheet, rm.params = m, &p
	}
	if o.fs.Given("client-cpus") {
		n, err := parseClientCPUs(o.clientCPUs, rm.params)
		if err != nil {
			return err
		}
		rm.client, rm.clientArg = n, o.clientCPUs
	}
	p := rm.params
	if p == nil {
		return nil
	}
	if o.costs != "" {
		calib, _, err := loadProfile(o.costs)
		if err != nil {
			return fmt.Errorf("-costs: %w", err)
		}
		rm.calib = &calib
	}
	most := p.CPUs - rm.client
	if !o.fs.Given("cpus") {
		o.cpus = []int{most}
	}
	rm.byCPUs = map[int]sim.MachineConfig{}
	for _, n := range o.cpus {
		if !o.fs.Given("cpus") && p.Sockets > 1 && n%p.Sockets != 0 {
			return rm.refuseClientSplit()
		}
		if n > most || p.Sockets > 1 && n%p.Sockets != 0 {
			return cmdflag.Usagef("-cpus %d with -machine %s (%d CPUs, %d of them the client's): want the server's CPUs, 1..%d and a multiple of its %d sockets",
				n, o.machineFile, p.CPUs, rm.client, most, max(p.Sockets, 1))
		}
		cfg, err := sim.MachineFromSpec(*p, rm.calib, p.CPUs-n)
		if err != nil {
			return cmdflag.Usagef("-machine %s with -cpus %d: %w", o.machineFile, n, err)
		}
		cfg.ClientCPUs = rm.client
		rm.byCPUs[n] = cfg
	}
	return nil
}

// refuseClientSplit refuses a -client-cpus that, with -cpus not given,
// leaves the server CPUs that are no multiple of the box's sockets (-cpus'
// rule), naming -client-cpus, which made them, and the counts of it on
// either side that leave a multiple, or a -cpus.
func (rm *runMachine) refuseClientSplit() error {
	p := rm.params
	left := p.CPUs - rm.client
	r := left % p.Sockets
	var fits []string
	if below := rm.client - (p.Sockets - r); below >= 0 {
		fits = append(fits, strconv.Itoa(below))
	}
	if above := rm.client + r; above < p.CPUs {
		fits = append(fits, strconv.Itoa(above))
	}
	var want []string
	if len(fits) > 0 {
		want = append(want, "-client-cpus "+strings.Join(fits, " or "))
	}
	if most := left - r; most > 0 {
		want = append(want, fmt.Sprintf("-cpus, a multiple of %d up to %d", p.Sockets, most))
	}
	given := rm.clientArg
	if given == "quarter" {
		given = fmt.Sprintf("quarter (%d cores)", rm.client)
	}
	return cmdflag.Usagef("-client-cpus %s with -machine %s (%d CPUs, %d sockets): it leaves %d server CPUs, not a multiple of the %d sockets: want %s",
		given, cmdflag.QuotePath(rm.path), p.CPUs, p.Sockets, left, p.Sockets, strings.Join(want, ", or "))
}

// apply sets c's machine for cpus server CPUs: the box's (keeping the
// cell's own spin loops, priorities and wait array), or c's with the
// client's cores.
func (rm *runMachine) apply(c *sim.Cell, cpus int) {
	c.Machine.CPUs = cpus
	if rm == nil {
		return
	}
	if cfg, ok := rm.byCPUs[cpus]; ok {
		cfg.SpinLoops, cfg.Priorities, cfg.SyncArray = c.Machine.SpinLoops, c.Machine.Priorities, c.Machine.SyncArray
		c.Machine = cfg
	}
	c.Machine.ClientCPUs = rm.client
}

// writeAssumptions prints, under the tables, the machine the cells ran on
// and what the prediction rests on that the box's published description
// did not give: one line per assumed key of -machine's sheet
// (spec.Params.Assumed), with the sheet's value.
func (rm *runMachine) writeAssumptions(w io.Writer) {
	if rm == nil || rm.params == nil {
		return
	}
	p := rm.params
	sched := p.Sched.Policy.String()
	if p.Sched.Policy == spec.CFS {
		sched += fmt.Sprintf(" (latency %v, min granularity %v, wakeup granularity %v)", p.Sched.Latency, p.Sched.MinGranularity, p.Sched.WakeupGranularity)
	} else {
		sched += fmt.Sprintf(" (base slice %v)", p.Sched.BaseSlice)
	}
	profile := p.Profile
	for _, cfg := range rm.byCPUs {
		profile = cfg.Costs.Name // one name for every -cpus: the sheet's and -costs'
		break
	}
	name := p.Name
	if name != "" {
		name = " " + name
	}
	fmt.Fprintf(w, "\nmachine%s (-machine %s): %d CPUs, %d for the client; kernel %v, %s; cost profile %s\n",
		name, cmdflag.QuotePath(rm.path), p.CPUs, rm.client, rm.sheet.Kernel, sched, profile)
	for _, k := range p.Assumed {
		fmt.Fprintf(w, "assumed: %s = %s (not in the box's published description)\n", k, sheetValue(rm.sheet, k))
	}
}

// sheetValue returns the value of a spec sheet's key, as the sheet gives it.
func sheetValue(m spec.Machine, key string) string {
	switch v := sheetField(m, key).(type) {
	case int64:
		return bytesText(v)
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64) + " GHz"
	case time.Duration:
		return v.String()
	default:
		return fmt.Sprint(v)
	}
}

// sheetField returns the value of a spec sheet's key: an int (a count, HZ),
// an int64 (a cache, in bytes), a float64 (the clock, in GHz), a
// time.Duration (a scheduler tunable) or a string (kernel, pti; "?" for a
// key the sheet has not).
func sheetField(m spec.Machine, key string) any {
	switch key {
	case "sockets":
		return m.Sockets
	case "cores_per_socket":
		return m.CoresPerSocket
	case "threads_per_core":
		return m.ThreadsPerCore
	case "l2_per_core":
		return m.L2PerCore
	case "l3_per_socket":
		return m.L3PerSocket
	case "clock_ghz":
		return m.ClockGHz
	case "kernel":
		return m.Kernel.String()
	case "pti":
		return m.PTI.String()
	case "hz":
		return m.HZ
	case "sched_latency":
		return m.SchedLatency
	case "sched_min_granularity":
		return m.SchedMinGranularity
	case "sched_wakeup_granularity":
		return m.SchedWakeupGranularity
	case "sched_base_slice":
		return m.SchedBaseSlice
	}
	return "?"
}

// machineJSON is run --json's record of -machine: the sheet's path and
// name, the box's logical CPUs, physical cores and sockets, its kernel, and
// the keys the sheet assumes (spec.Machine.Assumed) with their values, as
// the table's lines under it give them.
type machineJSON struct {
	Path    string        `json:"path"`
	Name    string        `json:"name,omitempty"`
	CPUs    int           `json:"cpus"`
	Cores   int           `json:"cores"`
	Sockets int           `json:"sockets"`
	Kernel  string        `json:"kernel"`
	Assumed []assumedJSON `json:"assumed"`
}

// assumedJSON is an assumed key of a spec sheet and its value: a number
// (a count; a cache in bytes, Unit "bytes"; the clock, Unit "GHz"; a
// scheduler tunable in nanoseconds, Unit "ns") or text (kernel, pti).
type assumedJSON struct {
	Key   string `json:"key"`
	Value any    `json:"value"`
	Unit  string `json:"unit,omitempty"`
}

// json returns -machine's record for run --json; nil without -machine.
func (rm *runMachine) json() *machineJSON {
	if rm == nil || rm.params == nil {
		return nil
	}
	p := rm.params
	mj := &machineJSON{Path: rm.path, Name: p.Name, CPUs: p.CPUs, Cores: p.Cores, Sockets: p.Sockets,
		Kernel: rm.sheet.Kernel.String(), Assumed: []assumedJSON{}}
	for _, k := range p.Assumed {
		a := assumedJSON{Key: k, Value: sheetField(rm.sheet, k)}
		switch v := a.Value.(type) {
		case int64:
			a.Unit = "bytes"
		case float64:
			a.Unit = "GHz"
		case time.Duration:
			a.Value, a.Unit = v.Nanoseconds(), "ns"
		}
		mj.Assumed = append(mj.Assumed, a)
	}
	return mj
}

// bytesText writes a cache size in the sheet's units: KiB or MiB when whole.
func bytesText(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%dMiB", n>>20)
	case n >= 1<<20 && n%(1<<10) == 0 && n*10%(1<<20) == 0:
		return fmt.Sprintf("%gMiB", float64(n)/(1<<20))
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%dKiB", n>>10)
	}
	return strconv.FormatInt(n, 10)
}
