package sim

import (
	"fmt"

	"github.com/innosim/innosim/sim/machine"
	"github.com/innosim/innosim/sim/spec"
)

// MachineFromSpec returns the machine a box described by its spec sheet
// (package spec: spec.Load, spec.Machine.Derive) gives a cell, with
// clientCPUs of its CPUs the benchmark client's own (0: the client, if any,
// on the server's; spec.ClientSplit gives a quarter, as MariaDB's
// thread-pool benchmarks pinned sysbench):
//
//   - CPUs the box's logical CPUs less clientCPUs, ClientCPUs clientCPUs,
//     Sockets the box's (its sockets must divide the server's CPUs);
//   - the scheduler and its tunables from the kernel release on that many
//     online CPUs (spec.Params.Sched: CFS before 6.6, EEVDF from it);
//   - the cost profile of the kernel's entry path (spec.Params.Profile:
//     "new-kernel" with page-table isolation, else "old-kernel"), with the
//     caches of the server's share of the box (spec.Params.CostCaches);
//   - from calib, when not nil, the footprint model a spec sheet cannot
//     give: SwitchFootprint, RefillLLC and RefillMemory, measured by innosim
//     calibrate on another machine (a line's refill in ns moved between
//     boxes is an assumption: docs/decisions/switch-cache-footprint.md).
//     Without it a switch refills nothing.
//
// SpinLoops, Priorities, SyncArray and the seed are the cell's, not the
// box's. An error wraps ErrInvalidConfig and names what is out of range.
func MachineFromSpec(p spec.Params, calib *CostProfile, clientCPUs int) (MachineConfig, error) {
	if clientCPUs < 0 || clientCPUs >= p.CPUs {
		return MachineConfig{}, machine.Invalid("ClientCPUs", "sim: %d of %s's %d CPUs for the client, want 0..%d (the server keeps at least one): %w",
			clientCPUs, p.Name, p.CPUs, p.CPUs-1, ErrInvalidConfig)
	}
	cpus := p.CPUs - clientCPUs
	if p.Sockets > 1 && cpus%p.Sockets != 0 {
		return MachineConfig{}, machine.Invalid("Sockets", "sim: %s's %d sockets do not divide the server's %d CPUs (%d of %d for the client): want a client share that leaves a multiple of the sockets: %w",
			p.Name, p.Sockets, cpus, clientCPUs, p.CPUs, ErrInvalidConfig)
	}
	costs, err := machine.Profile(p.Profile)
	if err != nil {
		return MachineConfig{}, err
	}
	if calib != nil {
		costs.SwitchFootprint, costs.RefillLLC, costs.RefillMemory = calib.SwitchFootprint, calib.RefillLLC, calib.RefillMemory
		costs.Name = fmt.Sprintf("%s (footprints of %s)", costs.Name, calib.Name)
	}
	if costs.CacheL2, costs.CacheLLC, err = p.CostCaches(cpus); err != nil {
		return MachineConfig{}, fmt.Errorf("sim: %w: %w", err, ErrInvalidConfig)
	}
	cfg := MachineConfig{CPUs: cpus, ClientCPUs: clientCPUs, Sockets: p.Sockets, Costs: costs}
	s := p.Sched
	switch s.Policy {
	case spec.CFS:
		cfg.Scheduler = CFS
		cfg.Fair = machine.Fair{Latency: s.Latency, MinGranularity: s.MinGranularity, WakeupGranularity: s.WakeupGranularity,
			NrLatency: s.NrLatency, SleeperCredit: s.SleeperCredit}
	case spec.EEVDF:
		cfg.Scheduler = EEVDF
		cfg.Fair = machine.Fair{BaseSlice: s.BaseSlice}
	default:
		return MachineConfig{}, fmt.Errorf("sim: %s's scheduler %v, want cfs or eevdf: %w", p.Name, s.Policy, ErrInvalidConfig)
	}
	return cfg, cfg.Validate()
}
