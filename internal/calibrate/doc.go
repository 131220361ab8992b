// Package calibrate measures what this machine charges for the operations the
// simulator's cost model prices: handing control from one goroutine to another,
// from one locked OS thread to another, a futex wake onto the waker's own CPU and
// onto another one, how often a woken thread preempts its waker, a system call, a
// context switch, a contended mutex handoff, and how long Go's sysmon sleeps
// between rounds.
//
// The simulator (package sim) predicts how long a mechanism takes by charging each
// lock, wake, context switch and system call from a cost model; `innosim
// calibrate` fills that model from this machine so that a prediction can be held
// against a benchmark on the same cores. Study C is why the figures are measured
// rather than assumed: the same code lost about 27% of its connect rate when the
// kernel gained CPU-vulnerability mitigations, because those make exactly these
// operations (system calls, context switches) dearer.
//
// Each figure is a Measurement: the median over Options.Repeats measurements, each
// the mean over Options.Rounds operations, with the quartiles and extremes as its
// spread (quantiles from gonum/stat, linear interpolation). A median over
// repeats rather than one long run keeps a burst of interference (another
// process, a GC cycle, a migration) from moving the figure; the spread shows how
// much there was. The first repeat of each figure is a discarded warm-up, which
// brings threads into existence and pages into memory.
//
// How each figure is taken:
//
//	GoroutineHandoff     half a ping-pong round trip over two unbuffered channels
//	                     between two goroutines (the runtime's direct handoff, no OS)
//	LockedThreadHandoff  the same with both goroutines locked to OS threads, so each
//	                     handoff parks one thread and wakes the other through futexes
//	FutexRoundTrip       a full round trip on two internal/futex.Events between two
//	                     locked threads pinned to one CPU: set, wake, set back, wake,
//	                     as an AIO handler is woken and answers; every wake is local
//	WakePreempt          in the same ping-pong, the share of wakes in which the woken
//	                     thread preempts its waker as the FUTEX_WAKE returns, from the
//	                     futex calls per round trip: 2 if every wake preempts (the
//	                     woken side answers before the waker sleeps), 4 if none does,
//	                     4/(1+p) for a share p
//	FutexLoadedHandoff   half a round trip of four such ping-pongs pinned to one CPU
//	                     at once: with other threads ready, a woken thread waits its
//	                     turn, so a handoff is a FUTEX_WAKE, a FUTEX_WAIT and a switch
//	FutexWakeCall        the waker's time inside a Set that wakes a thread sleeping
//	                     on another CPU, idle for 30 µs (both pinned; the waker runs):
//	                     the interrupt to that CPU, a hypervisor exit on a VM
//	FutexRemoteWake      in the same exchange, from the Set's start to the sleeper
//	                     running (at most 200 wakes per measurement)
//	Syscall              getppid(2) through golang.org/x/sys/unix, a system call
//	                     that does no work, so the figure is entry and exit
//	ContextSwitch        half a round trip of one byte over two blocking pipes
//	                     between two locked threads (lmbench's lat_ctx shape):
//	                     a write, a wake-up, a switch to the reader
//	MutexHandoff         one Lock/Unlock of a sync.Mutex shared by 2×GOMAXPROCS
//	                     goroutines with an empty critical section, per acquisition
//	                     (100× Rounds acquisitions each, so that they overlap)
//	SysmonTick           a nanosleep(2) of 20 µs on a locked thread, the sleep Go's
//	                     sysmon takes between rounds (runtime/proc.go's usleep(20)):
//	                     the kernel's timer slack (50 µs by default) and a VM's
//	                     timer latency make it last about 110 µs on a 2-vCPU KVM
//	                     guest (at most 200 sleeps per measurement)
//	Ring                 one token pass around a ring of 2, 16, 128 and 1024
//	                     locked threads pinned to one CPU on futex.Events, each writing
//	                     0, 16 or 64 KiB (one byte a cache line, lat_ctx's -s
//	                     sizes) when the token reaches it (lmbench's lat_ctx):
//	                     a wake, a switch and the refill of what the other
//	                     threads evicted of the thread's own state and of its
//	                     working set; max(Rounds, 2 × threads) passes per
//	                     measurement. CacheL2 and CacheLLC, which the fit of
//	                     the refill needs, are read from sysfs, not measured
//
// The futex probes pin their threads (sched_setaffinity) because where the
// kernel puts a woken thread decides what the wake costs, and on a VM the two
// places differ by an order of magnitude: on a 2-vCPU KVM guest a wake onto the
// waker's CPU is a context switch of a few µs, one onto the other CPU costs the
// waker ~9 µs in the call and the wakee runs ~20 µs after it. Unpinned, a
// ping-pong settles on one CPU or on two for thousands of round trips at a
// time, and the figure is whichever it settled on. The pinned threads are
// never unlocked, so they exit with their goroutines rather than go back to
// the runtime with their affinity cut down. Where threads cannot be pinned
// (not Linux) or there is one CPU (the remote probes), the probe is skipped:
// its figure stays zero with n = 0. So is the sysmon tick off Linux, where the
// runtime does not sleep with nanosleep(2).
//
// Physics orders some of them on any machine: a system call is cheaper than a pipe
// round trip, which is at least two system calls and a wake-up; the tests check
// such orderings, never absolute numbers. WakePreempt is a Share (0..1), not a
// duration, summarized the same way.
//
// Costs.Profile turns the figures into the simulator's sim.CostProfile (its doc
// says which measurement feeds which field and why; what no probe measures keeps
// sim.OldKernel's value), and Costs.WriteProfile writes it in the file format
// sim.LoadProfile reads, with the environment fingerprint in its header: the file
// behind `innosim run --costs` and `innosim reproduce --costs`.
//
// Check holds the simulator against reality: aiobench.Predict predicts
// BenchmarkAIOWake in futex mode from the profile, testing.Benchmark runs the
// benchmark's own body (internal/aiobench.Wake, the code bench_aio_test.go runs),
// and the report gives predicted, measured and their ratio for each case and for
// the wake-all / targeted ratio, against its bounds (±35% per case, ±25% on
// the ratio). Both sides are averages over draws, because one run of this
// benchmark is a draw: the prediction is the mean of 64 seeded runs (each with
// its own placement of threads on CPUs), the measurement the median of Count
// runs of each case (5 by default, interleaved). Check is never run by the
// tests: it takes a minute and its verdict depends on the machine being quiet.
package calibrate
