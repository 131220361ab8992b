package sim

// futexOp is what a futex system call does once it holds its hash bucket's
// spinlock.
type futexOp uint8

const (
	fxNone       futexOp = iota // no futex call in progress
	fxWaitMutex                 // FUTEX_WAIT on a mutex's word: sleep unless it was released meanwhile
	fxWakeMutex                 // FUTEX_WAKE of a mutex's waiters (one, or all for WakeAll)
	fxWaitEvent                 // FUTEX_WAIT on an AIO segment's event: sleep unless it was set meanwhile
	fxWakeEvent                 // FUTEX_WAKE of the thread waiting on an AIO segment's event
	fxWaitGate                  // FUTEX_WAIT on a thread's private word, parked in the gate's queue
	fxWakeThread                // FUTEX_WAKE of one thread parked on its private word
)

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
}

type bucket struct {
	busy  bool
	queue []int32
	mutex int32 // the mutex whose futex word hashes here, or -1
}

// startFutex starts a futex system call on bucket b: the system-call entry, then the
// bucket's spinlock (spinning, on the core and not preemptible, while another
// thread holds it), then the hold, then the operation op (wait: block; wake:
// make waiters runnable). Its hold time grows with the number of threads queued
// on the bucket, so a herd costs more than its parts.
func (m *Machine) startFutex(t *thread, id int32, op futexOp, arg int32, b int32) {
	t.sys = futexCall{op: op, arg: arg, bucket: b}
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
	bk := &m.buckets[t.sys.bucket]
	switch t.sys.stage {
	case fsEnter: // entered the kernel: take the bucket lock
		t.sys.stage = fsHold
		if bk.busy {
			bk.queue = append(bk.queue, id)
			t.start = m.e.now // spinning from now; charged when granted
			return
		}
		bk.busy = true
		m.runBurst(t, id, m.holdTime(bk), catFutexHold)
		return
	case fsHold: // held and done: release, grant the next spinner, finish the operation
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
	op, arg := t.sys.op, t.sys.arg
	t.sys.op = fxNone
	switch op {
	case fxWaitMutex:
		mu := &m.mutexes[arg]
		if mu.holder < 0 {
			break // released meanwhile: retry at once (the lock word check in futex_wait)
		}
		mu.Waits++
		mu.waiters = append(mu.waiters, id)
		m.block(t)
		return
	case fxWakeMutex:
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
	case fxWaitEvent:
		if m.eventWait(t, id, arg) {
			return
		}
	case fxWakeEvent:
		m.eventWake(arg)
	case fxWaitGate:
		// The futex word check: a seat handed over, or a chance to compete
		// for one (Handoff barging), before the wait landed ends it at once.
		if ct, _ := m.gate.thread(id); !ct.Inside() && !ct.Woken() {
			m.block(t)
			return
		}
	case fxWakeThread:
		m.wake(arg)
	}
	m.advance(t, id)
}
