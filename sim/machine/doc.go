// Package machine is the simulated server: cores, a scheduler, threads that
// run programs of Ops, the costs the kernel charges, InnoDB's mutexes with
// the futexes and the wait array under them, and the kernel API through which
// the mechanisms (devices, the redo log, row locks, gates, AIO, the buffer
// pool, sockets, the thread pool) run their ops. It runs on package engine's
// events, virtual clock and seeded random source.
//
// # Cores and schedulers
//
// A Machine (New, Config) has Config.CPUs cores and, with
// Config.ClientCPUs, a second set of cores for the threads added on
// ClientCores (AddThreadOn): a benchmark client pinned to cores of its own.
// Each set has one run queue and runs only its own threads, and one of
// three scheduler models runs them:
//
//   - CFS (Linux's kernel/sched/fair.c before 6.6): least virtual runtime
//     first, vruntime advancing at 1024/weight (weights from
//     prio.Hint.Weight), sleepers placed at most a sleeper credit behind,
//     wakeup preemption past a granularity, slices of the period shared
//     among a core's runnable threads, never below a minimum granularity,
//     sched_yield as yield_task_fair. The tunables are Config.Fair's (a
//     kernel release's on a box: spec.Sched).
//   - EEVDF (kernel/sched/fair.c from 6.6): every thread's slice the base
//     slice, no wakeup preemption inside a slice (RUN_TO_PARITY), a
//     sleeper's lag kept (PLACE_LAG).
//   - TS (Solaris time-sharing, ts_dptbl(4)): dispatch priority the CPU level
//     0..59 plus the hint's user priority, FIFO within a level, a quantum per
//     level, ts_tqexp, ts_slpret and ts_maxwait.
//
// Every dispatch costs CostProfile.SwitchCost (ContextSwitch, plus the
// refill of a thread's footprint that the other threads of its set of cores
// evicted from the set's caches: Thiébaut and Stone's footprint model); with CostProfile.RunqueueHold the wakes and
// switches take the CPUs' run-queue locks (try_to_wake_up, __schedule); with
// SetRemoteWake a wake onto an idle CPU pays its interrupt. Durations are
// drawn in [0.5, 1.5) × their nominal value (Engine.Jitter).
//
// # Threads and ops
//
// A thread (AddThread) runs its program of Ops in a loop. The machine runs
// the ops of its own: CPU bursts, system calls by kind (SyscallKind), sleeps,
// InnoDB mutex locks and unlocks, priority changes, splits, the transaction
// count and the read view, units (OpDone). An op of another kind is run by
// the mechanism registered for it (Handle); without one it does nothing, or,
// for a kind that needs its mechanism (a device's read, a row lock, a
// socket), AddThread refuses it.
//
// # Synchronisation
//
// An InnoDB mutex (Mutex with Spin; mutex_enter in sync0sync.cc, MySQL
// 5.0–5.7) spins Config.SpinLoops rounds, yields, then sleeps on its event;
// its release wakes every waiter (WakeAll, os_event_set) or, with
// Config.BroadcastChain (Solaris libc's cond_broadcast), one after another. A
// pthread mutex (Spin false) goes straight to a futex wait and wakes one.
// With Config.SyncArray a wait, and in 5.0/5.1 a signal, goes through
// InnoDB's global wait array (sync0arr.c) and its one mutex. Taking a mutex
// on another core moves its lock word and data lines (CostProfile
// LineTransfer). Every futex wait and wake enters the kernel and takes its
// hash bucket's spinlock (kernel/futex/waitwake.c), whose hold grows with
// the spinners and, for a wake-all, with the waiters woken.
//
// # The kernel API
//
// A mechanism owns its per-thread state, indexed by thread id, and
// implements Stepper for the op kinds it registers: Step(id, op) reports
// whether the op is done; false means the mechanism stopped the thread
// (Burst, Syscall, Block, Sleep, FutexWait, FutexWake, Lock, Unlock) and Step
// is called again when the thread runs. A mechanism wakes threads (Wake,
// WakeSync, WakeGen), schedules events of its own on the engine (Engine),
// draws from the seeded source (Jitter, Rand), counts I/O (CountIO) and runs
// another mechanism's op inside its own (StepOp). Its futex words implement
// Futex. A SessionHost (MariaDB's thread pool) lends threads to sessions
// that have none (Session, Exec) and is told of the waits inside the server
// (WaitBegin, WaitEnd: thd_wait_begin and thd_wait_end). A Checker refuses
// ops its mechanism could not run.
//
// # The Go runtime layer
//
// SetGoRuntime turns a bare machine into one whose threads are goroutines
// locked to OS threads under Go's scheduler (runtime/proc.go): GOMAXPROCS
// Ps, exitsyscall, sysmon and retake, per-CPU run queues. A driver outside
// the package steps its threads on the layer (GoRuntime).
//
// Invalid configuration is a *FieldError naming the field and its allowed
// range, wrapping ErrInvalidConfig.
package machine
