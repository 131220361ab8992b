// Package sim is a deterministic discrete-event simulator of an InnoDB-style
// server on N cores. It drives the same policy cores as the library — the
// concurrency gate (package concurrency), the simulated-AIO array (package aio)
// and the priority mappings (package prio) — and charges virtual time for what
// they cannot know: CPU bursts, context switches, system calls, InnoDB mutex
// spins and waits, futex hash-bucket spinlocks and device time. The simulator
// never re-decides what a core decides; it only predicts how long it takes.
//
// # Engine
//
// Engine is a 4-ary min-heap of 32-byte events keyed by (virtual time in ns,
// sequence number), with handlers registered once and named by a small Kind, so
// scheduling allocates nothing and the heap holds no pointers. Its random source
// is PCG seeded from the run's seed. There is no goroutine per simulated thread:
// a thread is a struct with a program counter, and one handler ends its bursts.
// The same seed gives the same run, byte for byte, whatever GOMAXPROCS;
// RunCells runs independent cells in parallel (errgroup) and returns them in
// input order. BenchmarkEngine reports events/s (the issue asks ≥ 5M/s).
//
// # Machine
//
// A Machine has CPUs cores, a run queue and one of two scheduler models:
//
//   - CFS (Linux): least virtual runtime first, vruntime advancing at 1024/weight
//     (weights from prio.Hint.Weight), sleepers placed at most half a latency
//     behind, wakeup preemption past a granularity, slices ≥ a minimum.
//   - TS (Solaris time-sharing): dispatch priority = CPU level 0..59 plus the
//     hint's user priority (prio.Hint.TSLevel), clamped; FIFO within a level;
//     a quantum per level (20 ms at the top, 200 ms at the bottom); a used-up
//     quantum lowers the level by 10, a return from sleep raises it to 50 or one
//     above; a thread runnable for over a second is raised to 50; a woken thread
//     preempts a running one of strictly lower priority.
//
// With no more runnable threads than cores every thread has a core, so the
// models agree and hints do nothing: priorities matter only when threads
// outnumber cores (TestPrioritiesMatterOnlyWhenThreadsOutnumberCores).
//
// A thread runs a workload's program (Op): CPU bursts, system calls, sleeps (the
// client's side of a round trip), lock and unlock of InnoDB mutexes, priority
// changes, gate enter and exit, AIO prefetches. Every dispatch costs a context
// switch; every system call the profile's Syscall.
//
// # Synchronisation costs
//
// An InnoDB mutex (Mutex with Spin) spins innodb_sync_spin_loops rounds, then
// reserves a wait cell and sleeps on its event; its release wakes every waiter
// (os_event_set, MySQL 5.0–5.7), each of which retries. A pthread mutex (Spin
// false) goes straight to futex wait and wakes one. Every futex wait and wake
// enters the kernel and takes its hash bucket's spinlock: the caller spins,
// on its core and not preemptible, while another holds it, and the hold grows
// by FutexGrowth for every thread spinning on the bucket or queued on its hash
// chain. So a herd of N wakes costs more than N single wakes
// (TestFutexHerdCostsMoreThanItsParts), as on real kernels.
//
// # Cost profiles
//
// CostProfile holds the context-switch, system-call, futex, spin-round and I/O
// costs; LoadProfile reads one from a "key = value" file. OldKernel and
// NewKernel differ only in system-call and context-switch cost.
//
// # Experiments
//
// Cell is one run (workload, threads, machine, gate, AIO); CellFromSettings
// builds one from a my.cnf; RunCells sweeps cells in parallel. FitUSL fits the
// Universal Scalability Law with gonum/optimize.
//
// # Adapters
//
// The gate driver runs concurrency.Core's Enter/ForceExit under the mutex the
// Queue policy needs and wakes whom Release.To names. The AIO driver runs
// aio.Core's Reserve/Pick/Complete under one pthread mutex per array, with one
// handler thread and one event per segment, and sets the events of the
// Reservation's wake set (for WakeDeferred, after Flush at the end of a
// read-ahead batch); a reservation that finds the array full is dropped (a
// read-ahead is best effort) and counted.
package sim
