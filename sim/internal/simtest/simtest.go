// Package simtest runs the layers' datadriven tests: a file under a
// package's testdata holds cases, each a small scenario written as commands
// (a machine, its mutexes and mechanisms, threads and the ops each runs) and
// the summary of a run of it, and the test holds each run to its summary.
// Run with -update, the test rewrites the summaries instead.
//
// A case is a block of lines: the scenario, a line "----", the expected
// summary, and a blank line; lines starting with # between cases are
// comments, kept as they are. The scenario's commands, one a line:
//
//	machine cpus=N [sched=cfs|ts] [seed=N] [spin=N] [sockets=N] [array=none|50|55]
//	        [chain] [prio] [costs=old-kernel|new-kernel] [io=DUR] [rq=DUR]
//	mutex NAME [spin] [wakeall] [lines=N]
//	gate policy=queue|atomic|handoff limit=N [tickets=N] [sleep=DUR]   (concurrency.Config's; no other field set)
//	device units=N read=DUR write=DUR fsync=DUR [dist=uniform|fixed|exponential]
//	log flush=0|1|2
//	rows rows=N [hot=F access=F]
//	flushlist frames=N
//	thread [count=N] [hint=NAME]: OP; OP; ...
//	run [warmup=DUR] measure=DUR
//
// An OP is one of cpu DUR, syscall DUR, sleep DUR, lock MUTEX, unlock MUTEX,
// done N, setprio HINT, split P SKIP, trxbegin, trxend, readview DUR,
// gate-enter, gate-exit, read, write, fsync, pickrow, rowlock MUTEX,
// release MUTEX, commit, dirty (OpDirty of one page: "dirty N" for N). The summary gives the run's units and what the
// machine and its mechanisms counted.
package simtest

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/innosim/innosim/concurrency"
	"github.com/innosim/innosim/prio"
	"github.com/innosim/innosim/sim/bufpool"
	"github.com/innosim/innosim/sim/device"
	"github.com/innosim/innosim/sim/gate"
	"github.com/innosim/innosim/sim/machine"
	"github.com/innosim/innosim/sim/redolog"
	"github.com/innosim/innosim/sim/rowlock"
)

var update = flag.Bool("update", false, "rewrite the datadriven tests' summaries under testdata")

// A testCase is one scenario of a file and the summary it expects.
type testCase struct {
	comment  []string // the comment lines before it
	line     int      // its first line, for messages
	scenario []string
	want     string
}

// Run runs every case of the file at path as a subtest, holding each run's
// summary to the case's, or, with -update, rewriting the file with them.
func Run(t *testing.T, path string) {
	t.Helper()
	cases, tail, err := parse(path)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	for _, c := range cases {
		got := ""
		t.Run(fmt.Sprintf("line=%d", c.line), func(t *testing.T) {
			got, err = runScenario(c.scenario)
			if err != nil {
				t.Fatalf("%s:%d: %v", path, c.line, err)
			}
			if !*update && got != c.want {
				t.Errorf("%s:%d: summary\n%s\nwant\n%s", path, c.line, got, c.want)
			}
		})
		for _, l := range c.comment {
			out.WriteString(l + "\n")
		}
		out.WriteString(strings.Join(c.scenario, "\n") + "\n----\n" + got + "\n")
	}
	for _, l := range tail {
		out.WriteString(l + "\n")
	}
	if *update {
		if err := os.WriteFile(path, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// parse reads the cases of the file at path and the comment lines after
// the last.
func parse(path string) ([]testCase, []string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	var cases []testCase
	var cur *testCase
	var comment []string
	inWant := false
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		l := sc.Text()
		switch {
		case inWant && l == "":
			inWant, cur = false, nil
		case inWant:
			cur.want += l + "\n"
		case cur == nil && (l == "" || strings.HasPrefix(l, "#")):
			comment = append(comment, l)
		case cur == nil:
			cases = append(cases, testCase{comment: comment, line: n, scenario: []string{l}})
			cur, comment = &cases[len(cases)-1], nil
		case l == "----":
			inWant = true
		default:
			cur.scenario = append(cur.scenario, l)
		}
	}
	if cur != nil && !inWant {
		return nil, nil, fmt.Errorf("%s:%d: a scenario without its ---- line", path, cur.line)
	}
	return cases, comment, sc.Err()
}

// A run is a scenario being set up: the machine and what was installed.
type run struct {
	m       *machine.Machine
	mutexes map[string]int32
	gate    *gate.Gate
	dev     *device.Device
	log     *redolog.Log
	rows    *rowlock.Locks
	flush   *bufpool.FlushList
	threads int32
}

// runScenario sets up and runs one scenario and returns its summary.
func runScenario(lines []string) (string, error) {
	r := &run{mutexes: map[string]int32{}}
	for i, l := range lines {
		cmd, args, _ := strings.Cut(l, " ")
		if c, ok := strings.CutSuffix(cmd, ":"); ok { // "thread: ops"
			cmd, args = c, ":"+args
		}
		var err error
		if cmd != "machine" && r.m == nil {
			return "", fmt.Errorf("line %d: %s before machine", i+1, cmd)
		}
		switch cmd {
		case "machine":
			err = r.machine(kv(args))
		case "mutex":
			err = r.mutex(args)
		case "gate":
			err = r.installGate(kv(args))
		case "device":
			err = r.device(kv(args))
		case "log":
			err = r.installLog(kv(args))
		case "rows":
			err = r.installRows(kv(args))
		case "flushlist":
			var frames int
			if frames, err = atoi(kv(args), "frames", 0); err == nil {
				r.flush = bufpool.AddFlushList(r.m, int64(frames), r.dev)
			}
		case "thread":
			err = r.thread(args)
		case "run":
			return r.run(kv(args))
		default:
			err = fmt.Errorf("unknown command %q", cmd)
		}
		if err != nil {
			return "", fmt.Errorf("line %d: %s: %w", i+1, l, err)
		}
	}
	return "", fmt.Errorf("no run")
}

// kv reads key=value words (a word without = is key=true).
func kv(s string) map[string]string {
	out := map[string]string{}
	for _, w := range strings.Fields(s) {
		k, v, ok := strings.Cut(w, "=")
		if !ok {
			v = "true"
		}
		out[k] = v
	}
	return out
}

func atoi(m map[string]string, k string, def int) (int, error) {
	v, ok := m[k]
	if !ok {
		return def, nil
	}
	return strconv.Atoi(v)
}

func dur(m map[string]string, k string, def time.Duration) (time.Duration, error) {
	v, ok := m[k]
	if !ok {
		return def, nil
	}
	return time.ParseDuration(v)
}

func (r *run) machine(a map[string]string) error {
	cfg := machine.Config{Costs: machine.OldKernel()}
	var err error
	if cfg.CPUs, err = atoi(a, "cpus", 1); err != nil {
		return err
	}
	seed, err := atoi(a, "seed", 1)
	if err != nil {
		return err
	}
	cfg.Seed = uint64(seed)
	if cfg.SpinLoops, err = atoi(a, "spin", machine.DefaultSpinLoops); err != nil {
		return err
	}
	if cfg.Sockets, err = atoi(a, "sockets", 0); err != nil {
		return err
	}
	if s, ok := a["sched"]; ok {
		if cfg.Scheduler, err = machine.ParseScheduler(s); err != nil {
			return err
		}
	}
	switch a["array"] {
	case "", "none":
	case "50":
		cfg.SyncArray = machine.SyncArray50
	case "55":
		cfg.SyncArray = machine.SyncArray55
	default:
		return fmt.Errorf("array %q, want none, 50 or 55", a["array"])
	}
	cfg.BroadcastChain, cfg.Priorities = a["chain"] == "true", a["prio"] == "true"
	if p, ok := a["costs"]; ok {
		if cfg.Costs, err = machine.Profile(p); err != nil {
			return err
		}
	}
	if cfg.Costs.IOService, err = dur(a, "io", cfg.Costs.IOService); err != nil {
		return err
	}
	if cfg.Costs.RunqueueHold, err = dur(a, "rq", 0); err != nil {
		return err
	}
	r.m, err = machine.New(cfg)
	return err
}

func (r *run) mutex(args string) error {
	f := strings.Fields(args)
	if len(f) == 0 {
		return fmt.Errorf("want a name")
	}
	mu := machine.Mutex{Name: f[0]}
	a := kv(strings.Join(f[1:], " "))
	mu.Spin, mu.WakeAll = a["spin"] == "true", a["wakeall"] == "true"
	var err error
	if mu.Lines, err = atoi(a, "lines", 0); err != nil {
		return err
	}
	r.mutexes[mu.Name] = r.m.AddMutex(mu)
	return nil
}

func (r *run) installGate(a map[string]string) error {
	p, err := concurrency.ParsePolicy(a["policy"])
	if err != nil {
		return err
	}
	limit, err := atoi(a, "limit", 1)
	if err != nil {
		return err
	}
	tickets, err := atoi(a, "tickets", 1)
	if err != nil {
		return err
	}
	cfg := concurrency.Config{Limit: limit, Tickets: int64(tickets)}
	if cfg.SleepDelay, err = dur(a, "sleep", cfg.SleepDelay); err != nil {
		return err
	}
	r.gate, err = gate.Install(r.m, p, cfg)
	if err == nil && r.gate.Mutex() >= 0 {
		r.mutexes["gate"] = r.gate.Mutex()
	}
	return err
}

func (r *run) device(a map[string]string) error {
	cfg := device.Config{}
	var err error
	if cfg.Units, err = atoi(a, "units", 1); err != nil {
		return err
	}
	for k, d := range map[string]*time.Duration{"read": &cfg.Read, "write": &cfg.Write, "fsync": &cfg.Fsync} {
		if *d, err = dur(a, k, time.Millisecond); err != nil {
			return err
		}
	}
	switch a["dist"] {
	case "", "uniform":
	case "fixed":
		cfg.Dist = device.ServiceFixed
	case "exponential":
		cfg.Dist = device.ServiceExponential
	default:
		return fmt.Errorf("dist %q", a["dist"])
	}
	r.dev, err = device.Install(r.m, cfg)
	return err
}

func (r *run) installLog(a map[string]string) error {
	flush, err := atoi(a, "flush", 1)
	if err != nil {
		return err
	}
	r.log, err = redolog.Install(r.m, redolog.Config{FlushAtTrxCommit: flush}, r.dev)
	if err == nil {
		r.mutexes["log_sys"] = r.log.Mutex()
	}
	return err
}

func (r *run) installRows(a map[string]string) error {
	rows, err := atoi(a, "rows", 1)
	if err != nil {
		return err
	}
	t := rowlock.Table{Rows: int64(rows)}
	if v, ok := a["hot"]; ok {
		if t.HotShare, err = strconv.ParseFloat(v, 64); err != nil {
			return err
		}
	}
	if v, ok := a["access"]; ok {
		if t.HotAccess, err = strconv.ParseFloat(v, 64); err != nil {
			return err
		}
	}
	r.rows, err = rowlock.Install(r.m, t)
	return err
}

// hints are prio's levels by name.
var hints = map[string]prio.Hint{"idle": prio.Idle, "low": prio.Low, "background": prio.Background,
	"wait": prio.Wait, "normal": prio.Normal, "query": prio.Query, "high": prio.High}

func (r *run) thread(args string) error {
	head, body, ok := strings.Cut(args, ":")
	if !ok {
		return fmt.Errorf("want thread [count=N] [hint=NAME]: ops")
	}
	a := kv(head)
	count, err := atoi(a, "count", 1)
	if err != nil {
		return err
	}
	h := prio.Normal
	if name, ok := a["hint"]; ok {
		if h, ok = hints[name]; !ok {
			return fmt.Errorf("hint %q", name)
		}
	}
	var prog []machine.Op
	for _, s := range strings.Split(body, ";") {
		op, err := r.op(strings.Fields(s))
		if err != nil {
			return fmt.Errorf("op %q: %w", strings.TrimSpace(s), err)
		}
		prog = append(prog, op)
	}
	for range count {
		if err := r.m.AddThread(prog, h); err != nil {
			return err
		}
		r.threads++
	}
	return nil
}

// op reads one op.
func (r *run) op(f []string) (machine.Op, error) {
	if len(f) == 0 {
		return machine.Op{}, fmt.Errorf("empty")
	}
	arg := func() string {
		if len(f) < 2 {
			return ""
		}
		return f[1]
	}
	d := func(k machine.OpKind) (machine.Op, error) {
		v, err := time.ParseDuration(arg())
		return machine.Op{Kind: k, Dur: v}, err
	}
	mu := func(k machine.OpKind, work time.Duration) (machine.Op, error) {
		i, ok := r.mutexes[arg()]
		if !ok {
			return machine.Op{}, fmt.Errorf("no mutex %q", arg())
		}
		return machine.Op{Kind: k, Arg: i, Dur: work}, nil
	}
	switch f[0] {
	case "cpu":
		return d(machine.OpCPU)
	case "syscall":
		return d(machine.OpSyscall)
	case "sleep":
		return d(machine.OpSleep)
	case "readview":
		return d(machine.OpReadView)
	case "lock":
		return mu(machine.OpLock, 0)
	case "unlock":
		return mu(machine.OpUnlock, 0)
	case "rowlock":
		return mu(machine.OpRowLock, rowlock.RequestWork)
	case "release":
		return mu(machine.OpLockRelease, rowlock.ReleaseWork)
	case "done", "dirty":
		n, err := strconv.Atoi(arg())
		k := machine.OpDone
		if f[0] == "dirty" {
			k = machine.OpDirty
		}
		return machine.Op{Kind: k, Arg: int32(n)}, err
	case "setprio":
		h, ok := hints[arg()]
		if !ok {
			return machine.Op{}, fmt.Errorf("hint %q", arg())
		}
		return machine.Op{Kind: machine.OpSetPrio, Arg: int32(h)}, nil
	case "split":
		if len(f) != 3 {
			return machine.Op{}, fmt.Errorf("want split P SKIP")
		}
		p, err := strconv.ParseFloat(f[1], 64)
		if err != nil {
			return machine.Op{}, err
		}
		skip, err := strconv.Atoi(f[2])
		return machine.Op{Kind: machine.OpSplit, Arg: int32(skip), Dur: time.Duration(p * 1e9)}, err
	}
	simple := map[string]machine.OpKind{"trxbegin": machine.OpTrxBegin, "trxend": machine.OpTrxEnd,
		"gate-enter": machine.OpGateEnter, "gate-exit": machine.OpGateExit, "read": machine.OpRead,
		"write": machine.OpWrite, "fsync": machine.OpFsync, "pickrow": machine.OpPickRow, "commit": machine.OpLogCommit}
	if k, ok := simple[f[0]]; ok {
		return machine.Op{Kind: k}, nil
	}
	return machine.Op{}, fmt.Errorf("unknown op %q", f[0])
}

// run runs the machine and summarises what it measured and counted.
func (r *run) run(a map[string]string) (string, error) {
	wu, err := dur(a, "warmup", 0)
	if err != nil {
		return "", err
	}
	ms, err := dur(a, "measure", 10*time.Millisecond)
	if err != nil {
		return "", err
	}
	res := r.m.Run(wu, ms)
	var b strings.Builder
	fmt.Fprintf(&b, "units=%d throughput=%.0f/s busy=%.2f switches=%d syscalls=%d\n",
		res.Units, res.Throughput, res.Utilisation(), res.Switches, res.Syscalls)
	if busy := res.Busy(); busy > 0 {
		share := func(c machine.Cat) float64 { return 100 * float64(res.CPU[c]) / float64(busy) }
		fmt.Fprintf(&b, "cpu%% user=%.1f sys=%.1f switch=%.1f mutex-spin=%.1f futex-spin=%.1f futex-hold=%.1f\n",
			share(machine.CatUser), share(machine.CatSys), share(machine.CatSwitch), share(machine.CatMutexSpin),
			share(machine.CatFutexSpin), share(machine.CatFutexHold))
	}
	if res.Reads+res.Writes+res.Fsyncs > 0 {
		fmt.Fprintf(&b, "io reads=%d writes=%d fsyncs=%d\n", res.Reads, res.Writes, res.Fsyncs)
	}
	var units []string
	for i := range r.m.Threads() {
		units = append(units, strconv.FormatUint(r.m.ThreadUnits(i), 10))
	}
	fmt.Fprintf(&b, "thread units %s\n", strings.Join(units, " "))
	for _, mu := range r.m.Mutexes() {
		if mu.Acquisitions == 0 {
			continue
		}
		fmt.Fprintf(&b, "mutex %s acquisitions=%d spun=%d waits=%d signals=%d", mu.Name, mu.Acquisitions, mu.SpinAcquired, mu.Waits, mu.Signals)
		if mu.Cells > 0 {
			fmt.Fprintf(&b, " cells=%d cellwaits=%d", mu.Cells, mu.CellWaits)
		}
		if mu.Yields > 0 {
			fmt.Fprintf(&b, " yields=%d/%d", mu.Yields, mu.YieldSwitches)
		}
		b.WriteString("\n")
	}
	if r.gate != nil {
		s := r.gate.Stats()
		fmt.Fprintf(&b, "gate enters=%d waits=%d sleeps=%d handoffs=%d\n", s.Enters, s.Waits, s.Sleeps, s.Handoffs)
	}
	if r.rows != nil {
		w, d := r.rows.Stats()
		fmt.Fprintf(&b, "rowlocks waits=%d deadlocks=%d\n", w, d)
	}
	if f := r.flush; f != nil {
		fr := f.Frames()
		fmt.Fprintf(&b, "flushlist single=%d freewaits=%d free=%d dirty=%d\n", f.SingleFlushes, f.FreeWaits, fr.Avail, fr.Dirty)
	}
	if r.log != nil {
		w, c, g := r.log.Stats()
		fmt.Fprintf(&b, "log writes=%d commits=%d grouped=%d\n", w, c, g)
	}
	if err := r.m.Check(); err != nil {
		return "", err
	}
	return b.String(), nil
}
