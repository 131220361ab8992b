package spec

import (
	"errors"
	"fmt"
	"slices"
	"time"
)

// ErrInvalidConfig is wrapped by every error that reports a bad machine
// description; the message names the key (and, from a file, the line) and
// its allowed range.
var ErrInvalidConfig = errors.New("invalid config")

// Bounds of a machine description. The CPUs are the simulator's
// (MachineConfig.CPUs, 1..1024) and the cache sizes its cost profile's
// (0..1 GiB).
const (
	maxCPUs    = 1024
	maxSockets = 64
	maxCores   = 1024
	maxThreads = 8
	minCache   = 1 << 10
	maxCache   = 1 << 30
	maxClock   = 10.0
	minTunable = time.Microsecond
	maxTunable = time.Second
)

// FieldError is a description's value out of range. It wraps
// ErrInvalidConfig.
type FieldError struct {
	// Key is the key as a description file spells it (l2_per_core), or
	// empty when the fault is between keys (the CPUs of sockets ×
	// cores_per_socket × threads_per_core).
	Key string
	// Msg says what the value is and what is wanted.
	Msg string
}

// Error returns the message, prefixed with the package's name.
func (e *FieldError) Error() string { return "spec: " + e.Msg }

// Unwrap returns ErrInvalidConfig.
func (e *FieldError) Unwrap() error { return ErrInvalidConfig }

// Switch is a yes/no fact a description may leave out: Unknown, Off or On.
type Switch uint8

const (
	// Unknown: not given.
	Unknown Switch = iota
	// Off: given as off.
	Off
	// On: given as on.
	On
)

// String returns "unknown", "off" or "on".
func (s Switch) String() string {
	switch s {
	case Off:
		return "off"
	case On:
		return "on"
	}
	return "unknown"
}

// Machine is a box as its spec sheet and its operating system describe it.
// Sizes are bytes.
type Machine struct {
	// Name labels the machine in tables; it may be empty.
	Name string
	// Sockets, CoresPerSocket and ThreadsPerCore (hardware threads of a
	// core: 2 with Hyper-Threading or SMT on) make the logical CPUs Linux
	// schedules on: 1..64, 1..1024 and 1..8, at most 1024 CPUs in all.
	Sockets, CoresPerSocket, ThreadsPerCore int
	// L2PerCore is the unified L2 cache of one core (shared by its hardware
	// threads), 1 KiB..1 GiB; L3PerSocket the last-level cache of one
	// socket, 0 (none: the L2 is the last level) or L2PerCore..1 GiB. On a
	// part whose L3 is split among core complexes (AMD's CCDs), it is the
	// L3 one core can use.
	L2PerCore, L3PerSocket int64
	// ClockGHz is the base clock, (0, 10]; 0 when not known. Nothing is
	// derived from it yet: it labels the machine.
	ClockGHz float64
	// Kernel is the Linux release the box ran (uname -r).
	Kernel Kernel
	// PTI is whether the kernel's page-table isolation (the Meltdown
	// mitigation, mainline from 4.15, backported by distributions) was on:
	// it must be given for a kernel of 4.15 or later, where it depends on
	// the CPU (off on parts not affected by Meltdown); Unknown before 4.15
	// reads as Off.
	PTI Switch
	// HZ is the kernel's CONFIG_HZ (100, 250, 300 or 1000), or 0 when not
	// known.
	HZ int
	// SchedLatency, SchedMinGranularity and SchedWakeupGranularity (CFS,
	// before 6.6) or SchedBaseSlice (EEVDF, from 6.6) are the fair class's
	// tunables as the box reports them (/proc/sys/kernel/sched_*_ns before
	// 6.6, /sys/kernel/debug/sched/base_slice_ns after), already scaled by
	// its CPU count; 0 takes the release's defaults (SchedOf). Given, each
	// is 1µs..1s, and a CFS kernel needs all three.
	SchedLatency, SchedMinGranularity, SchedWakeupGranularity, SchedBaseSlice time.Duration
	// Assumed lists the keys of the description (as a file spells them)
	// whose values are not from the box's published description but
	// assumed, each at most once.
	Assumed []string
}

// CPUs returns the logical CPUs: Sockets × CoresPerSocket × ThreadsPerCore.
func (m Machine) CPUs() int { return m.Sockets * m.CoresPerSocket * m.ThreadsPerCore }

// Validate reports the first field out of range as a *FieldError naming it
// as a file spells its key (wrapping ErrInvalidConfig).
func (m Machine) Validate() error {
	bad := func(key string, v any, want string) error {
		return &FieldError{Key: key, Msg: fmt.Sprintf("%s = %v, want %s", key, v, want)}
	}
	switch {
	case m.Sockets < 1 || m.Sockets > maxSockets:
		return bad("sockets", m.Sockets, fmt.Sprintf("1..%d", maxSockets))
	case m.CoresPerSocket < 1 || m.CoresPerSocket > maxCores:
		return bad("cores_per_socket", m.CoresPerSocket, fmt.Sprintf("1..%d", maxCores))
	case m.ThreadsPerCore < 1 || m.ThreadsPerCore > maxThreads:
		return bad("threads_per_core", m.ThreadsPerCore, fmt.Sprintf("1..%d", maxThreads))
	case m.CPUs() > maxCPUs:
		return &FieldError{Msg: fmt.Sprintf("sockets × cores_per_socket × threads_per_core = %d CPUs, want at most %d", m.CPUs(), maxCPUs)}
	case m.L2PerCore < minCache || m.L2PerCore > maxCache:
		return bad("l2_per_core", m.L2PerCore, fmt.Sprintf("%d..%d bytes", minCache, maxCache))
	case m.L3PerSocket != 0 && (m.L3PerSocket < m.L2PerCore || m.L3PerSocket > maxCache):
		return bad("l3_per_socket", m.L3PerSocket, fmt.Sprintf("0 (no L3) or l2_per_core (%d)..%d bytes", m.L2PerCore, maxCache))
	case !(m.ClockGHz >= 0 && m.ClockGHz <= maxClock): // false for NaN
		return bad("clock_ghz", m.ClockGHz, "0 (unknown) or a clock in (0, 10]")
	case m.HZ != 0 && !slices.Contains([]int{100, 250, 300, 1000}, m.HZ):
		return bad("hz", m.HZ, "100, 250, 300 or 1000 (CONFIG_HZ)")
	case m.PTI > On:
		return bad("pti", m.PTI, "on or off")
	case m.PTI == Unknown && !m.Kernel.Before(kernelPTI):
		return &FieldError{Key: "kernel", Msg: fmt.Sprintf("kernel %v with no pti given: from 4.15 page-table isolation depends on the CPU (on where it is affected by Meltdown: /sys/devices/system/cpu/vulnerabilities/meltdown); want pti = on or off", m.Kernel)}
	}
	for _, t := range []struct {
		key string
		d   time.Duration
	}{
		{"sched_latency", m.SchedLatency}, {"sched_min_granularity", m.SchedMinGranularity},
		{"sched_wakeup_granularity", m.SchedWakeupGranularity}, {"sched_base_slice", m.SchedBaseSlice},
	} {
		if t.d != 0 && (t.d < minTunable || t.d > maxTunable) {
			return bad(t.key, t.d, fmt.Sprintf("%v..%v", minTunable, maxTunable))
		}
	}
	seen := map[string]bool{}
	for _, k := range m.Assumed {
		switch {
		case !slices.Contains(keys, k) || k == "assumed" || k == "name":
			return bad("assumed", k, "keys of the description: "+assumable())
		case seen[k]:
			return bad("assumed", k, "each key once")
		}
		seen[k] = true
	}
	_, err := m.Sched()
	return err
}

// Sched returns the fair class's tunables of the machine: the ones it
// gives, else its kernel's defaults on CPUs() CPUs (SchedOf), with the tick
// of its HZ. A CFS kernel (before 6.6) takes all three CFS tunables or
// none, an EEVDF kernel only sched_base_slice. An error is a *FieldError
// (wrapping ErrInvalidConfig) naming the key at fault.
func (m Machine) Sched() (Sched, error) {
	given := map[string]bool{
		"sched_latency": m.SchedLatency != 0, "sched_min_granularity": m.SchedMinGranularity != 0,
		"sched_wakeup_granularity": m.SchedWakeupGranularity != 0,
	}
	cfsKeys := []string{"sched_latency", "sched_min_granularity", "sched_wakeup_granularity"}
	var first, missing string
	for _, k := range cfsKeys {
		if given[k] && first == "" {
			first = k
		}
		if !given[k] && missing == "" {
			missing = k
		}
	}
	var s Sched
	switch {
	case m.Kernel.Before(kernel66) && m.SchedBaseSlice != 0:
		return Sched{}, &FieldError{Key: "sched_base_slice", Msg: fmt.Sprintf("sched_base_slice with kernel %v: the base slice is EEVDF's (6.6 on); before 6.6 give sched_latency, sched_min_granularity and sched_wakeup_granularity", m.Kernel)}
	case !m.Kernel.Before(kernel66) && first != "":
		return Sched{}, &FieldError{Key: first, Msg: fmt.Sprintf("%s with kernel %v: EEVDF (6.6 on) has no sched_latency, sched_min_granularity or sched_wakeup_granularity; give sched_base_slice", first, m.Kernel)}
	case first != "" && missing != "":
		return Sched{}, &FieldError{Key: first, Msg: fmt.Sprintf("%s without %s: want all of sched_latency, sched_min_granularity and sched_wakeup_granularity or none (the kernel's defaults)", first, missing)}
	case first != "":
		s = Sched{
			Policy: CFS, Latency: m.SchedLatency, MinGranularity: m.SchedMinGranularity, WakeupGranularity: m.SchedWakeupGranularity,
			// as sched_proc_update_handler recomputes it on a write
			NrLatency:     int((m.SchedLatency + m.SchedMinGranularity - 1) / m.SchedMinGranularity),
			SleeperCredit: m.SchedLatency / 2,
		}
	case m.SchedBaseSlice != 0:
		s = Sched{Policy: EEVDF, BaseSlice: m.SchedBaseSlice}
	default:
		var msg string
		if s, msg = schedOf(m.Kernel, m.CPUs()); msg != "" {
			return Sched{}, &FieldError{Key: "kernel", Msg: msg}
		}
	}
	if m.HZ > 0 {
		s.Tick = time.Second / time.Duration(m.HZ)
	}
	return s, nil
}
