package machine

// Mutex is a simulated lock. InnoDB mutexes (ib_mutex_t) spin SpinLoops rounds and
// then wait on an event; their release wakes every waiter (os_event_set, as
// mutex_exit in MySQL 5.0..5.7). Plain pthread mutexes (Spin false) go straight to
// futex wait and their release wakes one waiter.
//
// A mutex's lock word, and the Lines cache lines of data it protects, are
// where the core that last wrote them left them (MESI: a write needs the line
// Modified in the writer's cache, and takes it from whichever cache holds it).
// Taking the mutex on another core than the one that last wrote the word costs
// a transfer of the word (the test-and-set of mutex_test_and_set in
// sync0sync.ic is an xchg on lock_word), and one per data line last written
// by the previous holder on another core (buf_pool->mutex in buf0buf.c guards
// the block's buf_fix_count and the pool's counters and LRU list, which the
// holder writes). A failed test-and-set takes the word's line to the trying
// core too, so the holder's release (mutex_reset_lock_word) then pays a
// transfer to get it back. The price of a transfer is the machine's
// (CostProfile.LineTransfer, LineTransferRemote across Config.Sockets);
// the holder pays it inside its critical section, so a lock taken on every
// core in turn spends its hold moving lines: MySQL bug 15815's ping-pong.
//
// With Config.BroadcastChain (Solaris) the release of a WakeAll mutex
// wakes one waiter, and each woken waiter wakes the next before it retries.
// os_event_set calls pthread_cond_broadcast while it holds the event's
// os_mutex; Solaris libc's cond_broadcast (synch.c) then moves every waiter
// from the condition variable's sleep queue to that mutex's queue instead of
// unparking them, and each waiter, once it owns os_mutex and returns from
// cond_wait, releases it in os_event_wait_low, whose mutex_unlock unparks
// the next (__lwp_unpark). So the waiters come back one at a time, each after
// the one before it got a core.
type Mutex struct {
	// Name labels the mutex in statistics ("kernel_mutex").
	Name string
	// Spin: spin before waiting (InnoDB); false for a pthread mutex.
	Spin bool
	// WakeAll: release wakes every waiter; false wakes one.
	WakeAll bool
	// NoYield: a Spin mutex that goes from its spin rounds to the futex
	// wait without os_thread_yield, as MariaDB 10.6's srw_mutex does
	// (srw_mutex_impl::wait_and_lock); false yields first (mutex_spin_wait).
	NoYield bool
	// Lines is how many cache lines of data the holder writes beside the
	// lock word (0..64; 0: the lock word only).
	Lines int

	wordCPU int32 // the core that last wrote the lock word's line, or -1
	dataCPU int32 // the core of the holder that last wrote the protected data, or -1

	holder   int32
	spinners []int32
	waiters  []int32
	chain    []int32 // moved by a broadcast, woken one by one (BroadcastChain)
	bucket   int32

	flag    bool   // mutex->waiters: set by a waiter after it reserved a cell (SyncArray)
	signals uint64 // the event's signal count (os_event_set), which a reserved cell remembers

	// Acquisitions, SpinAcquired and Waits count lock requests, those granted
	// while spinning and those that slept.
	Acquisitions, SpinAcquired, Waits uint64
	// Signals counts the releases that woke the mutex's waiters (with a wait
	// array: that found the waiters flag set, mutex_signal_object). Cells and
	// CellWaits count, with Config.SyncArray, the wait cells reserved
	// (sync_array_reserve_cell) and the waits on them
	// (sync_array_wait_event); a reservation whose retry won the mutex is a
	// cell without a wait. Without a wait array both stay 0.
	Signals, Cells, CellWaits uint64
	// Yields counts the os_thread_yield calls of threads that spun out on
	// the mutex, and YieldSwitches those that gave the core to another
	// thread (Machine.yield).
	Yields, YieldSwitches uint64
}

// mutexStage is how far a thread has got in locking or unlocking a Mutex.
type mutexStage uint8

const (
	mxIdle        mutexStage = iota // no lock or unlock in progress: a lock starts by trying the word
	mxSpinning                      // spinning SpinLoops rounds for the mutex
	mxWaiting                       // sleeping on the mutex (or on the way to): retry when woken
	mxGranted                       // handed the mutex by its releaser while spinning
	mxWaking                        // unlocking: the futex wake of the waiters is in progress
	mxTaking                        // locked: moving the lock word and the data lines to this core
	mxReleasing                     // unlocking: moving the lock word back to this core to reset it
	mxPassing                       // woken from a broadcast chain: waking the next of it
	mxReserving                     // reserving a cell of the wait array (SyncArray)
	mxCellWaiting                   // marking the cell waiting, then to the futex wait
	mxFreeingWon                    // freeing the cell after the retry won the mutex
	mxFreeing                       // freeing the cell after the wait: then spin again
	mxSignalling                    // unlocking: counting the signal under the array's mutex (SyncArray50)
	mxYielding                      // spun out: in sched_yield's system-call entry (os_thread_yield)
	mxYielded                       // back from sched_yield: the last test-and-set before the wait
)

// lock runs OpLock for mutex mi; it reports whether t holds the mutex and goes
// on (t.sy.mx is back to mxIdle); false means t stops, spinning or waiting, and
// lock is called again when it runs.
//
// The model of an InnoDB mutex (mutex_enter → mutex_spin_wait in sync0sync.cc,
// MySQL 5.0..5.7): try the lock word; if taken, spin innodb_sync_spin_loops
// rounds re-checking it (one burst of CPU here; a release during the burst hands
// the mutex to the first spinner at once, as the spinner's next test-and-set would
// win); once the rounds are used up (i == SYNC_SPIN_ROUNDS, also with 0 rounds),
// os_thread_yield (sched_yield: Machine.yield) and one more test-and-set; if
// still taken, reserve a wait cell and sleep on the mutex's event (a futex
// wait through its hash bucket). MySQL 5.0 through 5.6 make that order in
// mutex_spin_wait (sync0sync.c/.cc); 5.7 and 8.0's
// TTASEventMutex::spin_and_try_lock (ib0mutex.h) yield too but go from the
// yield to the reservation, whose retries follow at once, so a mutex freed
// during the yield costs them the cell's reservation and release, which the
// model does not charge. A woken waiter starts over from the try, so a
// thread that arrives meanwhile may take the mutex first. On a machine with a
// wait array (Config.SyncArray) the cell's reservation, the wait and the
// cell's release each take the array's mutex first (SyncArray has the steps).
func (r *syncRoom) lock(t *thread, id int32, mi int32) bool { return r.lockStage(t, id, mi, &t.sy.mx) }

// lockStage is lock with the thread's stage for mutex mi in *st: t.sy.mx for the
// mutex of the op, t.sy.amx for the wait array's mutex taken inside it.
func (r *syncRoom) lockStage(t *thread, id int32, mi int32, st *mutexStage) bool {
	m := r.m
	mu := &r.mutexes[mi]
	for {
		switch *st {
		case mxIdle:
			if mu.holder < 0 {
				mu.holder = id
				mu.Acquisitions++
				return r.take(t, id, mu, st)
			}
			mu.wordCPU = t.core // the failed test-and-set wrote the word
			if !mu.Spin {
				*st = mxWaiting
				r.startFutex(t, id, fxWaitMutex, mi, mu.bucket)
				return false
			}
			if m.cfg.SpinLoops > 0 {
				*st = mxSpinning
				mu.spinners = append(mu.spinners, id)
				spin := int64(m.cfg.SpinLoops) * m.jit(m.cfg.Costs.SpinRound)
				m.runBurst(t, id, spin, CatMutexSpin)
				return false
			}
			if mu.NoYield { // srw_mutex: the last try, then the futex wait
				*st = mxYielded
				continue
			}
			// no rounds to spin: i == SYNC_SPIN_ROUNDS at once, so the yield
			r.startYield(t, id, st)
			return false
		case mxSpinning: // spun out without the lock: os_thread_yield
			mu.spinners = remove(mu.spinners, id)
			if mu.NoYield {
				*st = mxYielded
				continue
			}
			r.startYield(t, id, st)
			return false
		case mxYielding: // sched_yield has entered the kernel: its schedule()
			*st = mxYielded
			mu.Yields++
			if !m.yield(t, id) {
				mu.YieldSwitches++
				return false // on the run queue; the test-and-set when it runs
			}
		case mxYielded: // the test-and-set after the yield, then the wait
			if mu.holder < 0 {
				mu.holder = id
				mu.Acquisitions++
				*st = mxIdle
				return r.take(t, id, mu, st)
			}
			mu.wordCPU = t.core
			if r.inArray(mu) {
				*st = mxReserving
				continue
			}
			*st = mxWaiting
			r.startFutex(t, id, fxWaitMutex, mi, mu.bucket)
			return false
		case mxReserving: // sync_array_reserve_cell
			if !r.arrayStep(t, id, asReserve) {
				return false
			}
			// mutex_set_waiters(1); os_event_reset keeps the signal count the
			// wait compares; then the retry of the lock word
			mu.flag = true
			mu.Cells++
			t.sy.sig = mu.signals
			if mu.holder < 0 {
				mu.holder = id
				mu.Acquisitions++
				*st = mxFreeingWon // the flag stays set: others may wait
				continue
			}
			*st = mxCellWaiting
		case mxCellWaiting: // sync_array_wait_event, then os_event_wait
			if !r.arrayStep(t, id, asWait) {
				return false
			}
			mu.CellWaits++
			*st = mxWaiting
			r.startFutex(t, id, fxWaitMutex, mi, mu.bucket)
			return false
		case mxFreeingWon: // the retry won: sync_array_free_cell, then the lines
			if !r.arrayStep(t, id, asFree) {
				return false
			}
			*st = mxIdle
			return r.take(t, id, mu, st)
		case mxWaiting: // woken, or found it free on the way to sleep: retry
			if t.sy.chain {
				t.sy.chain = false
				if len(mu.chain) > 0 { // pass the broadcast on first
					*st = mxPassing
					r.startFutex(t, id, fxWakeChain, mi, mu.bucket)
					return false
				}
			}
			*st = r.afterWait(mu)
		case mxPassing: // the next one is woken: retry
			*st = r.afterWait(mu)
		case mxFreeing: // sync_array_free_cell after the wait, then spin again
			if !r.arrayStep(t, id, asFree) {
				return false
			}
			*st = mxIdle
		case mxGranted:
			*st = mxIdle
			return r.take(t, id, mu, st)
		case mxTaking: // the lines have arrived
			*st = mxIdle
			return true
		}
	}
}

// startYield starts os_thread_yield for t, which spun out its rounds on an
// InnoDB mutex: the system call's entry and exit (CostProfile.Syscall), then
// the scheduler's part (Machine.yield) in stage mxYielding.
func (r *syncRoom) startYield(t *thread, id int32, st *mutexStage) {
	m := r.m
	*st = mxYielding
	m.syscalls++
	m.runBurst(t, id, int64(m.cfg.Costs.Syscall), CatSys)
}

// afterWait is the stage after a wait on mu has ended: free the wait
// array's cell first if mu's waits go through the array, else retry.
func (r *syncRoom) afterWait(mu *Mutex) mutexStage {
	if r.inArray(mu) {
		return mxFreeing
	}
	return mxIdle
}

// unlock runs OpUnlock for mutex mi; it reports whether the release is done
// and t goes on; false means t stops while its futex wake of the waiters is in
// progress, and unlock is called again when it returns.
func (r *syncRoom) unlock(t *thread, id int32, mi int32) bool {
	return r.unlockStage(t, id, mi, &t.sy.mx)
}

// unlockStage is unlock with the thread's stage for mutex mi in *st (see
// lockStage).
//
// Without a wait array the release wakes the waiters only when no spinner
// takes the mutex. With one it follows mutex_exit: reset the lock word, and
// if the waiters flag is set, mutex_signal_object (clear the flag, os_event_set,
// and under SyncArray50 sync_array_object_signalled), whoever takes the
// mutex next.
func (r *syncRoom) unlockStage(t *thread, id int32, mi int32, st *mutexStage) bool {
	m := r.m
	mu := &r.mutexes[mi]
	switch *st {
	case mxWaking:
		if r.inArray(mu) && m.cfg.SyncArray == SyncArray50 {
			*st = mxSignalling
			return r.unlockStage(t, id, mi, st)
		}
		*st = mxIdle
		return true // the wake is done
	case mxSignalling: // sync_array_object_signalled
		if !r.arrayStep(t, id, asSignal) {
			return false
		}
		*st = mxIdle
		return true
	case mxReleasing:
		*st = mxIdle // the word is back: reset it
	default:
		if d := r.contended(mu, t.core); d > 0 {
			mu.wordCPU = t.core
			*st = mxReleasing
			m.runBurst(t, id, d, CatUser)
			return false
		}
	}
	mu.holder = -1
	if r.inArray(mu) {
		if s := r.pickSpinner(mu); s >= 0 {
			r.grantSpinner(mu, mi, s)
		}
		if !mu.flag {
			return true
		}
		mu.flag = false
		mu.signals++
		mu.Signals++
		*st = mxWaking
		r.startFutex(t, id, fxWakeMutex, mi, mu.bucket)
		return false
	}
	if s := r.pickSpinner(mu); s >= 0 {
		r.grantSpinner(mu, mi, s)
		return true
	}
	if len(mu.waiters) > 0 {
		mu.Signals++
		*st = mxWaking
		r.startFutex(t, id, fxWakeMutex, mi, mu.bucket)
		return false
	}
	return true
}

// take charges the new holder t of mu for the lines it must fetch: the lock
// word from the core that last wrote it, each data line from the previous
// holder's core. It reports whether t goes on at once (nothing to move);
// false means t stops in mxTaking (in *st) until the lines have arrived.
func (r *syncRoom) take(t *thread, id int32, mu *Mutex, st *mutexStage) bool {
	m := r.m
	d := r.contended(mu, t.core) + int64(mu.Lines)*m.transfer(mu.dataCPU, t.core)
	mu.wordCPU, mu.dataCPU = t.core, t.core
	if d == 0 {
		return true
	}
	*st = mxTaking
	m.runBurst(t, id, d, CatUser)
	return false
}

// transfer is the price in ns of moving a cache line last written on core
// from to core to: 0 on the same core or for a line nobody has written,
// CostProfile.LineTransfer within a socket, LineTransferRemote across.
func (m *Machine) transfer(from, to int32) int64 {
	if from < 0 || from == to {
		return 0
	}
	c := m.cfg.Costs
	if m.socket(from) != m.socket(to) {
		return int64(c.LineTransferRemote)
	}
	return int64(c.LineTransfer)
}

// contended is the price of writing mu's lock word on core to: a transfer
// from the core that last wrote it, queued behind the re-reads of the
// spinners on other cores (each one more transfer of the same line first). A
// lock handoff that costs one transfer per waiting core is what makes a
// contended spinlock collapse (Boyd-Wickizer et al., "Non-scalable locks are
// dangerous", Linux Symposium 2012). An InnoDB spinner does not poll the word
// without pause: mutex_spin_wait (sync0sync.c, MySQL 5.0..5.7) reads
// lock_word once per spin round and then waits ut_delay before the next read,
// so of k spinners about k × transfer / SpinRound have a read in flight when
// the write comes (at most k).
func (r *syncRoom) contended(mu *Mutex, to int32) int64 {
	m := r.m
	from, k := mu.wordCPU, 0
	for _, s := range mu.spinners {
		if st := &m.threads[s]; st.state == stRunning && st.core != to {
			k++
			if from < 0 || from == to {
				from = st.core // the spinners hold the line (shared)
			}
		}
	}
	tr := m.transfer(from, to)
	reads := float64(k)
	if r := m.cfg.Costs.SpinRound; r > 0 && tr < int64(r) {
		reads *= float64(tr) / float64(r)
	}
	return tr + int64(reads*float64(tr))
}

// socket is the socket of core c: the cores are split into
// Config.Sockets equal runs (0 and 1 both mean one socket).
func (m *Machine) socket(c int32) int {
	s := max(m.cfg.Sockets, 1)
	if int(c) >= m.cfg.CPUs {
		return s // the client's cores (Config.ClientCPUs): a socket of their own here
	}
	return int(c) * s / m.cfg.CPUs
}

// pickSpinner returns the first spinner that is on a core, else the first one, or -1.
func (r *syncRoom) pickSpinner(mu *Mutex) int32 {
	m := r.m
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

func (r *syncRoom) grantSpinner(mu *Mutex, mi int32, s int32) {
	m := r.m
	mu.spinners = remove(mu.spinners, s)
	mu.holder = s
	mu.Acquisitions++
	mu.SpinAcquired++
	st := &m.threads[s]
	st.sy.mx = mxGranted
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
