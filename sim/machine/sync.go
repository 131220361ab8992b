package machine

// syncRoom is the machine's synchronisation: InnoDB and pthread mutexes
// (mutex.go), the futex hash buckets their waits and wakes go through
// (futex.go), and InnoDB's wait array (syncarray.go). Every mechanism locks,
// waits and wakes through it (Machine.Lock, Unlock, FutexWait, FutexWake),
// and each thread's state in it is its syncThread. It asks the machine for
// what only the scheduler does: bursts, blocks, wakes, yields.
type syncRoom struct {
	m       *Machine
	mutexes []Mutex
	arrMu   int32       // the wait array's mutex (Config.SyncArray), or -1
	cells   []arrayCell // the wait array's reserved cells, in order
	buckets []bucket
	scratch []int32 // the waiters a futex wake is waking
}

// syncThread is a thread's state in the synchronisation room.
type syncThread struct {
	mx  mutexStage // the mutex lock or unlock in progress
	sys futexCall  // the futex system call in progress (not preemptible)
	// chain: woken from a mutex's broadcast chain, this thread wakes the next
	// of it before it retries (Config.BroadcastChain).
	chain bool
	// amx and aph are the lock stage of the wait array's mutex and the phase
	// of the critical section on it, while a wait or a signal of an InnoDB
	// mutex goes through the array; sig is the mutex event's signal count
	// when this thread reserved its cell (Config.SyncArray).
	amx mutexStage
	aph arrayPhase
	sig uint64
}

// addBucket adds a futex hash bucket and returns its index.
func (r *syncRoom) addBucket() int32 {
	r.buckets = append(r.buckets, bucket{mutex: -1})
	return int32(len(r.buckets) - 1)
}
