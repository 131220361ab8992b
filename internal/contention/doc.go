// Package contention measures how much of a program's CPU time goes to futex and
// runtime-lock code, from a CPU profile read with github.com/google/pprof/profile.
//
// The figure is the analogue of study D's headline: with 16 + 16 simulated-AIO
// handler threads, perf showed the kernel's futex spinlock (raw_spin_lock under
// futex_wake) as the hottest symbol at 57% of CPU, and 7.6% with 4 + 4. A Go CPU
// profile cannot see inside the kernel, but it sees the user-space frames that lead
// there: a sample whose stack passes through runtime.futex, runtime.lock2,
// sync.(*Mutex).lockSlow or our own internal/futex system calls was spent getting
// into, out of or spinning before the same futex code. The share of such samples
// ("futex-share", in percent) is what a benchmark reports next to ns/op, so that a
// wake policy that makes handlers fight over locks shows as a number, not a hunch.
//
// The frames that count are a documented list (Frames): exact function names and
// package prefixes, each with the reason it is there. A sample counts once however
// many listed frames its stack holds; Top gives the per-function breakdown that
// `innosim profile FILE.pprof` prints (Run).
//
// Measure runs a function under runtime/pprof's CPU profiler. Only one CPU profile
// may run in a process at a time, so under `go test -cpuprofile` Measure returns
// ErrProfilerBusy without running the function, and the caller decides whether to
// run it unmeasured. The profiler samples every 10 ms of CPU time (100 Hz), so a
// measured run needs a few hundred milliseconds of CPU before the share means much;
// Share.Samples says how many samples stand behind a percentage.
package contention
