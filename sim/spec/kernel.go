package spec

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"
	"time"
)

// Kernel is a Linux kernel release, major.minor.patch.
type Kernel struct {
	Major, Minor, Patch int
}

// ParseKernel reads a release as uname -r prints it: "2.6.32",
// "2.6.32-642.6.2.el6.x86_64", "6.8.0-60-generic", "6.8". What follows the
// first '-' or '+' (a distribution's build) is ignored; the patch level is
// 0 when not given. An error wraps ErrInvalidConfig.
func ParseKernel(s string) (Kernel, error) {
	v, _, _ := strings.Cut(s, "-")
	v, _, _ = strings.Cut(v, "+")
	parts := strings.Split(v, ".")
	if len(parts) < 2 || len(parts) > 3 {
		return Kernel{}, fmt.Errorf("spec: kernel %q, want a release such as 2.6.32 or 6.8.0-60-generic: %w", s, ErrInvalidConfig)
	}
	var n [3]int
	for i, p := range parts {
		x, err := strconv.Atoi(p)
		if err != nil || x < 0 || x > 1000 {
			return Kernel{}, fmt.Errorf("spec: kernel %q, want a release such as 2.6.32 or 6.8.0-60-generic: %w", s, ErrInvalidConfig)
		}
		n[i] = x
	}
	return Kernel{n[0], n[1], n[2]}, nil
}

// String returns the release as major.minor.patch.
func (k Kernel) String() string { return fmt.Sprintf("%d.%d.%d", k.Major, k.Minor, k.Patch) }

// Before reports whether k is an earlier release than o.
func (k Kernel) Before(o Kernel) bool {
	if k.Major != o.Major {
		return k.Major < o.Major
	}
	if k.Minor != o.Minor {
		return k.Minor < o.Minor
	}
	return k.Patch < o.Patch
}

// Kernel releases where the fair class's defaults change.
var (
	kernel2632  = Kernel{2, 6, 32}
	kernel2633  = Kernel{2, 6, 33}
	kernel32    = Kernel{3, 2, 0}
	kernel66    = Kernel{6, 6, 0}
	kernel615   = Kernel{6, 15, 0}
	kernelPTI   = Kernel{4, 15, 0}
	kernelFirst = kernel2632
)

// Policy is the fair class's algorithm.
type Policy uint8

const (
	// CFS is the Completely Fair Scheduler (2.6.23 to 6.5): the runnable
	// thread of least virtual runtime runs; a slice is the period shared by
	// the runnable threads; a woken thread preempts when its virtual
	// runtime is a wakeup granularity behind the running one's.
	CFS Policy = iota + 1
	// EEVDF is Earliest Eligible Virtual Deadline First (6.6 on): of the
	// eligible threads (lag ≥ 0), the one of earliest virtual deadline runs;
	// every thread asks for a base slice; with RUN_TO_PARITY (on by default)
	// a woken thread does not take the CPU from a running one of the same
	// slice before that one's slice is used.
	EEVDF
)

// String returns "cfs" or "eevdf".
func (p Policy) String() string {
	switch p {
	case CFS:
		return "cfs"
	case EEVDF:
		return "eevdf"
	}
	return fmt.Sprintf("policy(%d)", uint8(p))
}

// Sched is the fair class's tunables on a machine. Durations are what the
// kernel uses, after scaling by Factor.
type Sched struct {
	// Policy is CFS or EEVDF.
	Policy Policy
	// Factor is the tunables' scale, 1 + ilog2(min(CPUs, 8)): the default
	// SCHED_TUNABLESCALING_LOG of update_sysctl / get_update_sysctl_factor
	// (kernel/sched.c in 2.6.32 and 3.2, kernel/sched/fair.c after), which
	// counts every online CPU, whatever a process is pinned to. 0 when the
	// file gave the tunables.
	Factor int
	// Latency is sysctl_sched_latency, the period in which each of up to
	// NrLatency runnable threads runs once; MinGranularity is
	// sysctl_sched_min_granularity, the least slice; WakeupGranularity is
	// sysctl_sched_wakeup_granularity, how far (in virtual runtime of a
	// nice-0 thread) a woken thread must be behind the running one to
	// preempt it (wakeup_preempt_entity). CFS only.
	Latency, MinGranularity, WakeupGranularity time.Duration
	// NrLatency is sched_nr_latency, ⌈Latency / MinGranularity⌉: with more
	// runnable threads the period stretches to NrLatency × MinGranularity
	// (__sched_period). CFS only.
	NrLatency int
	// SleeperCredit is how far behind the run queue's least virtual runtime
	// a thread waking from a long sleep is placed (place_entity with
	// GENTLE_FAIR_SLEEPERS: half of Latency). CFS only; EEVDF keeps a
	// sleeper's lag instead (PLACE_LAG).
	SleeperCredit time.Duration
	// BaseSlice is sysctl_sched_base_slice, the slice every thread asks
	// for. EEVDF only.
	BaseSlice time.Duration
	// Tick is the scheduler tick, 1 s / CONFIG_HZ, or 0 when not known. A
	// slice ends at the first tick after it is used (check_preempt_tick and
	// update_curr run from the tick; HRTICK is off by default).
	Tick time.Duration
}

// TunableFactor returns 1 + ilog2(min(cpus, 8)) for cpus ≥ 1: the scale of
// the fair class's tunables on cpus online CPUs (1, 2, 3 and 4 from 8 CPUs
// on).
func TunableFactor(cpus int) int {
	c := min(max(cpus, 1), 8)
	return bits.Len(uint(c)) // 1 + ilog2(c)
}

// SchedOf returns the fair class's defaults of release k on cpus online
// CPUs, from the releases whose source was read:
//
//   - 2.6.32 (kernel/sched_fair.c of 2.6.32.69 and of RHEL 6's
//     2.6.32-642): latency 5 ms, min granularity 1 ms, wakeup granularity
//     1 ms, each × Factor; sched_nr_latency 5.
//   - 3.2 to 6.5 (kernel/sched_fair.c of 3.2.71, kernel/sched/fair.c up to
//     6.5): latency 6 ms, min granularity 0.75 ms, wakeup granularity 1 ms,
//     each × Factor; sched_nr_latency 8.
//   - 6.6 to 6.14 (EEVDF, kernel/sched/fair.c): base slice 0.75 ms × Factor.
//   - 6.15 on: base slice 0.70 ms × Factor (commit 2ae891b82695, "sched:
//     Reduce the default slice to avoid tasks getting an extra tick").
//
// Other releases (2.6.33 to 3.1, whose defaults were not read here, and
// anything before 2.6.32) are an error wrapping ErrInvalidConfig that asks
// for the tunables themselves, as are cpus outside 1..1024.
func SchedOf(k Kernel, cpus int) (Sched, error) {
	s, msg := schedOf(k, cpus)
	if msg != "" {
		return Sched{}, fmt.Errorf("spec: %s: %w", msg, ErrInvalidConfig)
	}
	return s, nil
}

// schedOf is SchedOf, returning what is wrong as a message.
func schedOf(k Kernel, cpus int) (Sched, string) {
	if cpus < 1 || cpus > maxCPUs {
		return Sched{}, fmt.Sprintf("%d CPUs, want 1..%d", cpus, maxCPUs)
	}
	f := TunableFactor(cpus)
	scale := func(d time.Duration) time.Duration { return d * time.Duration(f) }
	cfs := func(lat, gran, wake time.Duration) Sched {
		return Sched{
			Policy: CFS, Factor: f,
			Latency: scale(lat), MinGranularity: scale(gran), WakeupGranularity: scale(wake),
			NrLatency:     int((lat + gran - 1) / gran),
			SleeperCredit: scale(lat) / 2,
		}
	}
	switch {
	case k.Before(kernelFirst):
		return Sched{}, fmt.Sprintf("kernel %v: releases before %v are not modelled (CFS came in 2.6.23; its defaults before 2.6.32 were not read)", k, kernelFirst)
	case k.Before(kernel2633):
		return cfs(5*time.Millisecond, time.Millisecond, time.Millisecond), ""
	case k.Before(kernel32):
		return Sched{}, fmt.Sprintf("kernel %v: the fair class's defaults of 2.6.33 to 3.1 were not read; give sched_latency, sched_min_granularity and sched_wakeup_granularity (the box's /proc/sys/kernel/sched_*_ns)", k)
	case k.Before(kernel66):
		return cfs(6*time.Millisecond, 750*time.Microsecond, time.Millisecond), ""
	case k.Before(kernel615):
		return Sched{Policy: EEVDF, Factor: f, BaseSlice: scale(750 * time.Microsecond)}, ""
	}
	return Sched{Policy: EEVDF, Factor: f, BaseSlice: scale(700 * time.Microsecond)}, ""
}

// Period returns the time in which each of nr runnable threads of equal
// weight on one CPU runs once: CFS's __sched_period (Latency, or nr ×
// MinGranularity past NrLatency); under EEVDF, nr base slices.
func (s Sched) Period(nr int) time.Duration {
	nr = max(nr, 1)
	if s.Policy == EEVDF {
		return time.Duration(nr) * s.BaseSlice
	}
	if nr > s.NrLatency {
		return time.Duration(nr) * s.MinGranularity
	}
	return s.Latency
}

// Slice returns the slice of one of nr runnable threads of equal weight on
// one CPU: CFS's sched_slice, Period(nr) / nr; under EEVDF, the base slice.
func (s Sched) Slice(nr int) time.Duration {
	nr = max(nr, 1)
	if s.Policy == EEVDF {
		return s.BaseSlice
	}
	return s.Period(nr) / time.Duration(nr)
}

// TickSlice returns Slice(nr) as the tick ends it: rounded up to a whole
// number of ticks, as check_preempt_tick (CFS) and update_curr (EEVDF) look
// at a slice only from the scheduler tick. With Tick unknown (0) it is
// Slice(nr).
func (s Sched) TickSlice(nr int) time.Duration {
	sl := s.Slice(nr)
	if s.Tick <= 0 {
		return sl
	}
	return (sl + s.Tick - 1) / s.Tick * s.Tick
}
