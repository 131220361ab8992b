package machine

import (
	"fmt"
	"time"

	"github.com/innosim/innosim/sim/engine"

	"github.com/innosim/innosim/prio"
)

// core is one CPU: the thread on it (or on its way to it), -1 if idle, and,
// under the Go runtime layer, the threads ready to run on it in order
// (GoRuntime keeps a run queue per CPU; the interpreter's schedulers keep one
// for each set of cores, coreSet.rq).
type core struct {
	cur  int32
	runq []int32
	// last is the thread a wake preempted on this core while the core's
	// run queue was long (the fair class's last buddy, LAST_BUDDY), or -1.
	last int32
	// waking: cur was woken onto this idle core by another CPU's thread and
	// runs when the interrupt has brought the core out of idle (remoteWake).
	waking bool
	// rqFree is when this CPU's run-queue lock is next free and rqLine the
	// core that wrote its line last (rqlock.go; CostProfile.RunqueueHold).
	rqFree int64
	rqLine int32
}

// Machine is a simulated server: cores, a scheduler, threads running workload
// programs, InnoDB mutexes and futex hash buckets, and optionally a concurrency
// gate and a simulated-AIO array driven through their policy cores. It is built by
// NewMachine and run once by Run; it is not safe for concurrent use.
type Machine struct {
	cfg     Config
	e       *engine.Engine
	evRun   engine.Kind
	evWake  engine.Kind
	cores   []core
	sets    [numCoreSets]coreSet
	fair    Fair // Config.Fair, or DefaultFair
	threads []thread
	seq     int64

	sy syncRoom // mutexes, futex buckets and the wait array (sync.go)

	ioCount  [NumIOKinds]uint64 // I/Os by kind (CountIO)
	steppers []Stepper          // by op kind (Handle), the machine's own kinds after the public ones (NewOpKind)
	host     SessionHost        // the session host (SetSessionHost), or nil
	gort     *GoRuntime         // the Go runtime layer (goruntime.go): its threads instead of programs

	// remoteWake charges a wake onto another, idle CPU (SetRemoteWake);
	// waker is the thread whose run event is being handled, -1 otherwise.
	remoteWake bool
	waker      int32
	evPut      engine.Kind
	// syncWake: the wake being made is a socket's, with WF_SYNC (wakeSync).
	syncWake bool

	activeTrx int
	trxOn     []int32 // active transactions by the socket they began on (readview.go)
	activeSum uint64
	units     uint64
	acct      [numCoreSets][NumCats]int64 // CPU time charged, by set of cores and category
	switches  uint64
	syscalls  uint64
}

// New returns an idle machine with no threads. Add mutexes, a gate, an
// AIO array and threads, then Run it.
func New(cfg Config) (*Machine, error) {
	cfg, err := cfg.validate()
	if err != nil {
		return nil, err
	}
	m := &Machine{cfg: cfg, e: engine.New(cfg.Seed)}
	m.trxOn = make([]int32, max(cfg.Sockets, 1)+1) // the last: the client's cores (socket)
	m.sy.m = m
	m.sy.arrMu = -1
	if cfg.SyncArray != SyncArrayNone {
		// sync_array_create(..., SYNC_ARRAY_OS_MUTEX): an os_mutex, a pthread
		// mutex, over n_reserved, res_count and sg_count (one line)
		m.sy.arrMu = m.AddMutex(Mutex{Name: "sync_array", Lines: 1})
	}
	m.evRun = m.e.On(m.onRunAs)
	m.waker = -1
	m.evWake = m.e.On(m.onWake)
	m.fair = cfg.Fair.orDefault()
	m.cores = make([]core, cfg.CPUs+cfg.ClientCPUs)
	for i := range m.cores {
		m.cores[i].cur, m.cores[i].rqLine, m.cores[i].last = -1, -1, -1
	}
	if m.rqOn() {
		m.evPut = m.e.On(m.onPut)
	}
	m.sets[ServerCores] = coreSet{lo: 0, hi: cfg.CPUs, idle: cfg.CPUs, costs: cfg.Costs}
	client := cfg.Costs
	client.CacheL2 = cfg.Costs.CacheL2 * int64(cfg.ClientCPUs) / int64(cfg.CPUs)
	client.CacheLLC = cfg.Costs.CacheLLC * int64(cfg.ClientCPUs) / int64(cfg.CPUs)
	m.sets[ClientCores] = coreSet{lo: cfg.CPUs, hi: cfg.CPUs + cfg.ClientCPUs, idle: cfg.ClientCPUs, costs: client}
	m.steppers = make([]Stepper, numOpKinds)
	return m, nil
}

// AddMutex adds a mutex and returns its index for OpLock/OpUnlock.
func (m *Machine) AddMutex(mu Mutex) int32 {
	mu.holder, mu.wordCPU, mu.dataCPU = -1, -1, -1
	mu.bucket = m.sy.addBucket()
	m.sy.mutexes = append(m.sy.mutexes, mu)
	id := int32(len(m.sy.mutexes) - 1)
	m.sy.buckets[mu.bucket].mutex = id
	return id
}

// AddThread adds a thread that runs prog in a loop on the server's cores,
// starting runnable at time 0 with hint h. prog must contain at least one op
// that takes time.
func (m *Machine) AddThread(prog []Op, h prio.Hint) error { return m.AddThreadOn(ServerCores, prog, h) }

// AddThreadOn is AddThread for a thread that runs on the cores of set s
// only: ClientCores needs Config.ClientCPUs.
func (m *Machine) AddThreadOn(s CoreSet, prog []Op, h prio.Hint) error {
	if s >= numCoreSets || m.sets[s].cpus() == 0 {
		return fmt.Errorf("sim: a thread on core set %d, which has no cores (Config.ClientCPUs = %d): %w", s, m.cfg.ClientCPUs, ErrInvalidConfig)
	}
	if m.gort != nil {
		return fmt.Errorf("sim: AddThread on a machine with a GoRuntime, want its threads added by GoRuntime.AddThread: %w", ErrInvalidConfig)
	}
	for _, mu := range m.sy.mutexes {
		if mu.Lines < 0 || mu.Lines > 64 {
			return fmt.Errorf("sim: mutex %q Lines = %d, want 0..64: %w", mu.Name, mu.Lines, ErrInvalidConfig)
		}
	}
	if !h.Valid() {
		return fmt.Errorf("sim: thread hint %d, want %d..%d: %w", h, prio.Idle, prio.Interrupt, ErrInvalidConfig)
	}
	if err := m.checkProgram(prog); err != nil {
		return err
	}
	id := int32(len(m.threads))
	m.threads = append(m.threads, thread{
		prog: prog, hint: h, cpupri: 29, qleft: tsQuantum(29),
		weight: cfsWeight(h), core: -1, last: -1, state: stBlocked,
		set: s, qi: -1, buddyOf: -1,
	})
	m.sets[s].threads++
	m.e.At(0, m.evWake, id, m.threads[id].gen)
	return nil
}

// checkProgram reports what a thread (or a pooled connection's server side)
// running prog could not run: an op out of range, a skip off the program, a
// wait for a device, a transaction op or an AIO segment the machine lacks, a
// socket op outside client.Sockets.Add, and a program that never advances the
// clock.
func (m *Machine) checkProgram(prog []Op) error {
	timed := false
	for i, op := range prog {
		if op.Kind >= numOpKinds && int(op.Kind) < len(m.steppers) && m.steppers[op.Kind] != nil {
			timed = true // a mechanism's loop (NewOpKind)
			continue
		}
		if err := op.Kind.check(op, len(m.sy.mutexes)); err != nil {
			return fmt.Errorf("sim: op %d of %d: %w", i, len(prog), err)
		}
		if c, ok := m.steppers[op.Kind].(Checker); ok {
			if err := c.CheckOp(op); err != nil {
				return fmt.Errorf("sim: op %d of %d: %w", i, len(prog), err)
			}
		}
		// a skip lands within the program (next then steps past it); a skip
		// past its end ran off the program and panicked, a negative one could
		// loop on ops that take no time
		if op.Kind == OpSplit && (op.Arg < 0 || i+int(op.Arg) >= len(prog)) {
			return fmt.Errorf("sim: op %d of %d: OpSplit skips %d ops, want 0..%d (to the end of the program): %w", i, len(prog), op.Arg, len(prog)-1-i, ErrInvalidConfig)
		}
		if w := opWants[op.Kind]; w != "" && m.steppers[op.Kind] == nil {
			return fmt.Errorf("sim: op %d %s: %w", op.Kind, w, ErrInvalidConfig)
		}
		timed = timed || takesTime(op)
	}
	if !timed {
		return fmt.Errorf("sim: thread program of %d ops has no op that takes time: %w", len(prog), ErrInvalidConfig)
	}
	if untimedLoop(prog) {
		return fmt.Errorf("sim: thread program of %d ops skips every op that takes time (its OpSplit probabilities are 0 or 1): it would loop without advancing the clock: %w", len(prog), ErrInvalidConfig)
	}
	return nil
}

// takesTime reports whether op advances its thread's clock by itself: CPU or
// a sleep of some duration, a system call, or a wait for I/O, a commit or the
// connection's peer.
func takesTime(op Op) bool {
	switch op.Kind {
	case OpCPU, OpSyscall, OpSleep, OpAIOHandler, OpPageCleaner, OpRead, OpWrite, OpFsync, OpLogCommit, OpSockSend, OpSockRecv:
		return op.Dur > 0 || op.Kind != OpCPU && op.Kind != OpSleep
	}
	return op.Kind >= numOpKinds // a mechanism's loop (NewOpKind)
}

// untimedLoop reports whether a thread running prog from its first op comes
// back to it without an op that takes time, by splits that are certain
// (probability 0 skips, 1 continues): the interpreter would then loop in one
// event forever. A split that goes either way by chance ends the walk: some
// round then takes time.
func untimedLoop(prog []Op) bool {
	for pc := 0; pc < len(prog); pc++ {
		op := prog[pc]
		if takesTime(op) {
			return false
		}
		if op.Kind == OpSplit {
			switch {
			case op.Dur == 0:
				pc += int(op.Arg)
			case op.Dur < 1e9:
				return false
			}
		}
	}
	return true
}

// Run simulates warmup and then measure of virtual time from the machine's
// clock (0 on the first call; a later call goes on where the last one stopped)
// and returns what was measured after the warm-up.
func (m *Machine) Run(warmup, measure time.Duration) Result {
	start := m.e.Now()
	m.e.Run(start + int64(warmup))
	a := m.Counters()
	m.e.Run(start + int64(warmup+measure))
	return m.Window(a, m.Counters())
}

// Counters is what a machine has counted from its start to one instant of
// its virtual clock (Machine.Counters); two of them make the Result of the
// window between them (Machine.Window).
type Counters struct {
	// At is the virtual time in ns.
	At int64
	// Units, Switches, Syscalls and Events are the totals so far; CPU the
	// server's cores' busy time by category, a burst running at At counted
	// for its part up to At, and ClientCPU the client's cores' (all
	// categories); IO the I/Os by kind (CountIO).
	Units, Switches, Syscalls, Events uint64
	CPU                               [NumCats]int64
	ClientCPU                         int64
	IO                                [NumIOKinds]uint64
}

// Counters returns the machine's counters now.
func (m *Machine) Counters() Counters {
	c := Counters{At: m.e.Now(), Units: m.units, Switches: m.switches, Syscalls: m.syscalls, Events: m.e.Events(), IO: m.ioCount}
	r := m.running()
	for i := range c.CPU {
		c.CPU[i] = m.acct[ServerCores][i] + r[ServerCores][i]
		c.ClientCPU += m.acct[ClientCores][i] + r[ClientCores][i]
	}
	return c
}

// Window returns the Result of the window from a to b, two Counters of this
// machine (a taken first); Events is b's, the run's whole count.
func (m *Machine) Window(a, b Counters) Result {
	el := time.Duration(b.At - a.At)
	r := Result{Start: time.Duration(a.At), Elapsed: el, Units: b.Units - a.Units, Switches: b.Switches - a.Switches,
		Syscalls: b.Syscalls - a.Syscalls, Events: b.Events, Capacity: int64(el) * int64(m.cfg.CPUs),
		Reads: b.IO[IORead] - a.IO[IORead], Writes: b.IO[IOWrite] - a.IO[IOWrite], Fsyncs: b.IO[IOFsync] - a.IO[IOFsync]}
	for i := range r.CPU {
		r.CPU[i] = b.CPU[i] - a.CPU[i]
	}
	r.ClientCPU = b.ClientCPU - a.ClientCPU
	if el > 0 {
		r.Throughput = float64(r.Units) / el.Seconds()
	}
	return r
}

// ThreadUnits returns the OpDone units thread i (in the order of AddThread,
// an AIO array's handlers included) has completed since the start.
func (m *Machine) ThreadUnits(i int) uint64 { return m.threads[i].units }

// Mutexes returns a snapshot of the machine's mutexes with their counters.
func (m *Machine) Mutexes() []Mutex { return append([]Mutex(nil), m.sy.mutexes...) }

// Engine returns the machine's engine: a driver of the Go runtime layer
// steps it (Engine.Step) and draws its costs from it (Engine.Jitter).
func (m *Machine) Engine() *engine.Engine { return m.e }

// clock returns the virtual time as a time.Duration since the start: the
// clock the policy cores are given.
func (m *Machine) clock() time.Duration { return time.Duration(m.e.Now()) }

// jit draws a duration uniformly in [0.5, 1.5) × d (Engine.Jitter).
func (m *Machine) jit(d time.Duration) int64 { return m.e.Jitter(d) }
