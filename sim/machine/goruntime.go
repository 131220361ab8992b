package machine

import (
	"fmt"
	"time"

	"github.com/innosim/innosim/sim/engine"
)

// GoRuntime is the Go runtime's scheduler as an optional layer of a Machine:
// GOMAXPROCS Ps (the right to run Go code), the global run queue of goroutines
// waiting for one, and sysmon, which retakes a P from a thread that sits in a
// system call. It follows runtime/proc.go (Go 1.14-1.26): exitsyscall,
// entersyscall, handoffp, startlockedm/stoplockedm, sysmon and retake, with
// the constants of sysmon and retake.
//
// Every thread of the layer is a goroutine locked to its OS thread
// (runtime.LockOSThread), a thread of the Machine that a driver steps: the
// driver's Step function runs when the thread may go on, and the driver tells
// the layer what the thread does next (Compute, Syscall, Sleep, Lock, Exit).
// The layer charges the machine's CostProfile: Syscall, ContextSwitch,
// FutexWakeCall, FutexWake, ThreadHandoff, MutexHandoff, WakePreempt and
// SysmonTick, each drawn through Engine.Jitter where it is a duration.
//
// The kernel under the layer is CFS as this kernel places wakes of nice-0
// threads that run short bursts (try_to_wake_up → select_task_rq_fair): each
// CPU has its own run queue, FIFO (nobody runs long enough for virtual
// runtime to reorder it), a woken thread goes to the CPU it last ran on, and a
// CPU going idle does not pull from a busy one (newidle balancing skips
// short idle periods). See Wake for where a wakee lands and whom it preempts.
//
// A machine with a GoRuntime runs only the layer's threads: SetGoRuntime
// refuses a machine with threads, an AIO array or a gate, and
// Machine.AddThread (so aiosim.Install) refuses one with a GoRuntime. The layer is driven by stepping the machine's Engine
// (Machine.Engine); it is not safe for concurrent use.
type GoRuntime struct {
	m    *Machine
	step func(id int32)
	gs   []goThread // by machine thread id
	ps   []goP
	runq []int32 // sched.runq: threads back from a system call with no P, FIFO

	kStep, kExit, kSysRet, kSysmon, kHanded engine.Kind

	sysmonIdle  int   // sysmon rounds in succession that retook nothing
	sysmonDelay int64 // ns sysmon asks to sleep until its next round
	sysmonSlack int64 // ns its sleeps last beyond what it asks: SysmonTick − sysmonMin

	stats GoRuntimeStats
}

// GoRuntimeStats counts what the layer did since SetGoRuntime.
type GoRuntimeStats struct {
	// Handoffs is how many times sysmon handed a retaken P to a queued thread
	// (ThreadHandoff each).
	Handoffs uint64
	// RemoteWakes and LocalWakes are the threads woken onto another CPU (an
	// interrupt to it if it is idle, or if the wakee preempts the thread
	// there) and onto the waker's own.
	RemoteWakes, LocalWakes uint64
	// Switches counts context switches (ContextSwitch each).
	Switches uint64
}

// goThread is what the layer keeps for one of its threads, beside the
// machine's thread record (whose gen voids the thread's stale events).
type goThread struct {
	blocked bool  // asleep in FUTEX_WAIT (Sleep)
	p       int   // the P it runs on, -1 if none
	cpu     int   // the OS CPU it runs on, is queued on, or last ran on
	preempt int32 // a thread woken onto this one's CPU, which takes it when this one's system call returns; -1 if none
	inCall  bool  // inside a system call that returns (Syscall): onSysRet is due
	handed  bool  // a P was handed to it while it slept on the run queue
	lastP   int   // the P it entered its last system call on (its oldp), -1 if none

	// stepping is set while the thread runs on its CPU in user mode until
	// due (a pending step); a preemption there (preemptUser) keeps the
	// remain of it and sets resume.
	stepping, resume bool
	due, remain      int64
}

// goP is one of Go's Ps (runtime.p).
type goP struct {
	state  pState
	thread int32 // the thread running on it or sleeping in a system call with it
	seen   bool  // pSyscall: sysmon has seen this system call in a previous round (sysmontick.syscalltick)
	since  int64 // pSyscall: when the system call began
	// sched is when the scheduler last gave the P a goroutine (its
	// schedtick moved); a P passed from thread to thread by exitsyscall keeps
	// it.
	sched int64
}

// pState is a P's status (runtime's _Pidle, _Prunning, _Psyscall).
type pState uint8

const (
	pIdle pState = iota
	pRunning
	pSyscall
)

// sysmonMin and sysmonMax bound the sleep sysmon asks for between rounds
// (usleep(20), doubling after 50 rounds in succession that retook nothing, up
// to 10 ms; each sleep lasts CostProfile.SysmonTick − sysmonMin longer than
// asked), syscallRetake is how long a P may sit in a system call while another
// P is idle before retake takes it anyway, and forcePreempt how long a P may
// go without the scheduler giving it a goroutine before retake takes it from
// whatever system call its thread is in (threads that pass a P to each other
// in exitsyscall never go through schedule): forcePreemptNS and sysmon's
// constants in runtime/proc.go.
const (
	sysmonMin     = 20 * time.Microsecond
	sysmonMax     = 10 * time.Millisecond
	syscallRetake = 10 * time.Millisecond
	forcePreempt  = 10 * time.Millisecond
)

// SetGoRuntime installs the Go runtime layer with procs Ps (GOMAXPROCS,
// 1..1024) on a machine without threads; step is the driver's program, called
// with a thread's id each time that thread may go on (see GoRuntime). It
// returns an error wrapping ErrInvalidConfig if procs is out of range, step is
// nil, the machine has threads, a gate or an AIO array or a GoRuntime already,
// its scheduler is not CFS, or its cost profile's SysmonTick is outside
// 20µs..10ms (sysmon cannot sleep less than it asks, nor ask more than 10 ms).
func (m *Machine) SetGoRuntime(procs int, step func(id int32)) (*GoRuntime, error) {
	c := m.cfg.Costs
	switch {
	case procs < 1 || procs > 1024:
		return nil, fmt.Errorf("sim: GoRuntime procs = %d, want 1..1024: %w", procs, ErrInvalidConfig)
	case step == nil:
		return nil, fmt.Errorf("sim: GoRuntime step is nil, want the driver's program: %w", ErrInvalidConfig)
	case len(m.threads) > 0 || m.mechanisms() || m.gort != nil:
		return nil, fmt.Errorf("sim: SetGoRuntime on a machine with threads, a gate, an AIO array or a GoRuntime, want a bare machine: %w", ErrInvalidConfig)
	case m.cfg.Scheduler != CFS:
		return nil, fmt.Errorf("sim: SetGoRuntime on scheduler %v, want cfs: %w", m.cfg.Scheduler, ErrInvalidConfig)
	case c.SysmonTick < sysmonMin || c.SysmonTick > sysmonMax:
		return nil, fmt.Errorf("sim: cost profile sysmon_tick = %v, want %v..%v: %w", c.SysmonTick, sysmonMin, sysmonMax, ErrInvalidConfig)
	}
	g := &GoRuntime{m: m, step: step, ps: make([]goP, procs)}
	g.kStep = m.e.On(g.onStep)
	g.kExit = m.e.On(g.exitsyscall)
	g.kSysRet = m.e.On(g.onSysRet)
	g.kSysmon = m.e.On(g.sysmon)
	g.kHanded = m.e.On(g.startlockedm)
	g.sysmonDelay = int64(sysmonMin)
	g.sysmonSlack = int64(c.SysmonTick - sysmonMin)
	m.gort = g
	return g, nil
}

// AddThread adds a locked thread, asleep as if just created, and wakes it
// onto a CPU drawn from the machine's seed (the kernel puts a new thread
// wherever was idlest when it was created); it first runs step when it has a
// CPU and a P. It returns the thread's id, the machine's thread index.
func (g *GoRuntime) AddThread() int32 {
	id := int32(len(g.m.threads))
	g.m.threads = append(g.m.threads, thread{core: -1, state: stBlocked, weight: nice0Weight})
	g.gs = append(g.gs, goThread{p: -1, lastP: -1, preempt: -1, blocked: true})
	g.gs[id].cpu = g.m.e.Rand().IntN(len(g.m.cores))
	g.Wake(id, -1)
	return id
}

// Start schedules sysmon's first round, SysmonTick from now: call it once,
// after the threads are added.
func (g *GoRuntime) Start() {
	g.m.e.At(g.m.e.Now()+g.sysmonDelay+g.sysmonSlack, g.kSysmon, 0, 0)
}

// Stats returns the layer's counters.
func (g *GoRuntime) Stats() GoRuntimeStats { return g.stats }

// Compute continues thread id's program d ns from now, in user mode on its CPU
// and its P (Go code, or the CPU time before its next call): step runs then.
func (g *GoRuntime) Compute(id int32, d int64) {
	t := &g.gs[id]
	t.due = g.m.e.Now() + d
	t.stepping = true
	g.m.e.After(d, g.kStep, id, g.m.threads[id].gen)
}

func (g *GoRuntime) onStep(_ int64, id int32, gen uint32) {
	if g.m.threads[id].gen != gen {
		return
	}
	g.gs[id].stepping = false
	g.step(id)
}

// Sleeping reports whether thread id is asleep in FUTEX_WAIT (Sleep), so that
// a FUTEX_WAKE would wake it.
func (g *GoRuntime) Sleeping(id int32) bool { return g.gs[id].blocked }

// Wake is the kernel waking thread id (try_to_wake_up), from thread waker's
// FUTEX_WAKE, or from the runtime's (waker -1). It returns the waker's time in
// the call, in ns, for the waker's Syscall.
//
// Where the wakee goes, as calibrate's probes and sched_waking traces see this
// kernel do: to the CPU it last ran on. If that CPU is idle, a remote wake,
// which costs the waker FutexWakeCall (the interrupt to that CPU: a hypervisor
// exit on a VM) and runs the wakee FutexWake after the call began. If it is
// busy, the wakee stays there all the same (wake_affine_weight moves it to the
// waker's CPU only when that CPU is clearly less loaded) and, with probability
// WakePreempt, preempts the thread running there (check_preempt_wakeup): if
// the waker is on that CPU, as the waker's call returns, and the call costs a
// bare Syscall; on another CPU the waker sends it a reschedule interrupt,
// FutexWakeCall like a remote wake, and the wakee takes the CPU when the
// thread there returns from its system call, at once if that thread is in user
// mode (preemptUser), or first when it next leaves the CPU (it spins for a
// mutex or holds one). Otherwise the wakee waits in line and the call costs a
// Syscall. A thread woken by the runtime goes to an idle CPU if there is one,
// else waits on its last CPU.
func (g *GoRuntime) Wake(id, waker int32) int64 {
	m := g.m
	t := &g.gs[id]
	t.blocked = false
	c := -1
	if m.cores[t.cpu].cur < 0 {
		c = t.cpu
	} else if waker < 0 {
		c = g.idleCPU()
	}
	costs := m.cfg.Costs
	if c >= 0 {
		g.stats.RemoteWakes++
		t.cpu = c
		m.cores[c].cur = id
		m.e.After(m.jit(costs.FutexWake), g.kExit, id, m.threads[id].gen)
		return m.jit(costs.FutexWakeCall)
	}
	if waker < 0 {
		m.cores[t.cpu].runq = append(m.cores[t.cpu].runq, id)
		return 0
	}
	w := &g.gs[waker]
	if t.cpu != w.cpu {
		g.stats.RemoteWakes++
		oc := &m.cores[t.cpu]
		if m.e.Rand().Float64() >= costs.WakePreempt {
			oc.runq = append(oc.runq, id)
			return int64(costs.Syscall)
		}
		switch x := &g.gs[oc.cur]; {
		case x.inCall && x.preempt < 0:
			x.preempt = id
		case x.stepping && !g.holdsMutex(oc.cur):
			g.preemptUser(t.cpu, id)
		default:
			oc.runq = append([]int32{id}, oc.runq...)
		}
		return m.jit(costs.FutexWakeCall)
	}
	g.stats.LocalWakes++
	if m.e.Rand().Float64() < costs.WakePreempt {
		w.preempt = id
	} else {
		m.cores[w.cpu].runq = append(m.cores[w.cpu].runq, id)
	}
	return int64(costs.Syscall)
}

// preemptUser is the reschedule interrupt taking CPU c from the thread running
// in user mode there for thread id: the interrupted thread keeps its P, which
// stays running as Go sees it, and waits first in line with what was left of
// its work; id runs ContextSwitch later. Linux preempts user mode on the
// interrupt's return, as soon as the wakee is chosen to run. A thread holding
// a mutex is left running (see Lock).
func (g *GoRuntime) preemptUser(c int, id int32) {
	m := g.m
	oc := &m.cores[c]
	cur := oc.cur
	x := &g.gs[cur]
	m.threads[cur].gen++
	x.stepping = false
	x.remain = x.due - m.e.Now()
	x.resume = true
	oc.runq = append([]int32{cur}, oc.runq...)
	g.switchTo(c, id)
}

// switchTo puts thread id on CPU c, where it runs ContextSwitch later.
func (g *GoRuntime) switchTo(c int, id int32) {
	m := g.m
	m.cores[c].cur = id
	m.switches++
	g.stats.Switches++
	m.e.After(m.jit(m.cfg.Costs.ContextSwitch), g.kExit, id, m.threads[id].gen)
}

// idleCPU returns the first idle CPU, or -1.
func (g *GoRuntime) idleCPU() int {
	for c := range g.m.cores {
		if g.m.cores[c].cur < 0 {
			return c
		}
	}
	return -1
}

// leaveCPU gives up thread id's OS CPU (it blocks): see dispatch.
func (g *GoRuntime) leaveCPU(id int32) {
	g.m.threads[id].gen++
	c := g.gs[id].cpu
	g.m.cores[c].cur = -1
	g.dispatch(c)
}

// dispatch gives the idle CPU c to the first thread ready on it, which runs
// ContextSwitch later. With none c stays idle: a CPU going idle does not pull a
// thread ready on a busy one (Linux skips newidle balancing when a CPU's idle
// periods are short, as these are).
func (g *GoRuntime) dispatch(c int) {
	q := g.m.cores[c].runq
	if len(q) == 0 {
		return
	}
	next := q[0]
	g.m.cores[c].runq = q[1:]
	g.switchTo(c, next)
}

// exitsyscall is thread id on an OS CPU again. Preempted in user mode, it
// finishes its work on the P it kept; with a P handed to it, it goes on.
// Otherwise it is runtime.exitsyscall: it takes its old P back if that P is
// still its own or another thread sleeps in a system call with it
// (exitsyscallfast's oldp), else an idle P; with neither it goes on the
// global run queue and its thread sleeps until a P is handed to it
// (exitsyscall0 → stoplockedm).
func (g *GoRuntime) exitsyscall(_ int64, id int32, gen uint32) {
	if g.m.threads[id].gen != gen {
		return
	}
	t := &g.gs[id]
	if t.resume {
		t.resume = false
		g.Compute(id, t.remain)
		return
	}
	if t.handed {
		t.handed = false
		g.step(id)
		return
	}
	if lp := t.lastP; lp >= 0 && g.ps[lp].state == pSyscall {
		g.acquirep(id, lp)
		return
	}
	for p := range g.ps {
		if g.ps[p].state == pIdle {
			g.acquirep(id, p)
			return
		}
	}
	g.runq = append(g.runq, id)
	g.leaveCPU(id)
}

// acquirep gives P p to thread id, which continues its program at once.
func (g *GoRuntime) acquirep(id int32, p int) {
	g.setP(p, pRunning, id)
	g.gs[id].p = p
	g.Compute(id, 0)
}

// setP puts P p in state with thread, keeping its sched time.
func (g *GoRuntime) setP(p int, state pState, thread int32) {
	g.ps[p] = goP{state: state, thread: thread, since: g.m.e.Now(), sched: g.ps[p].sched}
}

// entersyscall moves thread id's P into a system call, remembering it as the
// thread's oldp.
func (g *GoRuntime) entersyscall(id int32) {
	t := &g.gs[id]
	t.lastP = t.p
	g.setP(t.p, pSyscall, id)
	t.p = -1
}

// Syscall is thread id making a system call of d ns that does not block (a
// FUTEX_WAKE, d from Wake): its P sits in the system call meanwhile
// (entersyscall), where a woken thread whose old P it is may take it, and on
// return the thread goes through exitsyscall like a woken one, keeping its OS
// CPU.
func (g *GoRuntime) Syscall(id int32, d int64) {
	g.entersyscall(id)
	g.m.threads[id].gen++
	g.gs[id].inCall = true
	g.m.syscalls++
	g.m.e.After(d, g.kSysRet, id, g.m.threads[id].gen)
}

// onSysRet is thread id's system call returning. If the call woke a thread
// onto this CPU, that thread preempts it here (the kernel reschedules on the
// way back to user space): id waits first in line on its CPU, still in its
// system call as Go sees it, and the wakee runs ContextSwitch later.
// Otherwise id goes on to exitsyscall.
func (g *GoRuntime) onSysRet(now int64, id int32, gen uint32) {
	if g.m.threads[id].gen != gen {
		return
	}
	t := &g.gs[id]
	t.inCall = false
	next := t.preempt
	if next < 0 {
		g.exitsyscall(now, id, gen)
		return
	}
	t.preempt = -1
	c := &g.m.cores[t.cpu]
	c.runq = append([]int32{id}, c.runq...)
	g.switchTo(t.cpu, next)
}

// Sleep is thread id entering FUTEX_WAIT to sleep until a Wake: its P stays
// with it, in a system call, until a woken thread takes it or sysmon retakes
// it.
func (g *GoRuntime) Sleep(id int32) {
	g.gs[id].blocked = true
	g.entersyscall(id)
	g.leaveCPU(id)
}

// Exit retires thread id: its goroutine exits, its P goes to the run queue's
// head (handoffp), and its thread leaves the CPU for good.
func (g *GoRuntime) Exit(id int32) {
	g.handoffp(g.gs[id].p)
	g.gs[id].p = -1
	g.leaveCPU(id)
}

// startlockedm is the locked thread of a queued goroutine woken with a P
// handed to it.
func (g *GoRuntime) startlockedm(_ int64, id int32, _ uint32) {
	g.gs[id].handed = true
	g.Wake(id, -1)
}

// sysmon is a round of runtime.sysmon: retake, then the next round after
// the sleep sysmon asks for (20 µs, doubled after 50 idle rounds up to 10 ms)
// plus the slack (SysmonTick − sysmonMin).
func (g *GoRuntime) sysmon(now int64, _ int32, _ uint32) {
	if g.retake(now) > 0 {
		g.sysmonIdle = 0
		g.sysmonDelay = int64(sysmonMin)
	} else {
		g.sysmonIdle++
		if g.sysmonIdle > 50 {
			g.sysmonDelay = min(2*g.sysmonDelay, int64(sysmonMax))
		}
	}
	g.m.e.After(g.sysmonDelay+g.sysmonSlack, g.kSysmon, 0, 0)
}

// retake is runtime.retake for Ps in system calls: a P that has been in the
// same system call since the previous round is retaken when no P is idle (or
// after syscallRetake) and handed off; one no goroutine switch has touched for
// forcePreempt is taken even from a new call (sysmon would preempt a goroutine
// that long on it, and cannot preempt one in a system call). It returns how
// many Ps it retook.
func (g *GoRuntime) retake(now int64) int {
	retook := 0
	for p := range g.ps {
		gp := &g.ps[p]
		if gp.state != pSyscall {
			continue
		}
		force := now-gp.sched >= int64(forcePreempt)
		if !gp.seen && !force {
			gp.seen = true
			continue
		}
		if g.idleP() && now-gp.since < int64(syscallRetake) {
			continue
		}
		retook++
		g.handoffp(p)
	}
	return retook
}

// handoffp: P p, taken from its thread, goes to the first queued thread, which
// runs ThreadHandoff later (the runtime starts an M that hands the P to the
// goroutine's locked thread: startlockedm), or is left idle (pidleput, its
// schedtick unmoved).
func (g *GoRuntime) handoffp(p int) {
	if len(g.runq) == 0 {
		g.ps[p] = goP{state: pIdle, sched: g.ps[p].sched}
		return
	}
	next := g.runq[0]
	g.runq = g.runq[1:]
	g.stats.Handoffs++
	g.ps[p] = goP{state: pRunning, thread: next, sched: g.m.e.Now()}
	g.gs[next].p = p
	g.m.e.After(g.m.jit(g.m.cfg.Costs.ThreadHandoff), g.kHanded, next, 0)
}

func (g *GoRuntime) idleP() bool {
	for _, p := range g.ps {
		if p.state == pIdle {
			return true
		}
	}
	return false
}

// Lock takes mutex mi (Machine.AddMutex) for thread id as a Go sync.Mutex in
// the regime of short critical sections: it reports whether id holds the
// mutex and goes on; false means id spins on its CPU, in arrival order, until
// Unlock hands the mutex to it and continues it MutexHandoff later (where
// sync.Mutex would park after a few spins). So that a waiter cannot spin
// forever on the CPU where the holder waits in line, a thread holding a mutex
// is not preempted in user mode (preemptUser), and neither is a spinner (it
// has no pending Compute). The mutex's Spin, WakeAll and the machine's
// SpinLoops do not apply.
func (g *GoRuntime) Lock(id, mi int32) bool {
	mu := &g.m.sy.mutexes[mi]
	if mu.holder < 0 {
		mu.holder = id
		mu.Acquisitions++
		return true
	}
	mu.spinners = append(mu.spinners, id)
	return false
}

// Unlock releases mutex mi, handing it to its first spinner, if any.
func (g *GoRuntime) Unlock(mi int32) {
	mu := &g.m.sy.mutexes[mi]
	if len(mu.spinners) == 0 {
		mu.holder = -1
		return
	}
	next := mu.spinners[0]
	mu.spinners = mu.spinners[1:]
	mu.holder = next
	mu.Acquisitions++
	mu.SpinAcquired++
	g.Compute(next, int64(g.m.cfg.Costs.MutexHandoff))
}

// holdsMutex reports whether thread id holds one of the machine's mutexes.
func (g *GoRuntime) holdsMutex(id int32) bool {
	for i := range g.m.sy.mutexes {
		if g.m.sy.mutexes[i].holder == id {
			return true
		}
	}
	return false
}
