package calibrate

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/innosim/innosim/internal/benchenv"
	"github.com/innosim/innosim/sim"
)

// Profile converts the measured costs into the simulator's cost profile, named
// name. Each figure's median feeds one field:
//
//	syscall         Syscall: getppid(2) is kernel entry and exit and nothing else,
//	                which is what the profile charges per system call
//	context_switch  FutexLoadedHandoff − 2 × Syscall: a handoff on a CPU shared
//	                by other runnable threads is the waker's FUTEX_WAKE, its
//	                FUTEX_WAIT and the switch to the next thread; what is left
//	                after the two calls is the switch (0 if negative)
//	wake_preempt    WakePreempt: the share of same-CPU wakes in which the woken
//	                thread preempts the waker
//	futex_wake_call FutexWakeCall: the waker's time in a FUTEX_WAKE that wakes a
//	                thread on another, idle CPU (the interrupt to that CPU)
//	futex_wake      FutexRemoteWake: from that call's start to the woken thread
//	                running on its CPU
//	thread_handoff  LockedThreadHandoff: a goroutine locked to its OS thread made
//	                runnable by another is run by handing a core to its thread,
//	                the path of a locked thread that wakes to find no core (P) free
//	mutex_handoff   MutexHandoff: a contended sync.Mutex acquisition
//	sysmon_tick     SysmonTick: how long the 20 µs sleep between two rounds of
//	                Go's sysmon really lasts (timer slack and, on a VM, the
//	                hypervisor's timer latency come on top of the request)
//	cache_l2,       CacheL2 and CacheLLC: the caches the threads' footprints
//	cache_llc       share (sysfs)
//	switch_footprint, refill_llc, refill_memory
//	                Ring: the footprint of a thread that touches nothing and
//	                the refill cost of a line from the LLC and from memory,
//	                fitted to the ring's passes at every working set and ring
//	                size by sim.CostProfile.SwitchCost's model (fitFootprint);
//	                kept 0, as OldKernel's, when the fit has too few rings or
//	                no cache sizes
//
// A figure whose probe could not run here (Repeats 0: the pinned futex probes
// off Linux, the remote wake on one CPU) keeps OldKernel's value, as do the
// fields no probe measures: futex_hold and futex_growth (a kernel spinlock's
// hold time cannot be seen from user space), spin_round (InnoDB's ut_delay
// loop, not Go code) and io_service (a device). GoroutineHandoff,
// FutexRoundTrip and ContextSwitch (lmbench's pipe measure) feed nothing: they
// are there to compare.
func (c Costs) Profile(name string) sim.CostProfile {
	p := sim.OldKernel()
	p.Name = name
	set := func(dst *time.Duration, m Measurement, v time.Duration) {
		if m.Repeats > 0 {
			*dst = max(v, 0)
		}
	}
	set(&p.Syscall, c.Syscall, c.Syscall.Median)
	set(&p.ContextSwitch, c.FutexLoadedHandoff, c.FutexLoadedHandoff.Median-2*p.Syscall)
	set(&p.FutexWakeCall, c.FutexWakeCall, c.FutexWakeCall.Median)
	set(&p.FutexWake, c.FutexRemoteWake, c.FutexRemoteWake.Median)
	set(&p.ThreadHandoff, c.LockedThreadHandoff, c.LockedThreadHandoff.Median)
	set(&p.MutexHandoff, c.MutexHandoff, c.MutexHandoff.Median)
	set(&p.SysmonTick, c.SysmonTick, c.SysmonTick.Median)
	p = fitFootprint(p, c.Ring, c.CacheL2, c.CacheLLC)
	if c.WakePreempt.Repeats > 0 {
		p.WakePreempt = c.WakePreempt.Median
	}
	return p
}

// WriteProfile writes c as a cost-profile file that sim.LoadProfile reads: a
// comment header with the environment fingerprint env (nil for none), each
// measurement with its spread, the load average and the noisy figures
// (Costs.Noisy), then Profile(name)'s key = value lines. It returns
// the first write error.
func (c Costs) WriteProfile(w io.Writer, name string, env benchenv.Fingerprint) error {
	var err error
	printf := func(format string, args ...any) {
		if err == nil {
			_, err = fmt.Fprintf(w, format, args...)
		}
	}
	printf("# cost profile measured by innosim calibrate\n")
	for _, l := range env {
		printf("# %s\n", l)
	}
	for _, r := range c.rows() {
		printf("# measured %s: %v\n", r.name, r)
	}
	measured, defaults := c.sources()
	for i, k := range measured {
		if from, ok := derivedFrom[k]; ok {
			measured[i] = k + " (" + from + ")"
		}
	}
	if l := c.Load.String(); l != "" {
		busy := ""
		if c.Load.Busy() {
			busy = ": busy, past twice the CPUs"
		}
		printf("# %s when measured%s\n", l, busy)
	}
	if noisy := c.Noisy(); len(noisy) > 0 {
		printf("# noisy, spread past ±%.0f%% between measurements: %s\n", 100*NoisySpread, strings.Join(noisy, ", "))
	}
	printf("# measured here: %s\n", strings.Join(measured, ", "))
	printf("# old-kernel defaults, not measured here: %s\n", strings.Join(defaults, ", "))
	if err != nil {
		return fmt.Errorf("calibrate: write profile: %w", err)
	}
	if _, err := c.Profile(name).WriteTo(w); err != nil {
		return fmt.Errorf("calibrate: %w", err)
	}
	return nil
}

// derivedFrom names the measurement a profile key is derived from when it is
// not the row of its own name ("measured context switch" is the pipe
// ping-pong's figure; the profile's context_switch is the loaded handoff's).
var derivedFrom = map[string]string{
	"context_switch": "futex loaded handoff − 2 × syscall",
}

// sources splits the profile's keys into those Profile takes from a
// measurement of c and those that keep OldKernel's value (no probe, or a probe
// that could not run here).
func (c Costs) sources() (measured, defaults []string) {
	repeats := map[string]int{
		"syscall": c.Syscall.Repeats, "context_switch": c.FutexLoadedHandoff.Repeats,
		"futex_wake_call": c.FutexWakeCall.Repeats, "futex_wake": c.FutexRemoteWake.Repeats,
		"thread_handoff": c.LockedThreadHandoff.Repeats, "mutex_handoff": c.MutexHandoff.Repeats,
		"wake_preempt": c.WakePreempt.Repeats, "sysmon_tick": c.SysmonTick.Repeats,
	}
	if fp := c.Profile(""); fp.RefillLLC+fp.RefillMemory > 0 { // the ring's fit took
		for _, k := range []string{"switch_footprint", "cache_l2", "cache_llc", "refill_llc", "refill_memory"} {
			repeats[k] = 1
		}
	}
	for _, k := range sim.ProfileKeys() {
		if repeats[k] > 0 {
			measured = append(measured, k)
		} else {
			defaults = append(defaults, k)
		}
	}
	return measured, defaults
}
