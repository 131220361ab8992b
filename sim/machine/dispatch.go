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
