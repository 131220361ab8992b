package machine

import (
	"time"
)

// SyncArray is whether, and how, an InnoDB mutex's waits and wakes go through
// InnoDB's global wait array, sync_primary_wait_array (sync0arr.c), whose
// cells are guarded by one operating-system mutex (sync_array_enter →
// os_mutex_enter, a pthread mutex): a lock word and a line of counters that
// every waiter of every InnoDB mutex shares. The zero value, SyncArrayNone, is
// the model without the array: a waiter goes from its spin rounds straight to
// the mutex's futex.
//
// With the array, a thread that spun out in mutex_spin_wait (sync0sync.c),
// yielded (os_thread_yield) and failed its test-and-set after the yield
//
//  1. reserves a cell: sync_array_reserve_cell takes the array's mutex, scans
//     the cells from the first for a free one (reading the line of every cell
//     in use, written on its waiter's core) and fills it; then
//     mutex_set_waiters(1) and os_event_reset, which remembers the event's
//     signal count;
//  2. tries the lock word again; if it wins, sync_array_free_cell (the
//     array's mutex once more) and it holds the mutex;
//  3. else sync_array_wait_event takes the array's mutex to mark the cell
//     waiting, releases it, and sleeps in os_event_wait on the mutex's event
//     (a futex wait), unless the event was signalled since step 1;
//  4. once woken, sync_array_free_cell (the array's mutex again), and back to
//     the spin rounds.
//
// A release that finds the waiters flag set (mutex_exit → mutex_signal_object)
// clears it, sets the event (os_event_set: a futex wake of every waiter) and,
// under SyncArray50, then takes the array's mutex in
// sync_array_object_signalled to count the signal; it signals whenever the
// flag is set, also when it hands the mutex to a spinner. So a contended
// InnoDB mutex costs 3 acquisitions of the array's mutex per sleep, 2 per
// retry that wins, and (SyncArray50) 1 per signal, all on the one mutex that
// every InnoDB mutex's waiters share.
type SyncArray uint8

const (
	// SyncArrayNone: no wait array (the model before it; every study whose
	// machine does not name its version's array).
	SyncArrayNone SyncArray = iota
	// SyncArray50 is MySQL 5.0's and 5.1's built-in InnoDB: the waits and
	// every signal take the array's mutex. 5.0 without an event per mutex
	// (sync_array_signal_object) scans the cells for the object's waiters
	// under that mutex and sets each cell's event; 5.1's mutex_signal_object
	// sets the mutex's own event and then calls sync_array_object_signalled,
	// which, built without HAVE_ATOMIC_BUILTINS, increments sg_count under the
	// array's mutex. The model takes the 5.1 order (the event, then the
	// array's mutex), the same number of acquisitions as 5.0.
	SyncArray50
	// SyncArray55 is the InnoDB plugin with atomics (5.1.38+), 5.5 .. 8.0
	// with innodb_sync_array_size = 1 (its default): the waits take the
	// array's mutex as above; sync_array_object_signalled is an atomic (5.5)
	// or plain (8.0) increment, so a signal does not.
	SyncArray55
)

// syncArrayWork is the CPU time of one critical section under the wait
// array's mutex besides its line transfers: tens of instructions to fill,
// mark or clear a cell and update n_reserved and res_count (order of
// magnitude, as the 50 ns of a block fix in rowScan).
const syncArrayWork = 50 * time.Nanosecond

func (s SyncArray) validate() error {
	if s > SyncArray55 {
		return Invalid("SyncArray", "sim: SyncArray = %d, want SyncArrayNone, SyncArray50 or SyncArray55: %w", s, ErrInvalidConfig)
	}
	return nil
}

// arrayStep is which critical section on the wait array's mutex a thread is in.
type arrayStep uint8

const (
	asReserve arrayStep = iota // sync_array_reserve_cell
	asWait                     // sync_array_wait_event, before os_event_wait
	asFree                     // sync_array_free_cell
	asSignal                   // sync_array_object_signalled (SyncArray50)
)

// arrayPhase is how far a thread has got in one critical section on the wait
// array's mutex.
type arrayPhase uint8

const (
	apLock   arrayPhase = iota // taking the array's mutex (t.sy.amx is its lock stage)
	apHold                     // holding it: the cell work is running
	apUnlock                   // releasing it
)

// arrayCell is a reserved cell of the wait array: its waiter and the core
// that wrote it.
type arrayCell struct {
	thread int32
	core   int32
}

// inArray reports whether mu's waits go through the wait array: an InnoDB
// (spinning) mutex on a machine with one.
func (r *syncRoom) inArray(mu *Mutex) bool { return r.arrMu >= 0 && mu.Spin }

// arrayStep runs one critical section of kind s on the wait array's mutex for
// t: lock it (a pthread mutex: futex wait when taken), do the cell's work,
// unlock it (waking one waiter). It reports whether the section is done;
// false means t stops and arrayStep is called again, with the same s, when it
// runs.
func (r *syncRoom) arrayStep(t *thread, id int32, s arrayStep) bool {
	m := r.m
	for {
		switch t.sy.aph {
		case apLock:
			if !r.lockStage(t, id, r.arrMu, &t.sy.amx) {
				return false
			}
			t.sy.aph = apHold
			m.runBurst(t, id, m.jit(syncArrayWork)+r.cellWork(t, id, s), CatUser)
			return false
		case apHold:
			t.sy.aph = apUnlock
		case apUnlock:
			if !r.unlockStage(t, id, r.arrMu, &t.sy.amx) {
				return false
			}
			t.sy.aph = apLock
			return true
		}
	}
}

// cellWork does what step s changes in the array's cells and returns the ns
// it costs beyond syncArrayWork: a reservation reads every cell in use before
// the first free one (sync_array_reserve_cell's loop from cell 0), each a
// line last written on its waiter's core.
func (r *syncRoom) cellWork(t *thread, id int32, s arrayStep) int64 {
	m := r.m
	switch s {
	case asReserve:
		var d int64
		for _, c := range r.cells {
			d += m.transfer(c.core, t.core)
		}
		r.cells = append(r.cells, arrayCell{thread: id, core: t.core})
		return d
	case asFree:
		for i, c := range r.cells {
			if c.thread == id {
				r.cells = append(r.cells[:i], r.cells[i+1:]...)
				break
			}
		}
	}
	return 0
}
