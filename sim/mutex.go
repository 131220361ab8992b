package sim

// Phases of OpLock.
const (
	lkTry     = 0
	lkSpin    = 1
	lkWaiting = 2
	lkGranted = 3
)

// lock runs OpLock for mutex mi; it reports whether t must stop (spinning,
// waiting); false means t holds the mutex and goes on.
//
// The model of an InnoDB mutex (mutex_enter → mutex_spin_wait in sync0sync.cc,
// MySQL 5.0..5.7): try the lock word; if taken, spin innodb_sync_spin_loops
// rounds re-checking it (one burst of CPU here; a release during the burst hands
// the mutex to the first spinner at once, as the spinner's next test-and-set would
// win); if still taken, reserve a wait cell and sleep on the mutex's event (a futex
// wait through its hash bucket). A woken waiter starts over from the try, so a
// thread that arrives meanwhile may take the mutex first.
func (m *Machine) lock(t *thread, id int32, mi int32) bool {
	mu := &m.mutexes[mi]
	for {
		switch t.phase {
		case lkTry:
			if mu.holder < 0 {
				mu.holder = id
				mu.Acquisitions++
				return false
			}
			if mu.Spin && m.cfg.SpinLoops > 0 {
				t.phase = lkSpin
				mu.spinners = append(mu.spinners, id)
				spin := int64(m.cfg.SpinLoops) * m.jit(m.cfg.Costs.SpinRound)
				m.runBurst(t, id, spin, catMutexSpin)
				return true
			}
			t.phase = lkWaiting
			m.futexOp(t, id, kWaitMutex, mi, mu.bucket)
			return true
		case lkSpin: // spun out without the lock
			mu.spinners = remove(mu.spinners, id)
			t.phase = lkWaiting
			m.futexOp(t, id, kWaitMutex, mi, mu.bucket)
			return true
		case lkWaiting: // woken, or found it free on the way to sleep: retry
			t.phase = lkTry
		case lkGranted:
			return false
		}
	}
}

// unlock runs OpUnlock; it reports whether t must stop (its futex wake is in
// progress).
func (m *Machine) unlock(t *thread, id int32, mi int32) bool {
	mu := &m.mutexes[mi]
	if t.phase == 1 {
		return false // the wake is done
	}
	mu.holder = -1
	if s := m.pickSpinner(mu); s >= 0 {
		m.grantSpinner(mu, mi, s)
		return false
	}
	if len(mu.waiters) > 0 {
		t.phase = 1
		m.futexOp(t, id, kWakeMutex, mi, mu.bucket)
		return true
	}
	return false
}

// pickSpinner returns the first spinner that is on a core, else the first one, or -1.
func (m *Machine) pickSpinner(mu *Mutex) int32 {
	for _, s := range mu.spinners {
		if m.threads[s].state == stRunning {
			return s
		}
	}
	if len(mu.spinners) > 0 {
		return mu.spinners[0]
	}
	return -1
}

func (m *Machine) grantSpinner(mu *Mutex, mi int32, s int32) {
	mu.spinners = remove(mu.spinners, s)
	mu.holder = s
	mu.Acquisitions++
	mu.SpinAcquired++
	st := &m.threads[s]
	st.phase = lkGranted
	if st.state == stRunning {
		m.account(st)
		st.gen++
		st.rem = 0
		m.schedule(st, s)
		return
	}
	st.rem = 0 // preempted while spinning: it will find the mutex its own when it runs
}

func remove(s []int32, id int32) []int32 {
	for i, v := range s {
		if v == id {
			copy(s[i:], s[i+1:])
			return s[:len(s)-1]
		}
	}
	return s
}

// futexOp starts a futex system call on bucket b: the system-call entry, then the
// bucket's spinlock (spinning, on the core and not preemptible, while another
// thread holds it), then the hold, then the operation kop (wait: block; wake:
// make waiters runnable). Its hold time grows with the number of threads queued
// on the bucket, so a herd costs more than its parts.
func (m *Machine) futexOp(t *thread, id int32, kop uint8, arg int32, b int32) {
	t.kop, t.karg, t.kb, t.kstep = kop, arg, b, 0
	m.syscalls++
	m.runBurst(t, id, int64(m.cfg.Costs.Syscall), catSys)
}

// holdTime is how long a futex call holds bucket b's spinlock: the base hold,
// grown by FutexGrowth for every other thread either spinning for the lock or
// queued on the bucket's hash chain (futex_wake walks the chain under the lock).
func (m *Machine) holdTime(b *bucket) int64 {
	n := len(b.queue)
	if b.mutex >= 0 {
		n += len(m.mutexes[b.mutex].waiters)
	}
	c := m.cfg.Costs
	return int64(float64(c.FutexHold) * (1 + c.FutexGrowth*float64(n)))
}

// kernelStep continues a futex operation whose current burst ended.
func (m *Machine) kernelStep(t *thread, id int32) {
	bk := &m.buckets[t.kb]
	switch t.kstep {
	case 0: // entered the kernel: take the bucket lock
		t.kstep = 1
		if bk.busy {
			bk.queue = append(bk.queue, id)
			t.start = m.e.now // spinning from now; charged when granted
			return
		}
		bk.busy = true
		m.runBurst(t, id, m.holdTime(bk), catFutexHold)
		return
	case 1: // held and done: release, grant the next spinner, finish the operation
		if len(bk.queue) > 0 {
			n := bk.queue[0]
			copy(bk.queue, bk.queue[1:])
			bk.queue = bk.queue[:len(bk.queue)-1]
			nt := &m.threads[n]
			spun := m.e.now - nt.start
			m.acct[catFutexSpin] += spun
			m.ran(nt, spun)
			m.runBurst(nt, n, m.holdTime(bk), catFutexHold)
		} else {
			bk.busy = false
		}
	}
	kop, arg := t.kop, t.karg
	t.kop = kNone
	switch kop {
	case kWaitMutex:
		mu := &m.mutexes[arg]
		if mu.holder < 0 {
			break // released meanwhile: retry at once (the lock word check in futex_wait)
		}
		mu.Waits++
		mu.waiters = append(mu.waiters, id)
		m.block(t)
		return
	case kWakeMutex:
		mu := &m.mutexes[arg]
		n := len(mu.waiters)
		if !mu.WakeAll && n > 1 {
			n = 1
		}
		// wake from a scratch copy: a woken thread may queue on this mutex again
		m.scratch = append(m.scratch[:0], mu.waiters[:n]...)
		mu.waiters = append(mu.waiters[:0], mu.waiters[n:]...)
		for _, w := range m.scratch {
			m.wake(w)
		}
	case kWaitEvent:
		if m.eventWait(t, id, arg) {
			return
		}
	case kWakeEvent:
		m.eventWake(arg)
	case kWaitGate:
		// The futex word check: a seat handed over, or a chance to compete
		// for one (Handoff barging), before the wait landed ends it at once.
		if ct := m.gate.thread(id); !ct.Inside() && !ct.Woken() {
			m.block(t)
			return
		}
	case kWakeThread:
		m.wake(arg)
	}
	m.advance(t, id)
}
