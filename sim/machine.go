package sim

import (
	"fmt"
	"time"

	"github.com/innosim/innosim/aio"
	"github.com/innosim/innosim/concurrency"
	"github.com/innosim/innosim/prio"
)

// MachineConfig describes the simulated server: its cores, its scheduler, its
// costs and the InnoDB settings that shape lock behaviour.
type MachineConfig struct {
	// CPUs is the number of cores, 1..1024.
	CPUs int
	// Scheduler is the CPU scheduler model (CFS or TS).
	Scheduler Scheduler
	// Costs is the cost profile; the zero value means OldKernel().
	Costs CostProfile
	// Priorities applies OpSetPrio (MySQL 5.1's thread priorities on); false is
	// --skip-thread-priority: the calls are not made.
	Priorities bool
	// SpinLoops is innodb_sync_spin_loops: spin rounds before a mutex waiter
	// sleeps, 0..10000. The zero value spins not at all; DefaultSpinLoops is 30.
	SpinLoops int
	// Seed seeds the machine's random source.
	Seed uint64
}

// DefaultSpinLoops is innodb_sync_spin_loops' default (30) in MySQL 5.1..8.0.
const DefaultSpinLoops = 30

func (c MachineConfig) validate() (MachineConfig, error) {
	if c.CPUs < 1 || c.CPUs > 1024 {
		return c, fmt.Errorf("sim: CPUs = %d, want 1..1024: %w", c.CPUs, ErrInvalidConfig)
	}
	if c.Scheduler > TS {
		return c, fmt.Errorf("sim: Scheduler = %d, want cfs or ts: %w", c.Scheduler, ErrInvalidConfig)
	}
	if c.SpinLoops < 0 || c.SpinLoops > 10000 {
		return c, fmt.Errorf("sim: SpinLoops = %d, want 0..10000: %w", c.SpinLoops, ErrInvalidConfig)
	}
	if c.Costs == (CostProfile{}) {
		c.Costs = OldKernel()
	}
	return c, c.Costs.Validate()
}

// Accounting categories of CPU time.
const (
	catUser      = iota // the workload's own CPU bursts
	catSys              // system-call entry/exit and kernel work
	catCS               // context switches
	catMutexSpin        // InnoDB mutex spin rounds
	catFutexSpin        // waiting for a futex hash-bucket spinlock (raw_spin_lock)
	catFutexHold        // holding a futex hash-bucket spinlock
	numCats
)

// Thread states.
const (
	stBlocked uint8 = iota
	stRunnable
	stRunning
)

// Kernel operations a thread performs through a futex hash bucket.
const (
	kNone uint8 = iota
	kWaitMutex
	kWakeMutex
	kWaitEvent
	kWakeEvent
	kWaitGate
	kWakeThread
)

type thread struct {
	prog  []Op
	pc    int32
	phase uint8
	state uint8
	core  int32
	gen   uint32

	rem   int64 // ns of the current burst left
	cs    int64 // ns of context switch left before the burst continues
	start int64 // when the current run segment (or kernel spin) began
	cat   uint8

	// kernel futex operation in progress (non-preemptible)
	kop   uint8
	kstep uint8
	karg  int32
	kb    int32

	hint    prio.Hint
	cpupri  int   // TS CPU priority 0..59
	qleft   int64 // TS quantum left, ns
	vr      int64 // CFS virtual runtime, ns
	weight  int64 // CFS weight
	slEnd   int64 // CFS slice end
	enqKey  int64
	enqAt   int64
	sigSeen uint64 // event signal count seen (AIO handler)
	seg     int32  // AIO segment served (handler threads), else -1

	units uint64 // OpDone units this thread completed

	gstage   uint8 // OpGateEnter/OpGateExit stage
	gverdict concurrency.Decision

	hstage    uint8 // AIO handler stage
	woken     bool
	pfLeft    int32          // OpPrefetch: pages still to submit
	wakeSet   aio.SegmentSet // OpPrefetch: segments still to wake
	pfFlushed bool           // OpPrefetch: the deferred wakes were flushed
}

type core struct{ cur int32 }

// Machine is a simulated server: cores, a scheduler, threads running workload
// programs, InnoDB mutexes and futex hash buckets, and optionally a concurrency
// gate and a simulated-AIO array driven through their policy cores. It is built by
// NewMachine and run once by Run; it is not safe for concurrent use.
type Machine struct {
	cfg     MachineConfig
	e       *Engine
	evRun   Kind
	evWake  Kind
	cores   []core
	idle    int
	threads []thread
	runq    []int32
	seq     int64
	minVr   int64

	mutexes []Mutex
	buckets []bucket
	tbucket []int32 // private futex word of each thread (gate parking)
	scratch []int32 // the waiters a futex wake is waking

	gate *gateDriver
	aio  *aioDriver

	activeTrx int
	activeSum uint64
	units     uint64
	acct      [numCats]int64
	switches  uint64
	syscalls  uint64
}

// Mutex is a simulated lock. InnoDB mutexes (ib_mutex_t) spin SpinLoops rounds and
// then wait on an event; their release wakes every waiter (os_event_set, as
// mutex_exit in MySQL 5.0..5.7). Plain pthread mutexes (Spin false) go straight to
// futex wait and their release wakes one waiter.
type Mutex struct {
	// Name labels the mutex in statistics ("kernel_mutex").
	Name string
	// Spin: spin before waiting (InnoDB); false for a pthread mutex.
	Spin bool
	// WakeAll: release wakes every waiter; false wakes one.
	WakeAll bool

	holder   int32
	spinners []int32
	waiters  []int32
	bucket   int32

	// Acquisitions, SpinAcquired and Waits count lock requests, those granted
	// while spinning and those that slept.
	Acquisitions, SpinAcquired, Waits uint64
}

type bucket struct {
	busy  bool
	queue []int32
	mutex int32 // the mutex whose futex word hashes here, or -1
}

// NewMachine returns an idle machine with no threads. Add mutexes, a gate, an
// AIO array and threads, then Run it.
func NewMachine(cfg MachineConfig) (*Machine, error) {
	cfg, err := cfg.validate()
	if err != nil {
		return nil, err
	}
	m := &Machine{cfg: cfg, e: NewEngine(cfg.Seed)}
	m.evRun = m.e.On(m.onRun)
	m.evWake = m.e.On(m.onWake)
	m.cores = make([]core, cfg.CPUs)
	for i := range m.cores {
		m.cores[i].cur = -1
	}
	m.idle = cfg.CPUs
	return m, nil
}

// AddMutex adds a mutex and returns its index for OpLock/OpUnlock.
func (m *Machine) AddMutex(mu Mutex) int32 {
	mu.holder = -1
	mu.bucket = m.addBucket()
	m.mutexes = append(m.mutexes, mu)
	id := int32(len(m.mutexes) - 1)
	m.buckets[mu.bucket].mutex = id
	return id
}

func (m *Machine) addBucket() int32 {
	m.buckets = append(m.buckets, bucket{mutex: -1})
	return int32(len(m.buckets) - 1)
}

// AddThread adds a thread that runs prog in a loop, starting runnable at time 0
// with hint h. prog must contain at least one op that takes time.
func (m *Machine) AddThread(prog []Op, h prio.Hint) error {
	timed := false
	for _, op := range prog {
		if err := op.Kind.check(op, len(m.mutexes)); err != nil {
			return err
		}
		switch op.Kind {
		case OpCPU, OpSyscall, OpSleep, OpAIOHandler:
			timed = timed || op.Dur > 0 || op.Kind == OpSyscall || op.Kind == OpAIOHandler
		}
	}
	if !timed {
		return fmt.Errorf("sim: thread program of %d ops has no op that takes time: %w", len(prog), ErrInvalidConfig)
	}
	id := int32(len(m.threads))
	m.threads = append(m.threads, thread{
		prog: prog, hint: h, cpupri: 29, qleft: tsQuantum(29),
		weight: cfsWeight(h), core: -1, seg: -1, state: stBlocked,
	})
	m.e.At(0, m.evWake, id, m.threads[id].gen)
	return nil
}

// Result is what one run measured over its measurement window.
type Result struct {
	// Elapsed is the measurement window in virtual time.
	Elapsed time.Duration
	// Units counts OpDone units completed in the window.
	Units uint64
	// Throughput is Units per second of virtual time.
	Throughput float64
	// CPU is the busy time of all cores by category, in ns (see the Share methods).
	CPU [numCats]int64
	// Switches and Syscalls count context switches and system calls.
	Switches, Syscalls uint64
	// Events is how many engine events the whole run (warm-up included) took.
	Events uint64
	// Capacity is CPUs × Elapsed in ns: the CPU time available.
	Capacity int64
}

// Busy returns the CPU time used, in ns.
func (r Result) Busy() int64 {
	var s int64
	for _, v := range r.CPU {
		s += v
	}
	return s
}

// FutexSpinShare returns the share of busy CPU spent waiting for futex
// hash-bucket spinlocks (what perf attributes to raw_spin_lock), 0..1.
func (r Result) FutexSpinShare() float64 {
	if b := r.Busy(); b > 0 {
		return float64(r.CPU[catFutexSpin]) / float64(b)
	}
	return 0
}

// Utilisation returns the busy share of the machine's CPU capacity, 0..1.
func (r Result) Utilisation() float64 {
	if r.Capacity > 0 {
		return float64(r.Busy()) / float64(r.Capacity)
	}
	return 0
}

// Run simulates warmup and then measure of virtual time and returns what was
// measured after the warm-up.
func (m *Machine) Run(warmup, measure time.Duration) Result {
	m.e.Run(int64(warmup))
	u0, a0, s0, c0 := m.units, m.acct, m.switches, m.syscalls
	m.e.Run(int64(warmup + measure))
	r := Result{Elapsed: measure, Units: m.units - u0, Switches: m.switches - s0,
		Syscalls: m.syscalls - c0, Events: m.e.Events(), Capacity: int64(measure) * int64(m.cfg.CPUs)}
	for i := range r.CPU {
		r.CPU[i] = m.acct[i] - a0[i]
	}
	r.Throughput = float64(r.Units) / measure.Seconds()
	return r
}

// ThreadUnits returns the OpDone units thread i (in the order of AddThread,
// SetAIO's handlers included) has completed since the start.
func (m *Machine) ThreadUnits(i int) uint64 { return m.threads[i].units }

// Mutexes returns a snapshot of the machine's mutexes with their counters.
func (m *Machine) Mutexes() []Mutex { return append([]Mutex(nil), m.mutexes...) }

// jit draws a duration uniformly in [0.5, 1.5) × d.
func (m *Machine) jit(d time.Duration) int64 {
	if d <= 0 {
		return 0
	}
	return int64(d)/2 + m.e.rng.Int64N(int64(d))
}

// ---- scheduling ----

func (m *Machine) tsPrio(t *thread) int {
	p := min(max(t.cpupri+tsUpri(t.hint), 0), tsLevels-1)
	if t.state == stRunnable && m.e.now-t.enqAt > tsMaxWait && p < tsLwait {
		p = tsLwait
	}
	return p
}

// better reports whether runnable thread a should run before b.
func (m *Machine) better(a, b *thread) bool {
	if m.cfg.Scheduler == TS {
		pa, pb := m.tsPrio(a), m.tsPrio(b)
		if pa != pb {
			return pa > pb
		}
	} else if a.vr != b.vr {
		return a.vr < b.vr
	}
	return a.enqKey < b.enqKey
}

func (m *Machine) enqueue(id int32, front bool) {
	t := &m.threads[id]
	t.state = stRunnable
	t.enqAt = m.e.now
	m.seq++
	if front {
		t.enqKey = -m.seq
	} else {
		t.enqKey = m.seq
	}
	m.runq = append(m.runq, id)
}

func (m *Machine) bestRunnable() int {
	best := -1
	for i, id := range m.runq {
		if best < 0 || m.better(&m.threads[id], &m.threads[m.runq[best]]) {
			best = i
		}
	}
	return best
}

// account charges the time t ran since t.start.
func (m *Machine) account(t *thread) {
	el := m.e.now - t.start
	t.start = m.e.now
	if el <= 0 {
		return
	}
	c := min(el, t.cs)
	t.cs -= c
	m.acct[catCS] += c
	w := min(el-c, t.rem)
	t.rem -= w
	m.acct[t.cat] += w
	m.ran(t, el)
}

func (m *Machine) ran(t *thread, el int64) {
	t.qleft -= el
	t.vr += el * nice0Weight / t.weight
}

// put runs thread id on core c, charging a context switch.
func (m *Machine) put(id int32, c int) {
	t := &m.threads[id]
	t.state = stRunning
	t.core = int32(c)
	m.cores[c].cur = id
	t.cs = int64(m.cfg.Costs.ContextSwitch)
	m.switches++
	t.start = m.e.now
	if m.cfg.Scheduler == CFS {
		nr := int64(len(m.runq)/m.cfg.CPUs + 1)
		t.slEnd = m.e.now + max(cfsLatency/nr, cfsMinGran)
		if t.vr < m.minVr {
			// never let a long sleeper bank more than half a latency
			t.vr = max(t.vr, m.minVr-cfsLatency/2)
		}
		m.minVr = max(m.minVr, t.vr)
	}
	m.schedule(t, id)
}

// schedule posts the end of t's current burst or slice, whichever is first.
func (m *Machine) schedule(t *thread, id int32) {
	left := t.rem
	if t.kop != kNone {
		// the kernel finishes a futex call before the quantum is looked at
	} else if m.cfg.Scheduler == TS {
		left = min(left, max(t.qleft, 0))
	} else {
		left = min(left, max(t.slEnd-m.e.now, 0))
	}
	m.e.At(m.e.now+t.cs+left, m.evRun, id, t.gen)
}

// dispatch gives core c to the best runnable thread, or idles it.
func (m *Machine) dispatch(c int) {
	i := m.bestRunnable()
	if i < 0 {
		m.cores[c].cur = -1
		m.idle++
		return
	}
	id := m.runq[i]
	last := len(m.runq) - 1
	m.runq[i] = m.runq[last]
	m.runq = m.runq[:last]
	m.put(id, c)
}

// makeRunnable places a thread that just became runnable: on an idle core, by
// preempting a worse running thread (woken threads only), or on the run queue.
func (m *Machine) makeRunnable(id int32, wake bool) {
	if m.idle > 0 {
		for c := range m.cores {
			if m.cores[c].cur < 0 {
				m.idle--
				m.put(id, c)
				return
			}
		}
	}
	if wake {
		if c := m.victim(&m.threads[id]); c >= 0 {
			m.preempt(c)
			m.put(id, c)
			return
		}
	}
	m.enqueue(id, false)
}

// victim returns the core whose running thread a woken thread t preempts, or -1.
// Threads inside a kernel futex operation are not preemptible.
func (m *Machine) victim(t *thread) int {
	best, bestKey := -1, int64(0)
	for c := range m.cores {
		r := &m.threads[m.cores[c].cur]
		if r.kop != kNone {
			continue
		}
		var key int64
		if m.cfg.Scheduler == TS {
			key = -int64(m.tsPrio(r))
		} else {
			key = r.vr + (m.e.now-r.start)*nice0Weight/r.weight
		}
		if best < 0 || key > bestKey {
			best, bestKey = c, key
		}
	}
	if best < 0 {
		return -1
	}
	if m.cfg.Scheduler == TS {
		if m.tsPrio(t) > int(-bestKey) {
			return best
		}
		return -1
	}
	if bestKey-t.vr > cfsWakeupGran*nice0Weight/t.weight {
		return best
	}
	return -1
}

// preempt takes core c's thread off the core; it goes to the front of the queue
// under TS (setfrontdq: it keeps its quantum), to its vruntime's place under CFS.
func (m *Machine) preempt(c int) {
	id := m.cores[c].cur
	r := &m.threads[id]
	m.account(r)
	r.gen++
	m.cores[c].cur = -1
	m.enqueue(id, m.cfg.Scheduler == TS)
}

// block takes running thread t off its core and gives the core to the next.
func (m *Machine) block(t *thread) {
	c := int(t.core)
	t.state = stBlocked
	t.gen++
	t.core = -1
	m.cores[c].cur = -1
	m.dispatch(c)
}

// wake makes a blocked thread runnable; fromSleep applies TS's sleep-return boost.
func (m *Machine) wake(id int32) {
	t := &m.threads[id]
	if t.state != stBlocked {
		return
	}
	t.gen++
	if up := tsSleepReturn(t.cpupri); up != t.cpupri {
		// a new level brings that level's quantum; at the top the quantum runs on
		// across sleeps, so a thread that runs 20 ms in short bursts still expires
		t.cpupri = up
		t.qleft = tsQuantum(up)
	}
	if m.cfg.Scheduler == CFS {
		t.vr = max(t.vr, m.minVr-cfsLatency/2)
	}
	m.makeRunnable(id, true)
}

func (m *Machine) onWake(now int64, a int32, gen uint32) {
	if m.threads[a].gen == gen {
		m.wake(a)
	}
}

// onRun ends a burst or a slice of a running thread.
func (m *Machine) onRun(now int64, id int32, gen uint32) {
	t := &m.threads[id]
	if gen != t.gen || t.state != stRunning {
		return
	}
	m.account(t)
	if t.rem > 0 || t.cs > 0 {
		m.sliceEnd(t, id)
		return
	}
	if t.kop != kNone {
		m.kernelStep(t, id)
		return
	}
	m.advance(t, id)
}

// sliceEnd handles an expired TS quantum or CFS slice.
func (m *Machine) sliceEnd(t *thread, id int32) {
	if t.kop != kNone {
		// inside a futex call (maybe holding a bucket spinlock): the kernel does
		// not preempt it; the slice ends when it returns to user mode
		if m.cfg.Scheduler == CFS {
			t.slEnd = m.e.now + cfsMinGran
		}
		m.schedule(t, id)
		return
	}
	if m.cfg.Scheduler == TS {
		if t.qleft <= 0 {
			t.cpupri = tsQuantumExpired(t.cpupri)
			t.qleft = tsQuantum(t.cpupri)
		}
		if i := m.bestRunnable(); i >= 0 && m.tsPrio(&m.threads[m.runq[i]]) >= m.tsPrio(t) {
			m.requeue(t, id)
			return
		}
	} else {
		if i := m.bestRunnable(); i >= 0 && m.threads[m.runq[i]].vr < t.vr {
			m.requeue(t, id)
			return
		}
		t.slEnd = m.e.now + cfsMinGran
	}
	m.schedule(t, id)
}

// requeue puts a running thread at the back of the run queue and dispatches.
func (m *Machine) requeue(t *thread, id int32) {
	c := int(t.core)
	t.gen++
	m.cores[c].cur = -1
	m.enqueue(id, false)
	m.dispatch(c)
}

// runBurst starts a burst of d ns in category cat on t's core.
func (m *Machine) runBurst(t *thread, id int32, d int64, cat uint8) {
	t.rem, t.cat, t.start = d, cat, m.e.now
	m.schedule(t, id)
}

func (m *Machine) next(t *thread) {
	t.pc++
	t.phase = 0
	if int(t.pc) == len(t.prog) {
		t.pc = 0
	}
}

// advance interprets t's program from its pc until an op takes time or blocks.
func (m *Machine) advance(t *thread, id int32) {
	for {
		op := &t.prog[t.pc]
		switch op.Kind {
		case OpCPU, OpSyscall:
			if t.phase == 0 {
				t.phase = 1
				if op.Kind == OpCPU {
					m.runBurst(t, id, m.jit(op.Dur), catUser)
				} else {
					m.syscalls++
					m.runBurst(t, id, int64(m.cfg.Costs.Syscall)+m.jit(op.Dur), catSys)
				}
				return
			}
			m.next(t)
		case OpSleep:
			if t.phase == 0 {
				t.phase = 1
				m.block(t)
				m.e.At(m.e.now+m.jit(op.Dur), m.evWake, id, t.gen)
				return
			}
			m.next(t)
		case OpLock:
			if m.lock(t, id, op.Arg) {
				return
			}
			m.next(t)
		case OpUnlock:
			if m.unlock(t, id, op.Arg) {
				return
			}
			m.next(t)
		case OpSetPrio:
			if !m.cfg.Priorities {
				m.next(t)
				continue
			}
			if t.phase == 0 {
				t.phase = 1
				m.syscalls++
				m.runBurst(t, id, int64(m.cfg.Costs.Syscall)+int64(setPriorityWork), catSys)
				return
			}
			t.hint = prio.Hint(op.Arg)
			t.weight = cfsWeight(t.hint)
			m.next(t)
			if i := m.bestRunnable(); i >= 0 && m.cfg.Scheduler == TS && m.tsPrio(&m.threads[m.runq[i]]) > m.tsPrio(t) {
				m.requeue(t, id) // lowered below a runnable thread: surrender the core
				return
			}
		case OpTrxBegin:
			m.activeTrx++
			m.next(t)
		case OpTrxEnd:
			m.activeTrx--
			m.next(t)
		case OpReadView:
			if t.phase == 0 {
				t.phase = 1
				m.runBurst(t, id, int64(m.activeTrx)*int64(op.Dur), catUser)
				return
			}
			m.next(t)
		case OpDone:
			m.units += uint64(op.Arg)
			t.units += uint64(op.Arg)
			m.activeSum += uint64(m.activeTrx)
			m.next(t)
		case OpSplit:
			if m.e.rng.Int64N(1e9) < int64(op.Dur) {
				m.next(t)
			} else {
				t.pc += op.Arg
				m.next(t)
			}
		case OpGateEnter:
			if m.gateEnter(t, id) {
				return
			}
			m.next(t)
		case OpGateExit:
			if m.gateExit(t, id) {
				return
			}
			m.next(t)
		case OpPrefetch:
			if m.prefetch(t, id, op.Arg) {
				return
			}
			m.next(t)
		case OpAIOHandler:
			m.handlerStep(t, id)
			return
		}
	}
}

// setPriorityWork is the kernel work of one priocntl/setpriority call beyond the
// system-call entry: finding the thread and re-sorting it in the dispatcher.
const setPriorityWork = 300 * time.Nanosecond
