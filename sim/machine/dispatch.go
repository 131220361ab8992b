package machine

import "slices"

// account charges the time t ran since t.start.
func (m *Machine) account(t *thread) {
	el := m.e.Now() - t.start
	t.start = m.e.Now()
	if el <= 0 {
		return
	}
	s := min(el, t.rqSpin)
	t.rqSpin -= s
	acct := &m.acct[t.set]
	acct[CatRunqueueSpin] += s
	h := min(el-s, t.rqHold)
	t.rqHold -= h
	acct[CatSys] += h
	c := min(el-s-h, t.cs)
	t.cs -= c
	acct[CatSwitch] += c
	w := min(el-s-h-c, t.rem)
	t.rem -= w
	acct[t.cat] += w
	m.ran(t, el)
}

// running returns the CPU time, by category, that the threads on a core
// have run since they were last charged (account, or a futex bucket's
// grant for a spinner): what account would charge them now, without
// charging it. The window's figures take it at both ends, so that a burst
// running across the window's start or end counts only its part inside.
func (m *Machine) running() (acct [numCoreSets][NumCats]int64) {
	for c := range m.cores {
		id := m.cores[c].cur
		if id < 0 || m.gort != nil {
			continue // idle, or a core of the Go runtime layer, whose threads are its own
		}
		t := &m.threads[id]
		if t.state != stRunning {
			continue // on its way to the core (remoteWakeTo)
		}
		el := m.e.Now() - t.start
		if el <= 0 {
			continue
		}
		a := &acct[t.set]
		if t.sy.sys.op != fxNone && t.sy.sys.stage == fsHold && slices.Contains(m.sy.buckets[t.sy.sys.bucket].queue, id) {
			a[CatFutexSpin] += el // spinning for the bucket since t.start
			continue
		}
		s := min(el, t.rqSpin)
		h := min(el-s, t.rqHold)
		c := min(el-s-h, t.cs)
		a[CatRunqueueSpin] += s
		a[CatSys] += h
		a[CatSwitch] += c
		a[t.cat] += min(el-s-h-c, t.rem)
	}
	return acct
}

func (m *Machine) ran(t *thread, el int64) {
	t.qleft -= el
	t.vr += el * nice0Weight / t.weight
}

// put runs thread id on core c, charging a context switch (switchCost),
// with a slice of the fair class: CFS's sched_slice of a core with the
// set's runnable threads shared among its cores (__sched_period: Latency
// up to NrLatency threads, then MinGranularity each), EEVDF's base slice.
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
	q := &m.sets[t.set]
	switch m.cfg.Scheduler {
	case CFS:
		nr := int64(q.rq.n/q.cpus() + 1)
		t.slEnd = m.e.Now() + max(int64(m.fair.Latency)/nr, int64(m.fair.MinGranularity))
		if t.vr < q.minVr {
			// never let a long sleeper bank more than its credit
			t.vr = max(t.vr, q.minVr-int64(m.fair.SleeperCredit))
		}
		q.minVr = max(q.minVr, t.vr)
	case EEVDF:
		t.slEnd = m.e.Now() + int64(m.fair.BaseSlice)
		q.minVr = max(q.minVr, t.vr)
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

// dispatch gives core c to the best runnable thread of its set, or idles
// it. Under CFS the core's last buddy, a thread a wake preempted there, goes
// first unless it is more than a wakeup granularity behind the leftmost
// (pick_next_entity: wakeup_preempt_entity(last, left) < 1); whoever is
// picked is no buddy any more (clear_buddies).
func (m *Machine) dispatch(c int) {
	q := m.setOf(c)
	i := m.bestRunnable(q)
	if i < 0 {
		m.cores[c].cur = -1
		q.idle++
		return
	}
	if b := m.cores[c].last; b >= 0 && m.cfg.Scheduler == CFS {
		bt := &m.threads[b]
		if left := &m.threads[i]; bt.vr-left.vr <= m.wakeupGran(left) {
			i = b
		}
	}
	id := m.takeRunnable(q, i)
	m.put(id, c)
}

// makeRunnable places a thread that just became runnable: on an idle core of
// its set, by preempting a worse running thread (woken threads only), or on
// its set's run queue. A wake onto an idle core by a running thread goes
// through remoteWakeTo when SetRemoteWake is on; a sync wake (wakeSync) by
// a running thread of the same set takes no idle core (one from an event,
// a packet from the network, has no waker to stay beside).
func (m *Machine) makeRunnable(id int32, wake bool) {
	t := &m.threads[id]
	q := &m.sets[t.set]
	if m.syncWake && wake && m.waker >= 0 && m.threads[m.waker].set == t.set {
		m.idleSkipped(id)
		return
	}
	if m.rqOn() && q.idle > 0 {
		if c := m.rqIdleCore(t); c >= 0 {
			q.idle--
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
	if q.idle > 0 {
		for c := q.lo; c < q.hi; c++ {
			if m.cores[c].cur < 0 {
				q.idle--
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
		if c := m.victim(t); c >= 0 {
			if m.rqOn() {
				m.rqWake(c) // ttwu_do_activate on the busy CPU c
			}
			m.wakePreempt(c)
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
		m.wakePreempt(c)
		m.put(id, c)
		return
	}
	m.enqueue(id, false)
}

// victim returns the core of t's set whose running thread a woken thread t
// preempts, or -1. Threads inside a kernel futex operation are not
// preemptible. Under EEVDF a running thread is not preempted by a wake
// before it has used its slice (RUN_TO_PARITY), and a slice's end is
// sliceEnd's: no wake preempts.
func (m *Machine) victim(t *thread) int {
	if m.cfg.Scheduler == EEVDF {
		return -1
	}
	q := &m.sets[t.set]
	best, bestKey := -1, int64(0)
	for c := q.lo; c < q.hi; c++ {
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
			key = r.vr + m.vruntimeOf(m.e.Now()-r.start, r.weight)
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
	if bestKey-t.vr > m.wakeupGran(t) {
		return best
	}
	return -1
}

// wakePreempt takes core c's thread off the core for a thread a wake made
// runnable (check_preempt_wakeup → resched_curr). Under CFS, when the core
// had NrLatency runnable threads or more (sched_nr_latency: the set's
// runnable and running threads, and the woken one, over its cores), the
// preempted thread becomes the core's last buddy (LAST_BUDDY, on by
// default from 2.6.30 to 6.5).
func (m *Machine) wakePreempt(c int) {
	id := m.cores[c].cur
	m.preempt(c)
	if m.cfg.Scheduler != CFS {
		return
	}
	q := m.setOf(c)
	if q.rq.n+q.busy()+1 < m.fair.NrLatency*q.cpus() {
		return
	}
	if old := m.cores[c].last; old >= 0 {
		m.threads[old].buddyOf = -1
	}
	t := &m.threads[id]
	if t.buddyOf >= 0 {
		m.cores[t.buddyOf].last = -1
	}
	m.cores[c].last, t.buddyOf = id, int32(c)
}

// preempt takes core c's thread off the core; it goes to the front of the queue
// under TS (setfrontdq: it keeps its quantum), to its vruntime's place under
// CFS and EEVDF.
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
// instead, as a task that blocks with need_resched set just sleeps. Under
// EEVDF the thread keeps its lag for its wake (PLACE_LAG).
func (m *Machine) block(t *thread) {
	q := &m.sets[t.set]
	if m.cfg.Scheduler == EEVDF {
		// update_entity_lag: bounded by max(2 slices, a tick)
		limit := 2 * int64(m.fair.BaseSlice)
		t.lag = min(max(q.minVr-t.vr, -limit), limit)
	}
	if t.state == stRunnable {
		if t.qi >= 0 {
			m.dequeue(q, t)
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
// placed at most the sleeper credit behind the set's least, under EEVDF at
// the lag it went to sleep with.
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
	q := &m.sets[t.set]
	switch m.cfg.Scheduler {
	case CFS:
		t.vr = max(t.vr, q.minVr-int64(m.fair.SleeperCredit))
	case EEVDF:
		t.vr = q.minVr - t.lag
	}
	m.makeRunnable(id, true)
}

func (m *Machine) onWake(now int64, a int32, gen uint32) {
	if m.threads[a].gen == gen {
		m.wake(a)
	}
}

// sliceEnd handles an expired TS quantum or fair-class slice.
func (m *Machine) sliceEnd(t *thread, id int32) {
	if t.sy.sys.op != fxNone {
		// inside a futex call (maybe holding a bucket spinlock): the kernel does
		// not preempt it; the slice ends when it returns to user mode
		if m.cfg.Scheduler.fair() {
			t.slEnd = m.e.Now() + m.minSlice()
		}
		m.schedule(t, id)
		return
	}
	q := &m.sets[t.set]
	if m.cfg.Scheduler == TS {
		if t.qleft <= 0 {
			t.cpupri = tsQuantumExpired(t.cpupri)
			t.qleft = tsQuantum(t.cpupri)
		}
		if i := m.bestRunnable(q); i >= 0 && m.tsPrio(&m.threads[i]) >= m.tsPrio(t) {
			m.requeue(t, id)
			return
		}
	} else {
		if i := m.bestRunnable(q); i >= 0 && m.threads[i].vr < t.vr {
			m.requeue(t, id)
			return
		}
		t.slEnd = m.e.Now() + m.minSlice()
	}
	m.schedule(t, id)
}

// minSlice is the fair class's least slice: CFS's minimum granularity,
// EEVDF's base slice.
func (m *Machine) minSlice() int64 {
	if m.cfg.Scheduler == EEVDF {
		return int64(m.fair.BaseSlice)
	}
	return int64(m.fair.MinGranularity)
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
//   - EEVDF (yield_task_fair from 6.6): t's deadline moves a slice later,
//     and schedule() picks the runnable thread of earliest deadline: any
//     other runnable thread.
//   - TS (ts_yield in Solaris's ts.c): setbackdq puts t at the back of its
//     priority's dispatch queue, and swtch runs the best runnable thread: a
//     thread of t's priority or above, else t again.
//
// The machine has one run queue for each set of cores, so t gives way to
// any runnable thread of its set, where the kernels' per-CPU queues would
// offer it only its own CPU's. Linux 2.6's O(1) scheduler before CFS
// (2.6.23) moved a yielding thread to the expired array instead, behind
// every runnable thread; with nothing else runnable it too returns at once.
// Nothing of schedule() beyond the system call's entry is charged when t
// keeps its core.
func (m *Machine) yield(t *thread, id int32) bool {
	q := &m.sets[t.set]
	i := m.bestRunnable(q)
	if i < 0 {
		return true
	}
	r := &m.threads[i]
	switch m.cfg.Scheduler {
	case TS:
		if m.tsPrio(r) < m.tsPrio(t) {
			return true
		}
	case CFS:
		if r.vr-t.vr > m.wakeupGran(t) {
			return true
		}
	}
	next := m.takeRunnable(q, i)
	c := int(t.core)
	t.gen++
	m.cores[c].cur = -1
	m.enqueue(id, false)
	m.put(next, c)
	return false
}
