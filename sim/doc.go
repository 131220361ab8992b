// Package sim is a deterministic discrete-event simulator of an InnoDB-style
// server on N cores. It drives the same policy cores as the library — the
// concurrency gate (package concurrency), the simulated-AIO array (package aio,
// including its handler cycle, aio.HandlerCycle) and the priority mappings
// (package prio) — and charges virtual time for what they cannot know: CPU
// bursts, context switches, system calls, InnoDB mutex spins and waits, futex
// hash-bucket spinlocks and device time. The simulator never re-decides what a
// core decides; it only predicts how long it takes.
//
// # Engine
//
// The machine runs on package engine (sim/engine): a discrete-event engine
// with a virtual clock and a seeded random source. The same seed and the same
// schedule give the same run, byte for byte; RunCells runs independent cells in
// parallel and returns them in input order, so results do not depend on
// GOMAXPROCS.
//
// # Machine
//
// A Machine (config.go, machine.go) has MachineConfig.CPUs cores, one run queue
// and one of two scheduler models (sched.go):
//
//   - CFS (Linux's kernel/sched/fair.c): least virtual runtime first, vruntime
//     advancing at 1024/weight (weights from prio.Hint.Weight), sleepers
//     placed at most half a latency behind, wakeup preemption past a
//     granularity, slices ≥ a minimum.
//   - TS (Solaris time-sharing, ts_dptbl(4)): dispatch priority = CPU level
//     0..59 plus the hint's user priority (prio.Hint.TSLevel), clamped; FIFO
//     within a level; a quantum per level (20 ms at the top, 200 ms at the
//     bottom); a used-up quantum lowers the level by 10, a return from sleep
//     raises it to 50 or one above; a thread runnable for over a second is
//     raised to 50; a woken thread preempts a running one of strictly lower
//     priority.
//
// With no more runnable threads than cores every thread has a core, so the
// models agree and hints do nothing: priorities matter only when threads
// outnumber cores.
//
// A thread runs a program of Ops in a loop (interp.go): CPU bursts, system
// calls, sleeps (the client's side of a round trip, think time), lock and unlock of
// mutexes, priority changes, gate enter and exit, AIO prefetches, an AIO
// handler's cycle. Every dispatch costs CostProfile.ContextSwitch; every system
// call CostProfile.SyscallCost of its kind (SyscallKind: Syscall, plus
// SyscallSocket on an open socket or SyscallSetup for a connection's setup and
// teardown). Durations are drawn in [0.5, 1.5) × their nominal
// value (Engine.Jitter). With Cell.Client the client is a thread of the
// machine too (client.go): each connection a server and a client thread on a
// socket (OpSockSend, OpSockRecv) instead of a sleep; with Cell.RemoteWake a
// wake onto an idle core pays the profile's FutexWakeCall and FutexWake
// (Machine.SetRemoteWake).
//
// # Synchronisation
//
// An InnoDB mutex (Mutex with Spin; mutex_enter in sync0sync.cc, MySQL
// 5.0–5.7) spins MachineConfig.SpinLoops rounds, then sleeps on its event;
// its release wakes every waiter (WakeAll, os_event_set), each of which
// retries, or, with MachineConfig.BroadcastChain (Solaris libc's
// cond_broadcast), the first, each woken one waking the next. A pthread mutex
// (Spin false) goes straight to futex wait and wakes one. With
// MachineConfig.SyncArray an InnoDB mutex's waits, and in 5.0/5.1 its
// signals, also go through InnoDB's global wait array (sync0arr.c): each
// reservation, wait and release of a cell takes the array's one pthread
// mutex, which every InnoDB mutex's waiters share. Taking a mutex on
// another core moves its lock word and data lines (CostProfile.LineTransfer).
// Every futex wait and wake (futex.go) enters the kernel and takes its hash
// bucket's spinlock: the caller spins, on its core and not preemptible, while
// another holds it. The hold grows by CostProfile.FutexGrowth for every
// thread spinning on the bucket and, by the kind of call as Linux's
// futex_wait and futex_wake do, for every waiter a wake-all wakes; a wait
// and a wake of one cost the same whatever the queue, so a herd of N wakes
// costs more than N single wakes. With CostProfile.RunqueueHold set, wakes
// and switches also take the CPUs' run-queue locks (rqlock.go, after
// try_to_wake_up and __schedule); the time spent waiting for them joins the
// futex buckets' spin in Result.RawSpinShare.
//
// # Drivers
//
// The gate driver (gate.go) runs concurrency.Core's Enter and ForceExit, under
// the gate's mutex for concurrency.PolicyQueue (see Machine.SetGate), and wakes
// whom the core names.
// The AIO driver (aiodriver.go) runs aio.Core under one pthread mutex per array,
// with one handler thread and one event per segment: submitters Reserve and set
// the events of the wake set (for WakeDeferred, after Flush at the end of a
// read-ahead batch; a reservation that finds the array full is dropped, as a
// read-ahead is best effort, and counted); each handler steps
// aio.HandlerCycle, the decisions aio.Array's handlers make, and charges the
// scan of its segment, the pread and the device time. With aio.Config.IO =
// aio.IONative, SetAIO installs the native driver (aionative.go) instead:
// submitters reserve a slot under the array mutex (waiting on the array's
// not_full event when it is full) and make one io_submit system call; the
// device completes the read after IOService; the kernel wakes only the handler
// of that segment, which reaps with io_getevents and frees the slot under the
// array mutex. No submitter wakes a handler.
//
// # The Go runtime layer
//
// Machine.SetGoRuntime turns a bare machine into one whose threads are
// goroutines locked to OS threads under Go's scheduler (goruntime.go, after
// runtime/proc.go): GOMAXPROCS Ps, exitsyscall's choice of a P (the old one,
// else an idle one, else the global run queue and a sleeping thread), sysmon's
// rounds (usleep(20) plus CostProfile.SysmonTick's slack, backing off to 10 ms)
// and retake/handoffp of a P sitting in a system call. Under the layer each
// CPU keeps its own FIFO run queue and a woken thread goes to the CPU it last
// ran on, preempting the thread there with probability
// CostProfile.WakePreempt: CFS as it places wakes of nice-0 threads running
// short bursts. A driver outside the package (the model of BenchmarkAIOWake
// that innosim calibrate --check uses) steps its threads on the layer; the
// machine's own interpreter does not run on it.
//
// # Experiments
//
// Cell is one run (workload, threads, machine, gate, AIO); CellFromSettings
// builds one from a my.cnf (package mycnf); RunCells sweeps cells in parallel.
// Workloads returns the built-in sysbench-like programs.
//
// Invalid configuration is an error wrapping ErrInvalidConfig that names the
// field and its allowed range. The model's sources, calibration and history
// are in docs/sim-model.md.
package sim
