package sim

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

// mutexStage is how far a thread has got in locking or unlocking a Mutex.
type mutexStage uint8

const (
	mxIdle     mutexStage = iota // no lock or unlock in progress: a lock starts by trying the word
	mxSpinning                   // spinning SpinLoops rounds for the mutex
	mxWaiting                    // sleeping on the mutex (or on the way to): retry when woken
	mxGranted                    // handed the mutex by its releaser while spinning
	mxWaking                     // unlocking: the futex wake of the waiters is in progress
)

// lock runs OpLock for mutex mi; it reports whether t holds the mutex and goes
// on (t.mx is back to mxIdle); false means t stops, spinning or waiting, and
// lock is called again when it runs.
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
		switch t.mx {
		case mxIdle:
			if mu.holder < 0 {
				mu.holder = id
				mu.Acquisitions++
				return true
			}
			if mu.Spin && m.cfg.SpinLoops > 0 {
				t.mx = mxSpinning
				mu.spinners = append(mu.spinners, id)
				spin := int64(m.cfg.SpinLoops) * m.jit(m.cfg.Costs.SpinRound)
				m.runBurst(t, id, spin, catMutexSpin)
				return false
			}
			t.mx = mxWaiting
			m.startFutex(t, id, fxWaitMutex, mi, mu.bucket)
			return false
		case mxSpinning: // spun out without the lock
			mu.spinners = remove(mu.spinners, id)
			t.mx = mxWaiting
			m.startFutex(t, id, fxWaitMutex, mi, mu.bucket)
			return false
		case mxWaiting: // woken, or found it free on the way to sleep: retry
			t.mx = mxIdle
		case mxGranted:
			t.mx = mxIdle
			return true
		}
	}
}

// unlock runs OpUnlock for mutex mi; it reports whether the release is done
// and t goes on; false means t stops while its futex wake of the waiters is in
// progress, and unlock is called again when it returns.
func (m *Machine) unlock(t *thread, id int32, mi int32) bool {
	mu := &m.mutexes[mi]
	if t.mx == mxWaking {
		t.mx = mxIdle
		return true // the wake is done
	}
	mu.holder = -1
	if s := m.pickSpinner(mu); s >= 0 {
		m.grantSpinner(mu, mi, s)
		return true
	}
	if len(mu.waiters) > 0 {
		t.mx = mxWaking
		m.startFutex(t, id, fxWakeMutex, mi, mu.bucket)
		return false
	}
	return true
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
	st.mx = mxGranted
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
