package aio

// Stats is a snapshot of an AIO system's counters. The Core keeps every field
// but the system-call counts, IOPrioRefused and the requests canceled before
// they took a slot or while in the overflow queue, which only the real
// driver can see, so the simulator and the real driver report the same
// numbers for the same run.
//
// At every instant Submitted = Completed + Failed + Canceled + InFlight.
type Stats struct {
	// Submitted counts requests accepted (into a slot, or into the overflow
	// queue from a Done), plus those canceled while waiting for a slot, plus
	// ReadAt's reads served from the page cache on the caller's thread
	// (counted completed at once; see ReadAt).
	Submitted uint64
	// Completed counts requests whose I/O succeeded.
	Completed uint64
	// Failed counts requests whose I/O returned an error (a short read included).
	Failed uint64
	// Canceled counts requests whose context ended before their I/O began:
	// while Submit waited for a free slot, while they waited in their slot
	// or the overflow queue, or (native AIO) in the kernel before it started
	// them (see Submit).
	Canceled uint64
	// InFlight is the number of reserved slots, requests waiting for their
	// handler or in progress, plus the requests in the overflow queue.
	InFlight uint64
	// Signals counts segments named in wake sets (Reserve, Flush and the
	// array-full path): the events the driver sets. A wake set is counted as
	// it is decided, before the call returns it (Reserve and ArrayFull under
	// the segment's lock, Flush atomically), and the driver sets the events
	// after: a snapshot taken meanwhile may count signals whose events are
	// still being set, but never misses a set a caller has already received.
	Signals uint64
	// Wakeups counts handler returns from waiting on their event (native:
	// on their ring), except those once the array is closing.
	Wakeups uint64
	// WastedWakeups counts wakeups that found the handler's segment with nothing
	// waiting.
	WastedWakeups uint64
	// Batches counts I/Os issued by handlers; Merges counts the requests that
	// joined a batch behind its first, so requests issued = Batches + Merges.
	Batches uint64
	Merges  uint64
	// ArrayFullWaits counts reservations that found their array full.
	ArrayFullWaits uint64
	// MaxPending is the most slots ever reserved at once in one segment.
	MaxPending int
	// FutexSyscalls counts FUTEX_WAIT and FUTEX_WAKE calls on the handlers'
	// events (HandlerFutex only).
	FutexSyscalls uint64
	// RingSyscalls counts the system calls made on the rings (IONative
	// only): io_uring_enter, to submit and to wait for completions, and
	// io_uring_register: once per ring at New for its file table, once per
	// ring for RegisterBuffers, once per ring and File the first time the
	// File's requests reach that ring (again after the table was emptied,
	// the ring idle for 10 ms, or the File's entry given to another), and
	// once per emptying.
	RingSyscalls uint64
	// Syscalls counts every system call the Array made to do its requests
	// and to wake its handlers: native AIO, RingSyscalls plus the
	// synchronous reads, writes and syncs that finish what the kernel gave
	// back short; simulated AIO, one per Backend call (a FileBackend call is
	// one pread, pwrite, preadv, pwritev, fsync or fdatasync; retries after
	// a partial transfer are not counted), plus FutexSyscalls, plus the
	// ioprio_set calls of WithIOPriority; and under either, ReadAt's
	// preadv2 attempts at the page cache. Channel wakes of goroutine handlers
	// are the Go runtime's and not counted. Syscalls over Submitted is the
	// cost of a request in system calls (SyscallsPerRequest).
	Syscalls uint64
	// IOPrioRefused counts the ioprio_set calls the kernel refused
	// (WithIOPriority, simulated AIO); the batch's I/O went on at the thread's
	// priority.
	IOPrioRefused uint64
}

// SyscallsPerRequest returns Syscalls over the requests that left the
// Array (Completed + Failed + Canceled), 0 before any has.
func (s Stats) SyscallsPerRequest() float64 {
	done := s.Completed + s.Failed + s.Canceled
	if done == 0 {
		return 0
	}
	return float64(s.Syscalls) / float64(done)
}

// Add returns the field-by-field sum of s and t, with the larger MaxPending.
func (s Stats) Add(t Stats) Stats {
	return Stats{
		Submitted:      s.Submitted + t.Submitted,
		Completed:      s.Completed + t.Completed,
		Failed:         s.Failed + t.Failed,
		Canceled:       s.Canceled + t.Canceled,
		InFlight:       s.InFlight + t.InFlight,
		Signals:        s.Signals + t.Signals,
		Wakeups:        s.Wakeups + t.Wakeups,
		WastedWakeups:  s.WastedWakeups + t.WastedWakeups,
		Batches:        s.Batches + t.Batches,
		Merges:         s.Merges + t.Merges,
		ArrayFullWaits: s.ArrayFullWaits + t.ArrayFullWaits,
		MaxPending:     max(s.MaxPending, t.MaxPending),
		FutexSyscalls:  s.FutexSyscalls + t.FutexSyscalls,
		RingSyscalls:   s.RingSyscalls + t.RingSyscalls,
		Syscalls:       s.Syscalls + t.Syscalls,
		IOPrioRefused:  s.IOPrioRefused + t.IOPrioRefused,
	}
}

// ArrayStats returns the counters of array a alone. It touches every segment
// of a.
func (c *Core) ArrayStats(a ArrayID) Stats {
	ar := &c.arrays[a]
	sum := ar.st
	st := Stats{Signals: ar.flushSignals.Load()}
	for s := ar.first; s < ar.first+ar.n; s++ {
		sg := &c.segs[s]
		sum.add(sg.st)
		st.InFlight += uint64(sg.reserved)
		st.MaxPending = max(st.MaxPending, sg.maxReserved)
	}
	st.Submitted = sum.reserved
	st.Completed = sum.completed
	st.Failed = sum.failed
	st.Canceled = sum.canceled
	st.Signals += sum.signals
	st.Wakeups = sum.wakeups
	st.WastedWakeups = sum.wasted
	st.Batches = sum.batches
	st.Merges = sum.merges
	st.ArrayFullWaits = sum.fullWaits
	return st
}

// add adds t's counts to c's.
func (c *counters) add(t counters) {
	c.reserved += t.reserved
	c.completed += t.completed
	c.failed += t.failed
	c.canceled += t.canceled
	c.signals += t.signals
	c.wakeups += t.wakeups
	c.wasted += t.wasted
	c.batches += t.batches
	c.merges += t.merges
	c.fullWaits += t.fullWaits
}

// Stats returns the sum of every array's counters.
func (c *Core) Stats() Stats {
	var st Stats
	for a := range numArrays {
		st = st.Add(c.ArrayStats(a))
	}
	return st
}
