package machine

import (
	"time"
)

// Config describes the simulated server: its cores, its scheduler, its
// costs and the InnoDB settings that shape lock behaviour.
type Config struct {
	// CPUs is the number of cores, 1..1024.
	CPUs int
	// Sockets is how many sockets the cores are split over, in equal runs
	// (cores 0..CPUs/Sockets-1 on the first); 0..CPUs and a divisor of CPUs,
	// 0 and 1 meaning one.
	// A cache line moving between sockets costs CostProfile.LineTransferRemote.
	Sockets int
	// ClientCPUs is how many more cores the machine has for the threads
	// added on ClientCores (AddThreadOn), which run there and nowhere else,
	// while every other thread runs on the CPUs: a benchmark client pinned
	// to cores of its own. 0..1024 − CPUs; 0 (the default) gives the
	// machine one set of cores. The client's cores' caches are their share
	// of CostProfile's: CacheL2 and CacheLLC × ClientCPUs / CPUs (the
	// profile's are the server's cores', spec.Params.CostCaches).
	ClientCPUs int
	// Scheduler is the CPU scheduler model (CFS, EEVDF or TS).
	Scheduler Scheduler
	// Fair is the tunables of CFS and EEVDF; the zero value is DefaultFair.
	Fair Fair
	// Costs is the cost profile; the zero value means OldKernel().
	Costs CostProfile
	// Priorities applies OpSetPrio (MySQL 5.1's thread priorities on); false is
	// --skip-thread-priority: the calls are not made.
	Priorities bool
	// SpinLoops is innodb_sync_spin_loops: spin rounds before a mutex waiter
	// sleeps, 0..10000. The zero value spins not at all; DefaultSpinLoops is 30.
	SpinLoops int
	// BroadcastChain: the release of a WakeAll mutex wakes its waiters one
	// after another, as Solaris libc does (Mutex has the mechanism); false
	// wakes them all in one futex call, as Linux does.
	BroadcastChain bool
	// SyncArray is the InnoDB version's global wait array, through which its
	// mutexes' waits (and in 5.0/5.1 their signals) go (SyncArray has the
	// steps and their sources). The zero value, SyncArrayNone, has none.
	SyncArray SyncArray
	// Seed seeds the machine's random source.
	Seed uint64
}

// DefaultSpinLoops is innodb_sync_spin_loops' default (30) in MySQL 5.1..8.0.
const DefaultSpinLoops = 30

// Validate reports the first field out of range as a *FieldError wrapping
// ErrInvalidConfig; the zero Costs is OldKernel's, which is valid.
func (c Config) Validate() error {
	_, err := c.validate()
	return err
}

func (c Config) validate() (Config, error) {
	if c.CPUs < 1 || c.CPUs > 1024 {
		return c, Invalid("CPUs", "sim: CPUs = %d, want 1..1024: %w", c.CPUs, ErrInvalidConfig)
	}
	if c.Sockets < 0 || c.Sockets > c.CPUs {
		return c, Invalid("Sockets", "sim: Sockets = %d, want 0..CPUs (%d): %w", c.Sockets, c.CPUs, ErrInvalidConfig)
	}
	if c.Sockets > 1 && c.CPUs%c.Sockets != 0 {
		return c, Invalid("Sockets", "sim: Sockets = %d, want a divisor of CPUs (%d): the cores are split over the sockets in equal runs: %w", c.Sockets, c.CPUs, ErrInvalidConfig)
	}
	if c.ClientCPUs < 0 || c.CPUs+c.ClientCPUs > 1024 {
		return c, Invalid("ClientCPUs", "sim: ClientCPUs = %d, want 0..%d (1024 cores in all with the CPUs, %d): %w", c.ClientCPUs, 1024-c.CPUs, c.CPUs, ErrInvalidConfig)
	}
	if c.Scheduler > EEVDF {
		return c, Invalid("Scheduler", "sim: Scheduler = %d, want cfs, ts or eevdf: %w", c.Scheduler, ErrInvalidConfig)
	}
	if err := c.Fair.validate(c.Scheduler); err != nil {
		return c, err
	}
	if c.SpinLoops < 0 || c.SpinLoops > 10000 {
		return c, Invalid("SpinLoops", "sim: SpinLoops = %d, want 0..10000: %w", c.SpinLoops, ErrInvalidConfig)
	}
	if err := c.SyncArray.validate(); err != nil {
		return c, err
	}
	if c.Costs == (CostProfile{}) {
		c.Costs = OldKernel()
	}
	return c, InField("Costs", c.Costs.Validate())
}

// Cat is an accounting category of CPU time: what a burst of a thread is
// charged to (Machine.Burst).
type Cat uint8

// The categories of CPU time.
const (
	CatUser         Cat = iota // the workload's own CPU bursts
	CatSys                     // system-call entry/exit and kernel work
	CatSwitch                  // context switches
	CatMutexSpin               // InnoDB mutex spin rounds
	CatFutexSpin               // waiting for a futex hash-bucket spinlock (raw_spin_lock)
	CatFutexHold               // holding a futex hash-bucket spinlock
	CatRunqueueSpin            // waiting for a CPU's run-queue lock (raw_spin_lock; rqlock.go)
	NumCats
)

// Result is what one run measured over its measurement window.
type Result struct {
	// Start is the machine's virtual clock at the start of the measured
	// window: for a cell, its whole warm-up (Cell.Warmup, or where its steady
	// warm-up ended).
	Start time.Duration
	// Elapsed is the measurement window in virtual time.
	Elapsed time.Duration
	// Units counts OpDone units completed in the window.
	Units uint64
	// Throughput is Units per second of virtual time.
	Throughput float64
	// CPU is the busy time of the server's cores by category, in ns (see the Share
	// methods): what ran inside the window, a burst running across its start
	// or its end counted for its part inside, so that Busy is at most
	// Capacity and back-to-back windows add up.
	CPU [NumCats]int64
	// Switches and Syscalls count context switches and system calls.
	Switches, Syscalls uint64
	// Events is how many engine events the whole run (warm-up included) took.
	Events uint64
	// Capacity is CPUs × Elapsed in ns: the CPU time available on the
	// server's cores.
	Capacity int64
	// ClientCPU is the busy time of the client's own cores
	// (MachineConfig.ClientCPUs), in ns; 0 without them (a client on the
	// server's cores is in CPU).
	ClientCPU int64
	// Reads, Writes and Fsyncs count the I/Os the device (device.Install)
	// completed in the window, and, without a device, those that started in
	// it at the cost profile's IOService.
	Reads, Writes, Fsyncs uint64
	// NotSteady is set by a cell whose steady warm-up found its output still
	// in its initial transient at its bound (sim.SteadyWarmup): the figures
	// are those of the last window it judged, which is no steady state, and
	// are to be reported as not steady, never as a figure.
	NotSteady bool
}

// IORates returns the device's reads, writes and fsyncs per second of the
// window.
func (r Result) IORates() (reads, writes, fsyncs float64) {
	s := r.Elapsed.Seconds()
	if s <= 0 {
		return 0, 0, 0
	}
	return float64(r.Reads) / s, float64(r.Writes) / s, float64(r.Fsyncs) / s
}

// Busy returns the CPU time used, in ns.
func (r Result) Busy() int64 {
	var s int64
	for _, v := range r.CPU {
		s += v
	}
	return s
}

// FutexSpinShare returns the share of busy CPU spent waiting for futex
// hash-bucket spinlocks (what perf attributes to raw_spin_lock), 0..1.
func (r Result) FutexSpinShare() float64 {
	if b := r.Busy(); b > 0 {
		return float64(r.CPU[CatFutexSpin]) / float64(b)
	}
	return 0
}

// RawSpinShare returns the share of busy CPU spent waiting for any raw
// spinlock the model has: the futex hash buckets' and the CPUs' run-queue
// locks (CostProfile.RunqueueHold), 0..1. It is what perf attributes to
// raw_spin_lock; without the run-queue lock it is FutexSpinShare.
func (r Result) RawSpinShare() float64 {
	if b := r.Busy(); b > 0 {
		return float64(r.CPU[CatFutexSpin]+r.CPU[CatRunqueueSpin]) / float64(b)
	}
	return 0
}

// Utilisation returns the busy share of the machine's CPU capacity, 0..1.
func (r Result) Utilisation() float64 {
	if r.Capacity > 0 {
		return float64(r.Busy()) / float64(r.Capacity)
	}
	return 0
}
