package machine

import (
	"fmt"
	"slices"

	"github.com/innosim/innosim/prio"
)

// Scheduler selects the CPU scheduler model of a Machine.
type Scheduler uint8

const (
	// CFS is a model of Linux's Completely Fair Scheduler: the runnable thread
	// with the least virtual runtime runs next; virtual runtime grows at
	// 1024/weight per ns of CPU, the weight coming from the thread's nice value
	// (prio.WeightOfNice); a woken thread is placed at most half a scheduling
	// latency behind the minimum and preempts the running thread only if it is a
	// wakeup granularity ahead of it; slices are the latency shared among the
	// runnable threads of a core, never below the minimum granularity.
	CFS Scheduler = iota
	// TS is a model of Solaris's time-sharing class: dispatch priority is the
	// thread's CPU priority (0..59) plus its user priority (from the hint, as
	// prio.Hint.TSLevel), clamped to 0..59; the highest priority runs, FIFO within
	// a priority; a thread that uses up its quantum drops 10 levels (ts_tqexp),
	// one that returns from sleep rises to 50 or above (ts_slpret); a thread kept
	// runnable for more than a second is raised to 50 (ts_maxwait, ts_lwait). The
	// quantum is 20 ms at the top levels and grows to 200 ms at the bottom, as in
	// the default ts_dptbl(4).
	TS
)

// String returns "cfs" or "ts".
func (s Scheduler) String() string {
	switch s {
	case CFS:
		return "cfs"
	case TS:
		return "ts"
	}
	return fmt.Sprintf("scheduler(%d)", uint8(s))
}

// ParseScheduler parses "cfs" or "ts".
func ParseScheduler(s string) (Scheduler, error) {
	switch s {
	case "cfs", "linux":
		return CFS, nil
	case "ts", "solaris":
		return TS, nil
	}
	return 0, fmt.Errorf("sim: scheduler %q, want cfs or ts: %w", s, ErrInvalidConfig)
}

// CFS tunables, the kernel defaults for a machine of 8 or more CPUs
// (kernel/sched/fair.c: sysctl_sched_latency 6 ms × (1+log2 8) is capped at
// 24 ms; min granularity 0.75 ms × 4 = 3 ms; wakeup granularity 1 ms × 4).
const (
	cfsLatency    = 24_000_000
	cfsMinGran    = 3_000_000
	cfsWakeupGran = 4_000_000
	nice0Weight   = 1024
)

// TS dispatcher constants after Solaris's default ts_dptbl(4).
const (
	tsLevels     = 60
	tsMaxWait    = 1_000_000_000 // ts_maxwait: a second on the run queue
	tsLwait      = 50            // ts_lwait: the level a starved thread is raised to
	tsSleepFloor = 50            // ts_slpret for the lower levels
)

// tsQuantum is the time quantum of a TS level in ns: 200 ms at levels 0..9,
// 160, 120, 80, 40 ms, and 20 ms at 50..59.
func tsQuantum(level int) int64 {
	q := [...]int64{200, 160, 120, 80, 40, 20}
	return q[level/10] * 1_000_000
}

// tsSleepReturn is ts_slpret: the CPU priority after a return from sleep.
func tsSleepReturn(level int) int {
	return min(max(level+1, tsSleepFloor), tsLevels-1)
}

// tsQuantumExpired is ts_tqexp: the CPU priority after using a whole quantum.
func tsQuantumExpired(level int) int { return max(level-10, 0) }

// tsUpri is the user priority (ts_upri) of a hint: the offset prio.Hint.TSLevel
// applies to a thread at the entry level, so Query is +15 and Wait is -15.
func tsUpri(h prio.Hint) int { return h.TSLevel() - prio.Normal.TSLevel() }

// cfsWeight is the CFS load weight of a hint (prio.Hint.Weight: 1024 at nice 0).
func cfsWeight(h prio.Hint) int64 { return int64(h.Weight()) }

func (m *Machine) tsPrio(t *thread) int {
	p := min(max(t.cpupri+tsUpri(t.hint), 0), tsLevels-1)
	if t.state == stRunnable && m.e.Now()-t.enqAt > tsMaxWait && p < tsLwait {
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
	t.enqAt = m.e.Now()
	m.seq++
	if front {
		t.enqKey = -m.seq
	} else {
		t.enqKey = m.seq
	}
	m.runq = append(m.runq, id)
	if m.cfg.Scheduler == CFS {
		m.runqUp(len(m.runq) - 1)
	}
}

// bestRunnable returns the run queue's index of the thread that should run
// next (better than every other), or -1 when none is runnable. Under CFS the
// queue is a binary heap ordered by better, whose keys (vruntime, then the
// enqueue order) do not change while a thread is queued, so the best is at
// 0, as the leftmost entity of CFS's red-black tree; under TS a queued
// thread's priority rises with its wait (ts_maxwait), so the queue is
// scanned. The answer is the same either way: better is a total order.
func (m *Machine) bestRunnable() int {
	if len(m.runq) == 0 {
		return -1
	}
	if m.cfg.Scheduler == CFS {
		return 0
	}
	best := 0
	for i, id := range m.runq {
		if m.better(&m.threads[id], &m.threads[m.runq[best]]) {
			best = i
		}
	}
	return best
}

// takeRunnable removes the thread at index i of the run queue (an index
// bestRunnable returned) and returns its id.
func (m *Machine) takeRunnable(i int) int32 {
	id := m.runq[i]
	last := len(m.runq) - 1
	m.runq[i] = m.runq[last]
	m.runq = m.runq[:last]
	if m.cfg.Scheduler == CFS && i < last {
		m.runqDown(i)
		m.runqUp(i)
	}
	return id
}

// runqUp and runqDown restore the CFS heap's order around index i.
func (m *Machine) runqUp(i int) {
	q := m.runq
	for i > 0 {
		p := (i - 1) / 2
		if !m.better(&m.threads[q[i]], &m.threads[q[p]]) {
			return
		}
		q[i], q[p] = q[p], q[i]
		i = p
	}
}

func (m *Machine) runqDown(i int) {
	q := m.runq
	for {
		b, l := i, 2*i+1
		if l < len(q) && m.better(&m.threads[q[l]], &m.threads[q[b]]) {
			b = l
		}
		if r := l + 1; r < len(q) && m.better(&m.threads[q[r]], &m.threads[q[b]]) {
			b = r
		}
		if b == i {
			return
		}
		q[i], q[b] = q[b], q[i]
		i = b
	}
}

// account charges the time t ran since t.start.
func (m *Machine) account(t *thread) {
	el := m.e.Now() - t.start
	t.start = m.e.Now()
	if el <= 0 {
		return
	}
	s := min(el, t.rqSpin)
	t.rqSpin -= s
	m.acct[CatRunqueueSpin] += s
	h := min(el-s, t.rqHold)
	t.rqHold -= h
	m.acct[CatSys] += h
	c := min(el-s-h, t.cs)
	t.cs -= c
	m.acct[CatSwitch] += c
	w := min(el-s-h-c, t.rem)
	t.rem -= w
	m.acct[t.cat] += w
	m.ran(t, el)
}

// running returns the CPU time, by category, that the threads on a core
// have run since they were last charged (account, or a futex bucket's
// grant for a spinner): what account would charge them now, without
// charging it. The window's figures take it at both ends, so that a burst
// running across the window's start or end counts only its part inside.
func (m *Machine) running() (acct [NumCats]int64) {
	for id := range m.threads {
		t := &m.threads[id]
		if t.state != stRunning {
			continue
		}
		el := m.e.Now() - t.start
		if el <= 0 {
			continue
		}
		if t.sy.sys.op != fxNone && t.sy.sys.stage == fsHold && slices.Contains(m.sy.buckets[t.sy.sys.bucket].queue, int32(id)) {
			acct[CatFutexSpin] += el // spinning for the bucket since t.start
			continue
		}
		s := min(el, t.rqSpin)
		h := min(el-s, t.rqHold)
		c := min(el-s-h, t.cs)
		acct[CatRunqueueSpin] += s
		acct[CatSys] += h
		acct[CatSwitch] += c
		acct[t.cat] += min(el-s-h-c, t.rem)
	}
	return acct
}

func (m *Machine) ran(t *thread, el int64) {
	t.qleft -= el
	t.vr += el * nice0Weight / t.weight
}

// put runs thread id on core c, charging a context switch (switchCost).
func (m *Machine) put(id int32, c int) {
	t := &m.threads[id]
	t.state = stRunning
	t.core = int32(c)
	m.cores[c].cur = id
	t.last = int32(c)
	if m.rqOn() {
		m.rqSwitch(t, c)
	}
	t.cs = m.switchCost(t)
	m.switches++
	t.start = m.e.Now()
	if m.cfg.Scheduler == CFS {
		nr := int64(len(m.runq)/m.cfg.CPUs + 1)
		t.slEnd = m.e.Now() + max(cfsLatency/nr, cfsMinGran)
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
	if t.sy.sys.op != fxNone {
		// the kernel finishes a futex call before the quantum is looked at
	} else if m.cfg.Scheduler == TS {
		left = min(left, max(t.qleft, 0))
	} else {
		left = min(left, max(t.slEnd-m.e.Now(), 0))
	}
	m.e.At(m.e.Now()+t.rqSpin+t.rqHold+t.cs+left, m.evRun, id, t.gen)
}

// dispatch gives core c to the best runnable thread, or idles it.
func (m *Machine) dispatch(c int) {
	i := m.bestRunnable()
	if i < 0 {
		m.cores[c].cur = -1
		m.idle++
		return
	}
	id := m.takeRunnable(i)
	m.put(id, c)
}

// makeRunnable places a thread that just became runnable: on an idle core, by
// preempting a worse running thread (woken threads only), or on the run queue.
// A wake onto an idle core by a running thread goes through remoteWakeTo when
// SetRemoteWake is on; a sync wake (wakeSync) takes no idle core.
func (m *Machine) makeRunnable(id int32, wake bool) {
	if m.syncWake && wake {
		m.idleSkipped(id)
		return
	}
	if m.rqOn() && m.idle > 0 {
		if c := m.rqIdleCore(&m.threads[id]); c >= 0 {
			m.idle--
			if wake && m.remoteWake && m.waker >= 0 {
				m.rqWake(c)
				m.remoteWakeTo(id, c)
				return
			}
			if wake {
				m.rqPlace(id, c)
				return
			}
			m.put(id, c)
			return
		}
	}
	if m.idle > 0 {
		for c := range m.cores {
			if m.cores[c].cur < 0 {
				m.idle--
				if wake && m.remoteWake && m.waker >= 0 {
					m.remoteWakeTo(id, c)
					return
				}
				m.put(id, c)
				return
			}
		}
	}
	if wake {
		if c := m.victim(&m.threads[id]); c >= 0 {
			if m.rqOn() {
				m.rqWake(c) // ttwu_do_activate on the busy CPU c
			}
			m.preempt(c)
			m.put(id, c)
			return
		}
	}
	m.enqueue(id, false)
}

// idleSkipped places a thread a sync wake made runnable as if no core were
// idle: it preempts a worse running thread, else it waits on the run queue
// (for the waker's core, which its waker is about to leave).
func (m *Machine) idleSkipped(id int32) {
	if c := m.victim(&m.threads[id]); c >= 0 {
		if m.rqOn() {
			m.rqWake(c)
		}
		m.preempt(c)
		m.put(id, c)
		return
	}
	m.enqueue(id, false)
}

// victim returns the core whose running thread a woken thread t preempts, or -1.
// Threads inside a kernel futex operation are not preemptible.
func (m *Machine) victim(t *thread) int {
	best, bestKey := -1, int64(0)
	for c := range m.cores {
		if m.cores[c].waking || m.cores[c].cur < 0 {
			continue // its thread is not on it yet, or it is idle (a sync wake's)
		}
		r := &m.threads[m.cores[c].cur]
		if r.sy.sys.op != fxNone {
			continue
		}
		var key int64
		if m.cfg.Scheduler == TS {
			key = -int64(m.tsPrio(r))
		} else {
			key = r.vr + (m.e.Now()-r.start)*nice0Weight/r.weight
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
// A thread that a wake it made has just preempted (a sync wake's victim may
// be its waker, which then goes to sleep: a pool worker that readies a
// connection for its listener and finds nothing to do) leaves the run queue
// instead, as a task that blocks with need_resched set just sleeps.
func (m *Machine) block(t *thread) {
	if t.state == stRunnable {
		for i, id := range m.runq {
			if &m.threads[id] == t {
				m.takeRunnable(i)
				break
			}
		}
		t.state = stBlocked
		t.gen++
		t.core = -1
		return
	}
	c := int(t.core)
	t.state = stBlocked
	t.gen++
	t.core = -1
	m.cores[c].cur = -1
	m.dispatch(c)
}

// wake makes a blocked thread runnable. Every wake is a return from sleep for
// TS (ts_slpret raises its CPU priority); under CFS its virtual runtime is
// placed at most half a latency behind the minimum.
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

// sliceEnd handles an expired TS quantum or CFS slice.
func (m *Machine) sliceEnd(t *thread, id int32) {
	if t.sy.sys.op != fxNone {
		// inside a futex call (maybe holding a bucket spinlock): the kernel does
		// not preempt it; the slice ends when it returns to user mode
		if m.cfg.Scheduler == CFS {
			t.slEnd = m.e.Now() + cfsMinGran
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
		t.slEnd = m.e.Now() + cfsMinGran
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

// yield is the scheduler's part of sched_yield(2) for running thread t, whose
// system call has entered the kernel: it reports whether t keeps its core;
// false means t went to the run queue and the core to the thread that runs
// instead (a context switch, charged as always). What t gives way to is the
// scheduler's:
//
//   - CFS (yield_task_fair in kernel/sched/fair.c, 2.6.39 .. 6.5): with no
//     other runnable thread (rq->nr_running == 1) the call returns at once;
//     else t is marked the run queue's skip buddy and schedule() picks the
//     leftmost entity other than t, unless that one is more than a wakeup
//     granularity (scaled by t's weight) behind t (pick_next_entity's
//     wakeup_preempt_entity test), in which case t runs on.
//   - TS (ts_yield in Solaris's ts.c): setbackdq puts t at the back of its
//     priority's dispatch queue, and swtch runs the best runnable thread: a
//     thread of t's priority or above, else t again.
//
// The machine has one run queue for all its cores, so t gives way to any
// runnable thread, where the kernels' per-CPU queues would offer it only
// its own CPU's. Linux 2.6's O(1) scheduler before CFS (2.6.23) moved a
// yielding thread to the expired array instead, behind every runnable
// thread; with nothing else runnable it too returns at once. Nothing of
// schedule() beyond the system call's entry is charged when t keeps its core.
func (m *Machine) yield(t *thread, id int32) bool {
	i := m.bestRunnable()
	if i < 0 {
		return true
	}
	r := &m.threads[m.runq[i]]
	if m.cfg.Scheduler == TS {
		if m.tsPrio(r) < m.tsPrio(t) {
			return true
		}
	} else if r.vr-t.vr > cfsWakeupGran*nice0Weight/t.weight {
		return true
	}
	next := m.takeRunnable(i)
	c := int(t.core)
	t.gen++
	m.cores[c].cur = -1
	m.enqueue(id, false)
	m.put(next, c)
	return false
}

// SetRemoteWake turns on the cost of a wake that must bring another, idle CPU
// out of idle: Linux's try_to_wake_up (kernel/sched/core.c) picks the wakee's
// CPU with select_task_rq (select_idle_sibling prefers an idle CPU of the
// cache domain, so on a lightly loaded machine the wakee goes to the other,
// idle CPU even for a WF_SYNC socket wake), and ttwu_queue_wakelist queues it
// there and sends that CPU a reschedule interrupt, which on a virtual machine
// is a hypervisor exit on the waker and a halted virtual CPU to run again. A
// thread woken by a running thread onto an idle core then costs:
//
//   - the waker CostProfile.FutexWakeCall − Syscall more CPU (its system call's
//     entry is charged already), added before its next burst; a waker that
//     blocks before it runs again is not charged it;
//   - the wakee FutexWake − ContextSwitch of delay before it runs on that core
//     (FutexWake runs from the call's start to the wakee running; its switch
//     in is charged as always), during which the core is idle but taken.
//
// A wake by a timer or a device (no running waker: the interrupt is on the
// CPU it wakes) and a wake onto a busy core (the run queue, or preempting) cost
// nothing more. Both costs are drawn with Engine.Jitter. Off by default: the
// four studies' machines were chosen without it, and OldKernel and NewKernel
// carry FutexWakeCall and FutexWake for the Go runtime layer only. innosim
// calibrate measures both on this machine (its "futex wake call" and "futex
// remote wake").
func (m *Machine) SetRemoteWake(on bool) {
	if on && !m.remoteWake && m.evPut == 0 {
		m.evPut = m.e.On(m.onPut)
	}
	m.remoteWake = on
}

// onRunAs handles a run event of thread id with id as the machine's waker:
// a thread it wakes meanwhile is woken from id's CPU.
func (m *Machine) onRunAs(now int64, id int32, gen uint32) {
	m.waker = id
	m.onRun(now, id, gen)
	m.waker = -1
}

// remoteWakeTo takes idle core c for woken thread id and runs it there after
// the interrupt's delay, charging the waker its wake call (see SetRemoteWake).
func (m *Machine) remoteWakeTo(id int32, c int) {
	p := m.cfg.Costs
	if w := &m.threads[m.waker]; w.state == stRunning {
		w.cs += m.jit(max(p.FutexWakeCall-p.Syscall, 0))
	}
	t := &m.threads[id]
	t.state = stRunnable
	t.core = int32(c)
	m.cores[c].cur = id
	m.cores[c].waking = true
	m.e.At(m.e.Now()+m.jit(max(p.FutexWake-p.ContextSwitch, 0)), m.evPut, id, t.gen)
}

// onPut runs a remotely woken thread on the core it was given.
func (m *Machine) onPut(now int64, id int32, gen uint32) {
	t := &m.threads[id]
	if t.gen != gen || t.state != stRunnable || t.core < 0 || !m.cores[t.core].waking {
		return
	}
	c := int(t.core)
	m.cores[c].waking = false
	m.put(id, c)
}

// switchCost is the ns of a switch to t: CostProfile.SwitchCost of the
// machine's threads when no thread has a footprint of its own, else
// SwitchCostOf t's footprint (the profile's SwitchFootprint and t.foot)
// after all the other threads' footprints.
func (m *Machine) switchCost(t *thread) int64 {
	n := len(m.threads)
	if n != m.csThreads || m.footSum != m.csFootSum {
		m.csThreads, m.csFootSum, m.csFoot = n, m.footSum, m.csFoot[:0]
		m.csCost = int64(m.cfg.Costs.SwitchCost(n))
	}
	if m.footSum == 0 {
		return m.csCost
	}
	for _, f := range m.csFoot {
		if f.foot == t.foot {
			return f.cost
		}
	}
	w := m.cfg.Costs.SwitchFootprint
	own := w + t.foot
	others := int64(n)*w + m.footSum - own
	c := int64(m.cfg.Costs.SwitchCostOf(own, others))
	m.csFoot = append(m.csFoot, footCost{t.foot, c})
	return c
}
