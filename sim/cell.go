package sim

import (
	"fmt"
	"time"

	"github.com/innosim/innosim/aio"
	"github.com/innosim/innosim/concurrency"
	"github.com/innosim/innosim/prio"
)

// Cell is one simulated run: a workload with a number of client threads on a
// machine, with optionally a concurrency gate and a simulated-AIO array.
type Cell struct {
	// Workload is a built-in workload name (see Workloads).
	Workload string
	// Threads is the number of client threads (connections), 1..10000.
	Threads int
	// Machine is the machine; Machine.CPUs is the core count.
	Machine MachineConfig
	// Gate, when not nil, installs an innodb_thread_concurrency gate.
	Gate *GateConfig
	// AIO, when not nil, installs a simulated-AIO array with its handler threads.
	AIO *aio.Config
	// Device, when not nil, installs the storage device that the AIO handlers
	// and the workload's reads, writes and fsyncs wait for (Machine.SetDevice).
	Device *DeviceConfig
	// Warmup and Measure are the virtual durations of the warm-up and of the
	// measured window; zero means DefaultWarmup and DefaultMeasure.
	Warmup, Measure time.Duration
}

// GateConfig selects the gate's policy (PolicyQueue, PolicyAtomic or
// PolicyHandoff; see Machine.SetGate) and its concurrency.Config.
type GateConfig struct {
	Policy concurrency.Policy
	Config concurrency.Config
}

// Default durations of a cell's warm-up and measurement in virtual time.
const (
	DefaultWarmup  = 20 * time.Millisecond
	DefaultMeasure = 100 * time.Millisecond
)

// Run simulates the cell and returns its measurement. It returns an error
// wrapping ErrInvalidConfig (or the core package's) for a bad setting.
func (c Cell) Run() (Result, error) {
	if c.Threads < 1 || c.Threads > 10000 {
		return Result{}, fmt.Errorf("sim: Threads = %d, want 1..10000: %w", c.Threads, ErrInvalidConfig)
	}
	w, err := LookupWorkload(c.Workload)
	if err != nil {
		return Result{}, err
	}
	m, err := NewMachine(c.Machine)
	if err != nil {
		return Result{}, err
	}
	if c.Gate != nil {
		if err := m.SetGate(c.Gate.Policy, c.Gate.Config); err != nil {
			return Result{}, err
		}
	}
	if c.Device != nil {
		if err := m.SetDevice(*c.Device); err != nil {
			return Result{}, err
		}
	}
	if c.AIO != nil {
		// study D's tablespace: 48 tables of 5M rows of ~100 bytes, in pages
		if err := m.SetAIO(*c.AIO, 48*5_000_000/100); err != nil {
			return Result{}, err
		}
	}
	prog := w.Setup(m)
	start := prio.Normal
	if c.Machine.Priorities {
		start = prio.Wait
	}
	for range c.Threads {
		if err := m.AddThread(prog, start); err != nil {
			return Result{}, err
		}
	}
	wu, ms := c.Warmup, c.Measure
	if wu == 0 {
		wu = DefaultWarmup
	}
	if ms == 0 {
		ms = DefaultMeasure
	}
	return m.Run(wu, ms), nil
}
