// Package prio carries per-thread priority hints and decides whether, and how,
// they reach the operating system's scheduler.
//
// # The model
//
// A Hint names what a thread is doing — MySQL 5.1's Interrupt, Connect, Query and
// Wait, RocksDB's Idle, Low, Normal and High, and Background for an engine's own
// flushing and read-ahead. Hints travel in contexts (WithHint, FromContext, and Do
// puts its hint in fn's). An admission queue and an AIO handler's pick favour
// urgent work without any system call, by the hint a caller sets on their own
// types (concurrency.Thread.Hint, aio.Request.Hint): neither reads a context, so
// a caller copies FromContext's hint there. Whether a hint also reaches the kernel
// is a Policy:
//
//	PolicyOff     never touch the OS                          MySQL since 5.1.29
//	PolicyLegacy  sched_setparam(QUERY_PRIOR / WAIT_PRIOR)    MySQL 5.1 (two calls per query)
//	PolicyNice    setpriority(PRIO_PROCESS, tid, Hint.Nice)   Percona / RocksDB per-thread nice
//	PolicyIdle    sched_setscheduler(SCHED_IDLE) for Background and below   RocksDB kIdle
//
// Study A (innosim reproduce a) is why the choice matters: on Solaris, MySQL 5.1's
// priorities cost a few percent below the core count (two system calls per query)
// and paid off only when threads outnumbered cores. A scheduler's priorities only decide who waits, and
// nobody waits while there are idle cores. On Linux the same calls never did
// anything: SCHED_OTHER accepts only sched_priority 0, so PolicyLegacy faithfully
// gets EINVAL, reports it and changes nothing. PolicyNice is the Linux mechanism
// that does work, because Linux nice is per thread (a tid is a PRIO_PROCESS id).
//
// # Policy core and drivers
//
// As elsewhere in innosim the decision is a pure core: Policy.Plan(hint, state,
// downward) returns the one system call (a Change) a policy makes for a thread in
// a given State, and RestorePlan the calls back to its base. The real driver is
// Thread, from Applier.Lock or Applier.Do: it locks the goroutine to its OS thread,
// reads the base state, makes the planned calls through the OS interface and
// records what the kernel accepted. The simulator (package sim) does not run a
// Policy: with MachineConfig.Priorities set it charges one set-priority system call
// for every change of hint (sim.OpSetPrio, as PolicyLegacy calls on every query)
// and schedules the thread by its hint's Weight (CFS) or TSLevel (Solaris TS),
// that is, as if every call took effect — true of MySQL 5.1's calls on Solaris,
// not on Linux, where PolicyLegacy's calls fail with EINVAL.
//
// The OS interface is six calls and nothing else (Gettid, Getpriority,
// Setpriority, Getscheduler, Setscheduler, Setparam), so that EPERM, EACCES and
// EINVAL are tested with a fake kernel on any machine and as any user; System
// returns the real calls on Linux and a layer that reports ErrNotSupported
// everywhere else (where setpriority names a whole process, not a thread).
//
// # Decisions
//
// A refusal is never fatal. Raising priority (lowering nice, leaving SCHED_IDLE)
// needs CAP_SYS_NICE or an RLIMIT_NICE allowance; without it the kernel refuses and
// changes nothing, the error (wrapping *OSError and the errno) goes back to the
// caller, the work runs anyway, and Thread.State reports the priority actually in
// force. Do joins the refusal to the work's own error.
//
// A changed thread never leaks. Thread.Unlock restores the base state before it
// unlocks; if restoring is refused the goroutine stays locked, and Go ends a
// thread whose goroutine exits locked, so no other goroutine runs at the priority.
// Threads the runtime creates are cloned from a clean template thread, not from a
// locked one, so they do not inherit it either.
//
// Calls are made only when they change something, except under PolicyLegacy, which
// reproduces MySQL's two calls on every query. The Downward option skips every call
// that would raise priority, as RocksDB's thread pool only lowers its threads' CPU
// priority (lazily, on the thread's next job); pair it with Thread.Release.
//
// # Mapping table
//
// Hint.Nice is innosim's table; its ends are RocksDB's port::SetCpuPriority (High
// -20, Normal 0, Low 19, Idle SCHED_IDLE). Hint.Weight is the CFS weight of that
// nice from the kernel's sched_prio_to_weight (nice 0 = 1024, ×1.25 per step; a
// SCHED_IDLE thread weighs IdleWeight = 3). Hint.TSLevel is the Solaris TS
// user-mode priority at class entry for that nice: ts_upri = -3 × nice (Solaris
// setpriority: -(ts_maxupri × nice)/20 with ts_maxupri 60), level = clamp(29 +
// ts_upri, 0, 59) (TS_NEWUMDPRI, entry ts_cpupri 29). LegacyPriority is MySQL
// 5.1's pthread priority on Unix; innosim assumes a SCHED_OTHER pthread priority
// lands in the TS class as the user priority ts_upri (the mapping ACE makes for
// the TS class; not checked against Solaris libc), so LegacyTSLevel = 29 + it.
//
//	hint        nice  CFS weight  TS level  MySQL 5.1 priority  its TS level
//	Idle         19¹       15         0     —                    29
//	Low          19        15         0     —                    29
//	Background   10       110         0     —                    29
//	Wait          0      1024        29     WAIT_PRIOR 8         37
//	Normal        0      1024        29     —                    29
//	Query        -5      3121        44     QUERY_PRIOR 6        35
//	Connect     -10      9548        59     CONNECT_PRIOR 9      38
//	High        -20     88761        59     —                    29
//	Interrupt   -20     88761        59     INTERRUPT_PRIOR 10   39
//
//	¹ under PolicyIdle, Idle, Low and Background run in SCHED_IDLE instead (weight 3)
//
// Two things the table shows. Under CFS a Query thread outweighs a Background one
// 3121 to 110, so when they share a core the query gets about 97% of it; when each
// has its own core the weights change nothing. And MySQL's own Unix numbers put a
// waiting thread (8) above an executing one (6), two TS levels apart out of 60 —
// the reverse of the Hint order, which follows the names (a query is more urgent
// than a wait). Wait is not below Normal in nice for the reason MySQL's numbers
// hint at: a waiting thread is asleep, so a weaker priority cannot free a CPU, it
// can only delay the thread's wake-up when the client's next query arrives (with
// Wait at nice 5, examples/priority ran slower under nice than with priorities off).
// The simulator can model either: TSLevel for the hint order, LegacyTSLevel for
// what MySQL 5.1 actually asked of Solaris.
package prio
