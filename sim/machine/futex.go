package machine

// futexOp is what a futex system call does once it holds its hash bucket's
// spinlock.
type futexOp uint8

const (
	fxNone      futexOp = iota // no futex call in progress
	fxWaitMutex                // FUTEX_WAIT on a mutex's word: sleep unless it was released meanwhile
	fxWakeMutex                // FUTEX_WAKE of a mutex's waiters (one, or all for WakeAll)
	fxWakeChain                // lwp_unpark of the next waiter of a mutex's broadcast chain
	fxWait                     // FUTEX_WAIT on a mechanism's word (Machine.FutexWait)
	fxWake                     // FUTEX_WAKE of a mechanism's word (Machine.FutexWake)
)

// A Futex is a mechanism's futex word (a thread's private word, an event):
// the machine charges a call on it (the system call's entry, the hash
// bucket's spinlock, its hold) and asks the Futex what the call finds once it
// holds the bucket.
type Futex interface {
	// FutexWait is a FUTEX_WAIT of thread id on word arg with the bucket
	// held: it reports whether the thread sleeps (the word's value check
	// passed: nothing it waits for happened since it decided to wait). The
	// machine then blocks it; the Futex keeps it to wake.
	FutexWait(id, arg int32) bool
	// FutexWake is a FUTEX_WAKE of word arg with the bucket held: it makes
	// the word's waiters runnable (Machine.Wake).
	FutexWake(arg int32)
}

// FutexWait starts a FUTEX_WAIT of running thread id on word arg of f,
// through hash bucket b (Machine.AddBucket); its Stepper is called again
// when the call returns without sleeping or when f's waker wakes it.
func (m *Machine) FutexWait(id int32, f Futex, arg, b int32) {
	m.sy.startFutex(&m.threads[id], id, fxWait, arg, b)
	m.threads[id].sy.sys.f = f
}

// FutexWake starts a FUTEX_WAKE by running thread id of word arg of f,
// through hash bucket b; its Stepper is called again when the call returns.
// The caller is not preemptible inside the call, and is preempted on its
// return if a thread it woke has the better claim to its core.
func (m *Machine) FutexWake(id int32, f Futex, arg, b int32) {
	m.sy.startFutex(&m.threads[id], id, fxWake, arg, b)
	m.threads[id].sy.sys.f = f
}

// preemptedAtReturn takes running thread t off its core, to the front of the
// run queue, when a runnable thread would have preempted it on waking (see
// victim), and gives the core to the best runnable thread; t resumes at its
// next op. It reports whether t was preempted.
func (m *Machine) preemptedAtReturn(t *thread) bool {
	q := &m.sets[t.set]
	i := m.bestRunnable(q)
	if i < 0 {
		return false
	}
	r := &m.threads[i]
	switch m.cfg.Scheduler {
	case TS:
		if m.tsPrio(r) <= m.tsPrio(t) {
			return false
		}
	case CFS:
		if t.vr-r.vr <= m.wakeupGran(r) {
			return false
		}
	case EEVDF:
		return false // RUN_TO_PARITY: no wake preempts inside a slice
	}
	c := int(t.core)
	m.wakePreempt(c)
	m.dispatch(c)
	return true
}

// wakes reports whether op wakes other threads (and never blocks the caller).
func (op futexOp) wakes() bool {
	switch op {
	case fxWakeMutex, fxWakeChain, fxWake:
		return true
	}
	return false
}

// futexStage is how far a futex call has got: entering the kernel (the
// Syscall cost), then holding the bucket's spinlock (after spinning for it if
// another call held it).
type futexStage uint8

const (
	fsEnter futexStage = iota // in the system-call entry; the bucket lock comes next
	fsHold                    // holding (or queued spinning for) the bucket lock
)

// futexCall is a thread's futex system call in progress: what it does, on
// what (a mutex, a segment or a thread, by op) and through which bucket.
type futexCall struct {
	op     futexOp
	stage  futexStage
	arg    int32
	bucket int32
	f      Futex // the word's mechanism (fxWait, fxWake)
}

type bucket struct {
	busy  bool
	queue []int32
	mutex int32 // the mutex whose futex word hashes here, or -1
}

// startFutex starts a futex system call on bucket b: the system-call entry, then the
// bucket's spinlock (spinning, on the core and not preemptible, while another
// thread holds it), then the hold, then the operation op (wait: block; wake:
// make waiters runnable). Its hold time grows with the threads spinning for
// the bucket and, for a wake-all, with the waiters it wakes (holdTime), so a
// herd costs more than its parts.
func (r *syncRoom) startFutex(t *thread, id int32, op futexOp, arg int32, b int32) {
	m := r.m
	t.sy.sys = futexCall{op: op, arg: arg, bucket: b}
	m.syscalls++
	m.runBurst(t, id, int64(m.cfg.Costs.Syscall), CatSys)
}

// holdTime is how long a futex call of t holds bucket b's spinlock: the base
// hold FutexHold, grown by FutexGrowth (one cache-line transfer's worth) for
// every other thread spinning for the lock, whose ticket the release must
// pass through (Boyd-Wickizer et al. 2012), and by what the call walks under
// the lock, which depends on its kind (kernel/futex/waitwake.c):
//
//   - a wait links one entry into the chain: futex_wait's futex_queue is a
//     plist_add among equal priorities, so it does not grow with the waiters
//     already queued;
//   - a wake of one stops at the first match of the chain (futex_wake walks
//     under hb->lock until nr_wake waiters are marked), so it does not grow
//     either;
//   - a wake of all marks every waiter (futex_wake_mark unlinks each futex_q,
//     a line last written on the waiter's core): FutexGrowth more for each
//     waiter woken beyond the first. The wake_up_q that makes them runnable
//     runs after the lock is dropped.
//
// CostProfile.FutexWalk (w, 0 by default) is a fitted stand-in kept for study
// A's machine: w × FutexGrowth per thread waiting on the mutex on every call
// of a mutex's futex, and (1-w) × the per-kind growth above.
func (r *syncRoom) holdTime(t *thread, b *bucket) int64 {
	m := r.m
	c := m.cfg.Costs
	n := float64(len(b.queue))
	if w := c.FutexWalk; w > 0 && b.mutex >= 0 {
		n += w * float64(len(r.mutexes[b.mutex].waiters))
	}
	if t.sy.sys.op == fxWakeMutex {
		if mu := &r.mutexes[t.sy.sys.arg]; mu.WakeAll && len(mu.waiters) > 1 {
			n += (1 - c.FutexWalk) * float64(len(mu.waiters)-1)
		}
	}
	return int64(float64(c.FutexHold) * (1 + c.FutexGrowth*n))
}

// kernelStep continues a futex operation whose current burst ended.
func (r *syncRoom) kernelStep(t *thread, id int32) {
	m := r.m
	bk := &r.buckets[t.sy.sys.bucket]
	switch t.sy.sys.stage {
	case fsEnter: // entered the kernel: take the bucket lock
		t.sy.sys.stage = fsHold
		if bk.busy {
			bk.queue = append(bk.queue, id)
			t.start = m.e.Now() // spinning from now; charged when granted
			return
		}
		bk.busy = true
		m.runBurst(t, id, r.holdTime(t, bk), CatFutexHold)
		return
	case fsHold: // held and done: release, grant the next spinner, finish the operation
		if len(bk.queue) > 0 {
			n := bk.queue[0]
			copy(bk.queue, bk.queue[1:])
			bk.queue = bk.queue[:len(bk.queue)-1]
			nt := &m.threads[n]
			spun := m.e.Now() - nt.start
			m.acct[nt.set][CatFutexSpin] += spun
			m.ran(nt, spun)
			m.runBurst(nt, n, r.holdTime(nt, bk), CatFutexHold)
		} else {
			bk.busy = false
		}
	}
	op, arg, f := t.sy.sys.op, t.sy.sys.arg, t.sy.sys.f
	if !op.wakes() {
		t.sy.sys.op = fxNone // a wait may block: out of the kernel's path first
	}
	// A wake leaves t.sy.sys.op set until it is done: the waker is still in
	// its system call and cannot be taken off its core there, so a woken
	// thread preempts another core or queues. If it queued with a better
	// claim than the waker, the waker yields its core when the call returns
	// to user mode (Linux's check_preempt_curr sets the waker's
	// TIF_NEED_RESCHED; Solaris's cpu_surrender sets cpu_runrun, both acted
	// on at the return), never in the middle of it.
	switch op {
	case fxWaitMutex:
		mu := &r.mutexes[arg]
		if mu.holder < 0 {
			break // released meanwhile: retry at once (the lock word check in futex_wait)
		}
		if r.inArray(mu) && t.sy.sig != mu.signals {
			break // signalled since the cell was reserved: os_event_wait_low returns at once
		}
		mu.Waits++
		mu.waiters = append(mu.waiters, id)
		m.block(t)
		return
	case fxWakeMutex:
		mu := &r.mutexes[arg]
		r.wakeWaiters(mu)
		if r.inArray(mu) && !mu.WakeAll && len(mu.waiters) > 0 {
			// a wake of one leaves the others asleep: keep the waiters flag,
			// or no later release would signal them
			mu.flag = true
		}
	case fxWakeChain:
		r.passChain(&r.mutexes[arg])
	case fxWait:
		if f.FutexWait(id, arg) {
			m.block(t)
			return
		}
	case fxWake:
		f.FutexWake(arg)
	}
	t.sy.sys.op = fxNone
	if op.wakes() && m.preemptedAtReturn(t) {
		return
	}
	m.advance(t, id)
}

// wakeWaiters is the work of a futex wake of mu's waiters once the bucket lock
// is held: every waiter for WakeAll, else the first. Under
// Config.BroadcastChain a wake-all wakes the first waiter and moves
// the others to mu's chain, which each woken one passes on (Mutex's doc).
func (r *syncRoom) wakeWaiters(mu *Mutex) {
	m := r.m
	n := len(mu.waiters)
	if n == 0 {
		return
	}
	if !mu.WakeAll {
		n = 1
	} else if m.cfg.BroadcastChain {
		mu.chain = append(mu.chain, mu.waiters[1:]...)
		w := mu.waiters[0]
		mu.waiters = mu.waiters[:0]
		m.threads[w].sy.chain = true
		m.wake(w)
		return
	}
	// wake from a scratch copy: a woken thread may queue on this mutex again
	r.scratch = append(r.scratch[:0], mu.waiters[:n]...)
	mu.waiters = append(mu.waiters[:0], mu.waiters[n:]...)
	for _, w := range r.scratch {
		m.wake(w)
	}
}

// passChain wakes the next thread of mu's broadcast chain, if any: the
// __lwp_unpark that Solaris libc's mutex_unlock makes for the next waiter of
// the event's os_mutex.
func (r *syncRoom) passChain(mu *Mutex) {
	m := r.m
	if len(mu.chain) == 0 {
		return
	}
	w := mu.chain[0]
	mu.chain = append(mu.chain[:0], mu.chain[1:]...)
	m.threads[w].sy.chain = true
	m.wake(w)
}
