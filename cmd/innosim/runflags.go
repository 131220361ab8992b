package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/innosim/innosim/internal/cmdflag"
	"github.com/innosim/innosim/internal/outfile"
	"github.com/innosim/innosim/internal/report"
	"github.com/innosim/innosim/mycnf"
	"github.com/innosim/innosim/sim"
)

// runFlags are run's flags, as the command line gives them.
type runFlags struct {
	cnf, workload, vary, sched, profile, costs, gate, wake, csv, plot string
	json                                                              string
	aio                                                               string
	threadHandling                                                    string
	server                                                            string
	machineFile, clientCPUs                                           string
	showSettings                                                      bool
	threads, cpus                                                     []int
	seed                                                              uint64
	measure                                                           time.Duration
	warmup                                                            warmupFlag
	device                                                            deviceFlag
	client                                                            clientFlag
}

// runOptions is run's command line, parsed: the flags, the -vary key and
// its values, the server and the settings -cnf gives it (before -vary).
type runOptions struct {
	runFlags
	fs         *cmdflag.FlagSet // what was given, and how
	varyKey    string           // the -vary key; "" for none
	varyValues []string         // its values; one "" without -vary
	server     mycnf.Server
	base       mycnf.Settings
	machine    *runMachine // -machine and -client-cpus
}

// runSetting is a setting of run that a flag sets and -vary varies.
type runSetting struct {
	key     string                    // the -vary key
	flags   []string                  // the flags that set it: with -vary key, one would replace the other
	choices []string                  // the values it takes (nil: checked when the cell is built)
	also    []string                  // values it takes besides, other names of choices
	names   string                    // what a value names, for two -vary values that build one cell
	cnfKey  string                    // the option-file key it sets, if any
	field   func(f *runFlags) *string // the flag's value
}

// runSettings are run's settings that are flags and -vary keys alike.
var runSettings = []runSetting{
	{key: "sched", flags: []string{"sched"}, choices: []string{"cfs", "ts", "eevdf"}, also: []string{"linux", "solaris"}, names: "scheduler",
		field: func(f *runFlags) *string { return &f.sched }},
	{key: "profile", flags: []string{"profile", "costs"}, names: "cost profile (the same name and costs)",
		field: func(f *runFlags) *string { return &f.profile }},
	{key: "gate", flags: []string{"gate"}, choices: []string{"queue", "atomic", "handoff"}, names: "gate core",
		field: func(f *runFlags) *string { return &f.gate }},
	{key: "wake", flags: []string{"wake"}, choices: []string{"all", "targeted", "deferred"}, names: "wake policy",
		field: func(f *runFlags) *string { return &f.wake }},
	{key: "aio", flags: []string{"aio"}, choices: []string{"simulated", "native"}, names: "AIO mode", cnfKey: "innodb_use_native_aio",
		field: func(f *runFlags) *string { return &f.aio }},
	{key: "thread_handling", flags: []string{"thread-handling"}, choices: []string{"one-thread-per-connection", "pool-of-threads"},
		names: "thread handling", cnfKey: "thread_handling", field: func(f *runFlags) *string { return &f.threadHandling }},
}

// lookupRunSetting returns the run setting of -vary key (dashes read as
// underscores), or of the option-file key a run flag sets
// (innodb_use_native_aio, -aio's).
func lookupRunSetting(key string) (runSetting, bool) {
	key = strings.ReplaceAll(key, "-", "_")
	i := slices.IndexFunc(runSettings, func(s runSetting) bool { return s.key == key || s.cnfKey == key })
	if i < 0 {
		return runSetting{}, false
	}
	return runSettings[i], true
}

// check refuses a value of s that s does not take; named is how the command
// line gave it.
func (s runSetting) check(named, value string) error {
	if s.choices == nil || slices.Contains(s.also, value) {
		return nil
	}
	return cmdflag.Choice(named, value, s.choices...)
}

// parseRun reads run's command line: the flags and the rules they keep,
// the option file and -vary. The option file's warnings go to stderr.
func parseRun(args []string, stderr io.Writer) (*runOptions, error) {
	fs, f := newRunFlagSet(stderr)
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if err := fs.Check(runRules(f)...); err != nil {
		return nil, err
	}
	base, err := readCnf(f.cnf, f.server, f.showSettings, stderr)
	if err != nil {
		return nil, err
	}
	if err := checkMaxConnections(base, f.threads); err != nil {
		return nil, err
	}
	srv, _ := mycnf.ParseServer(f.server) // readCnf refused a bad one
	o := &runOptions{runFlags: *f, fs: fs, varyValues: []string{""}, server: srv, base: base}
	if err := o.setMachine(); err != nil {
		return nil, err
	}
	if c := f.client.cfg; o.machine.client > 0 && c.Event == 0 && c.Send == 0 && c.Recv == 0 {
		fmt.Fprintf(stderr, "innosim run: warning: -client-cpus %s with -client %s: the client's cores run a client of no CPU (cpu, send and recv 0): give them from a measurement (innosim live's client_cpu_us_per_query)\n", f.clientCPUs, f.client.arg)
	}
	if fs.Given("vary") {
		if err := o.parseVary(); err != nil {
			return nil, err
		}
	}
	return o, nil
}

// runRules are the refusals of run's flags alone, in the order checked.
func runRules(f *runFlags) []cmdflag.Rule {
	rules := []cmdflag.Rule{
		cmdflag.NoArgs(),
		cmdflag.Exclusive("costs", "profile"),
		cmdflag.Refuse(func() bool { return f.showSettings && f.json == outfile.Stdout },
			"-show-settings with -json -: the settings would go to stdout with the JSON, whose rows hold them already: want one"),
		cmdflag.Refuse(func() bool { return f.showSettings && f.csv == outfile.Stdout },
			"-show-settings with -csv -: the settings would go to stdout with the CSV: want one"),
		cmdflag.Required("workload", "one of "+strings.Join(sim.WorkloadNames(), ", ")),
		cmdflag.OneOf("workload", sim.WorkloadNames()...),
		cmdflag.Within("measure", time.Millisecond, time.Minute),
		cmdflag.Valid("plot", report.CheckChartPath),
		// -vary "" varies nothing, as -threads "" is refused
		cmdflag.NotEmpty("vary", "key=v1,v2, or no -vary"),
		// the sheet's kernel and page-table isolation give both: neither
		// flag overrides it unseen
		func(fs *cmdflag.FlagSet) error {
			switch {
			case f.machineFile == "":
			case fs.Given("sched"):
				return cmdflag.Usagef("-machine and -sched both given: the machine's kernel gives its scheduler: want one")
			case fs.Given("profile"):
				return cmdflag.Usagef("-machine and -profile both given: the machine's kernel gives its cost profile (-costs gives a calibration's footprints beside it): want one")
			}
			return nil
		},
		func(fs *cmdflag.FlagSet) error {
			if fs.Given("client-cpus") && f.client.cfg == nil {
				return cmdflag.Usagef("-client-cpus without -client: the client's own cores need a client on the machine: want -client with its costs (cpu=,send=,recv=: from a measurement, e.g. innosim live's client_cpu_us_per_query), or no -client-cpus")
			}
			return nil
		},
	}
	for _, s := range runSettings {
		rules = append(rules, func(fs *cmdflag.FlagSet) error {
			v := *s.field(f)
			if v == "" && !fs.Given(s.flags[0]) {
				return nil // the default: the option file's, or the mode's
			}
			return s.check(fmt.Sprintf("-%s %q", s.flags[0], v), v)
		})
	}
	return rules
}

// parseVary reads -vary key=v1,v2 (cmdflag.KeyValues: no empty value, none
// twice), refusing a key that is one of the sweep's axes (threads, cpus),
// one the server does not have, one whose flag is given too (-vary would
// replace it in every row), and a value a run setting does not take.
func (o *runOptions) parseVary() error {
	k, vals, err := cmdflag.KeyValues("-vary", o.runFlags.vary)
	if err != nil {
		return err
	}
	flags := []string{strings.ReplaceAll(k, "_", "-")}
	s, ok := lookupRunSetting(k)
	if ok {
		flags = s.flags
	}
	given := append(o.fs.GivenOf(flags...), "") // "" for none
	err = o.fs.Check(
		// the table's columns and rows: "-threads and -vary threads both
		// given" sent the user to a -vary that was then refused
		cmdflag.Refuse(func() bool { return k == "threads" || k == "cpus" },
			"-vary %s: %s are swept by -%s itself (a list: -%s %s), not by -vary", k, k, k, k, strings.Join(vals, ",")),
		cmdflag.Refuse(func() bool { return removedBy(o.server, k) }, "-vary %s: %s", k, removedMessage(o.server, k)),
		cmdflag.Refuse(func() bool { return given[0] != "" }, "%s and -vary %s both given: want one (-vary sets %s in every row)", given[0], k, k),
		cmdflag.Refuse(func() bool { return o.machineFile != "" && (s.key == "sched" || s.key == "profile") },
			"-machine and -vary %s both given: the machine's kernel gives its %s: want one", k, s.names),
		func(*cmdflag.FlagSet) error {
			if s.key != strings.ReplaceAll(k, "-", "_") {
				return nil // not a run setting, or an option-file key a flag sets: mycnf reads its values
			}
			for _, v := range vals {
				if err := s.check(fmt.Sprintf("-vary %s=%s", k, v), v); err != nil {
					return err
				}
			}
			return nil
		},
	)
	o.varyKey, o.varyValues = k, vals
	return err
}

// newRunFlagSet defines run's flags.
func newRunFlagSet(stderr io.Writer) (*cmdflag.FlagSet, *runFlags) {
	fs := cmdflag.New("run", stderr, "innosim run --workload W [flags]",
		"Simulates the server of a my.cnf under a sysbench-like workload for every",
		"threads × cpus (× --vary value) cell and prints throughput by threads.")
	var varyKeys []string
	for _, s := range runSettings {
		varyKeys = append(varyKeys, s.key)
	}
	f := &runFlags{}
	fs.StringVar(&f.cnf, "cnf", "", "MySQL option file to read (the groups of -server); MySQL's defaults if empty")
	fs.StringVar(&f.server, "server", "mysql", "server whose option groups -cnf is read for: mysql or mariadb, optionally a release -X.Y (mysql-5.1, mariadb-10.5), which also sets its mutex wait array and defaults")
	fs.BoolVar(&f.showSettings, "show-settings", false, "print the settings the run uses, and the line each came from, before the table")
	fs.StringVar(&f.workload, "workload", "", "workload: "+strings.Join(sim.WorkloadNames(), ", ")+" (required)")
	fs.CountsVar(&f.threads, "threads", []int{1, 2, 4, 8, 16, 32, 64}, maxThreads, fmt.Sprintf("client thread `counts`, comma-separated, each 1..%d (run and printed in ascending order)", maxThreads))
	fs.CountsVar(&f.cpus, "cpus", []int{4}, maxCPUs, fmt.Sprintf("core `counts`, comma-separated, each 1..%d (run and printed in ascending order)", maxCPUs))
	fs.StringVar(&f.vary, "vary", "", "one setting and its values, key=v1,v2: an option-file key (innodb_thread_concurrency=0,8) or "+strings.Join(varyKeys, ", "))
	fs.StringVar(&f.sched, "sched", "cfs", "scheduler model: cfs (Linux before 6.6), eevdf (Linux 6.6 on) or ts (Solaris)")
	fs.StringVar(&f.profile, "profile", "old-kernel", "cost profile: old-kernel, new-kernel or a profile file")
	fs.StringVar(&f.costs, "costs", "", "cost profile file written by innosim calibrate --out (instead of -profile); a cost the file does not give keeps old-kernel's value, and a warning lists those that do")
	fs.StringVar(&f.gate, "gate", "queue", "gate core when innodb_thread_concurrency > 0: queue, atomic or handoff")
	fs.StringVar(&f.aio, "aio", "", "AIO mode: simulated or native (default: the option file's innodb_use_native_aio, ON unless set)")
	fs.StringVar(&f.threadHandling, "thread-handling", "", "MariaDB's thread_handling: one-thread-per-connection (default) or pool-of-threads (not with -server mysql): with -client, the pool's groups of workers taking turns as listener (threadpool_generic.cc: thd_wait_begin, check_stall); without it, a gate per CPU that serves one request at a time in front of a thread per connection, so a request waiting for a page read or an fsync holds its group")
	fs.StringVar(&f.machineFile, "machine", "", "a box described by its spec sheet (sim/spec: sockets, cores, threads, caches, kernel): gives the CPUs, sockets, caches, cost profile and scheduler, so not with -sched or -profile; -cpus is then the server's CPUs of the box (default all but -client-cpus'), -costs a calibration's footprints; the keys the sheet assumes print under the table")
	fs.StringVar(&f.clientCPUs, "client-cpus", "", "cores of the client's own (with -client): quarter (a quarter of -machine's CPUs, as MariaDB's thread-pool benchmarks pinned sysbench), or a count: of -machine's CPUs, or without -machine added beside -cpus; 0 or unset: the client on the server's cores")
	fs.Var(&f.client, "client", "run the benchmark client on the simulated cores, a client thread per connection as sysbench beside the server, with a wake onto an idle CPU charged (as validate's live cells): on (every key 0), or key=value pairs, each optional: cpu (the client's CPU per unit of the workload), send, recv (kernel work of its write and read), server-cpu (the server's CPU per unit with one connection), server-footprint, client-footprint (bytes a switch refills; need a calibrated -costs); durations 0..1s, sizes in bytes, KiB, MiB or GiB up to 1GiB (sim.ClientConfig). The round trip's sleep (oltp_point_select's 30 µs) is replaced by the client thread's CPU and system calls; refused for a workload with no round trip to a client (row_scan_*, mutex_wake_*) or whose wait is think time (read_ahead)")
	fs.StringVar(&f.wake, "wake", "", "AIO wake policy: all, targeted or deferred (default: all for simulated AIO, targeted for native)")
	fs.Uint64Var(&f.seed, "seed", 1, "random seed")
	fs.Var(&f.device, "device", "storage device the AIO handlers and the workload's reads wait for: units=N[,read=5ms][,write=5ms][,fsync=5ms][,dist=uniform|fixed|exponential], units 1..1024, durations 1ns..10s; a time of a kind of I/O the workload never does is refused")
	fs.DurationVar(&f.measure, "measure", sim.DefaultMeasure, "virtual time measured per cell (after a warm-up), a `duration` of 1ms..1m")
	fs.Var(&f.warmup, "warmup", "each cell's warm-up: steady (until MSER-5 and Geweke's test find a level that a series twice as long confirms within 5%, and under cfs not before every thread could have had its sleeper credit of CPU: sim.SteadyWarmup, as validate's live cells; a cell not steady within 120 s of virtual time, or 8 × -measure if longer, prints not steady), or a fixed virtual `duration` of 1ms..1m, judged by nobody (default: steady)")
	fs.StringVar(&f.csv, "csv", "", "also write the results to this CSV file; - writes it to stdout instead of the text")
	fs.StringVar(&f.plot, "plot", "", "also draw throughput vs threads to this chart (.svg, .png or .pdf)")
	fs.StringVar(&f.json, "json", "", "also write the results, with the settings that made them, to this JSON file; - writes them to stdout instead of the tables")
	return fs, f
}

// Bounds of -threads and -cpus: sim.Cell's.
const (
	maxThreads = 10000
	maxCPUs    = 1024
)
