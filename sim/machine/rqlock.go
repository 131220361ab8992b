package machine

// The run-queue lock (rq->lock, a raw spinlock per CPU in kernel/sched/core.c
// of Linux 4.x and 5.x up to 5.7) as the scheduler takes it, charged when
// CostProfile.RunqueueHold is not zero (off otherwise: nothing below runs):
//
//   - a wake (try_to_wake_up → ttwu_queue) of a thread onto CPU c from a
//     running thread on a CPU that shares c's cache (here: c's socket) takes
//     c's lock for ttwu_do_activate (enqueue_task, check_preempt_curr); the
//     waker spins while another CPU holds it, then holds it for RunqueueHold
//     plus the lock line's transfer from the CPU that wrote it last. A wake
//     onto a CPU of the other socket is queued on that CPU's wake list
//     instead (ttwu_queue_remote, TTWU_QUEUE: !cpus_share_cache), and c
//     takes its own lock when it runs the list (sched_ttwu_pending), which
//     is the switch below. 5.8's ttwu_queue_wakelist also queues a wake onto
//     an idle CPU of the same cache; that kernel is not modelled;
//   - a switch onto CPU c (__schedule: rq_lock before pick_next_task) takes
//     c's lock; the incoming thread spins while another CPU holds it (a
//     waker's ttwu on c), then holds it RunqueueHold (plus the line if a
//     waker wrote it last). The switch's own work stays in ContextSwitch.
//   - newidle balancing (idle_balance in 4.x fair.c, newidle_balance in 5.x)
//     pulls from the busiest rq under its lock only when the root domain is
//     overloaded (rd->overload: some rq has a second runnable thread). The
//     machine keeps one run queue for all CPUs, so a CPU goes idle only when
//     no thread is runnable anywhere: rd->overload is clear and idle_balance
//     returns before load_balance takes any lock. It is not charged.
//
// With the lock on, a woken thread goes to the CPU it last ran on if that is
// idle (select_task_rq_fair → select_idle_sibling returns an idle target at
// once), else to the first idle CPU, as without the lock. A thread woken onto
// an idle CPU of the waker's socket runs there once the waker has released
// that CPU's lock (its enqueue is done), the CPU idle meanwhile. Time spent
// spinning is CatRunqueueSpin (Result.RawSpinShare counts it with the futex
// bucket's spin: both are raw_spin_lock in a profile); time holding is
// kernel work (CatSys). A wake by a timer or a device (no running waker)
// and a wake onto the machine's run queue take no lock here.

// rqOn reports whether the machine charges the run-queue lock.
func (m *Machine) rqOn() bool { return m.cfg.Costs.RunqueueHold > 0 }

// rqAcquire takes core c's run-queue lock for thread t, running on core
// from, at time at: it returns the spin (while another CPU holds the lock)
// and the hold (RunqueueHold plus the lock line's transfer), and marks the
// lock held until at + spin + hold.
func (m *Machine) rqAcquire(from int32, c int, at int64) (spin, hold int64) {
	r := &m.cores[c]
	spin = max(r.rqFree-at, 0)
	hold = int64(m.cfg.Costs.RunqueueHold) + m.transfer(r.rqLine, from)
	r.rqFree = at + spin + hold
	r.rqLine = from
	return spin, hold
}

// rqWake charges the running waker (m.waker) the lock of core c for a wake
// onto it (ttwu_queue → ttwu_do_activate) and returns when the lock is free
// again (the wakee is enqueued), or -1 when the wake takes no lock of c:
// no running waker, or c on another socket (the wake list).
func (m *Machine) rqWake(c int) int64 {
	if m.waker < 0 {
		return -1
	}
	w := &m.threads[m.waker]
	if w.state != stRunning || m.socket(w.core) != m.socket(int32(c)) {
		return -1
	}
	// the waker's earlier wakes of this call come first (wake_up_q is a loop)
	at := m.e.Now() + w.cs + w.rqSpin + w.rqHold
	spin, hold := m.rqAcquire(w.core, c, at)
	w.rqSpin += spin
	w.rqHold += hold
	return at + spin + hold
}

// rqSwitch charges thread t, being switched onto core c, c's lock for
// __schedule.
func (m *Machine) rqSwitch(t *thread, c int) {
	spin, hold := m.rqAcquire(int32(c), c, m.e.Now()+t.rqSpin+t.rqHold)
	t.rqSpin += spin
	t.rqHold += hold
}

// rqIdleCore returns the idle core of its set a woken thread t goes to with
// the lock on: the one it last ran on if idle, else the first idle one; -1
// if none.
func (m *Machine) rqIdleCore(t *thread) int {
	if l := t.last; l >= 0 && m.cores[l].cur < 0 {
		return int(l)
	}
	q := &m.sets[t.set]
	for c := q.lo; c < q.hi; c++ {
		if m.cores[c].cur < 0 {
			return c
		}
	}
	return -1
}

// rqPlace puts woken thread id on idle core c, which the caller has taken
// off m.idle: at once, or, when the waker's enqueue on c ends later, then
// (the core idle and reserved meanwhile, as remoteWakeTo does).
func (m *Machine) rqPlace(id int32, c int) {
	ready := m.rqWake(c)
	if ready <= m.e.Now() {
		m.put(id, c)
		return
	}
	t := &m.threads[id]
	t.state = stRunnable
	t.core = int32(c)
	m.cores[c].cur = id
	m.cores[c].waking = true
	m.e.At(ready, m.evPut, id, t.gen)
}
