package sim

import (
	"io"

	"github.com/innosim/innosim/sim/bufpool"
	"github.com/innosim/innosim/sim/client"
	"github.com/innosim/innosim/sim/device"
	"github.com/innosim/innosim/sim/machine"
	"github.com/innosim/innosim/sim/redolog"
	"github.com/innosim/innosim/sim/threadpool"
	"github.com/innosim/innosim/sim/workload"
)

// The settings a Cell is made of are the layers' own types; sim names them
// so that a cell is written with this package alone.
type (
	// MachineConfig is the machine's description (machine.Config).
	MachineConfig = machine.Config
	// CostProfile is what the machine charges (machine.CostProfile).
	CostProfile = machine.CostProfile
	// Scheduler is the CPU scheduler model (machine.Scheduler).
	Scheduler = machine.Scheduler
	// SyncArray is InnoDB's wait array model (machine.SyncArray).
	SyncArray = machine.SyncArray
	// Result is what a cell measured (machine.Result).
	Result = machine.Result
	// DeviceConfig is the storage device (device.Config).
	DeviceConfig = device.Config
	// ServiceDist is how a device draws its service times (device.ServiceDist).
	ServiceDist = device.ServiceDist
	// LogConfig is the redo log's commit setting (redolog.Config).
	LogConfig = redolog.Config
	// ClientConfig is the benchmark client on the machine (client.Config).
	ClientConfig = client.Config
	// Workload is a built-in load (workload.Workload).
	Workload = workload.Workload
	// Uses is what a workload declares it uses (workload.Uses).
	Uses = workload.Uses
)

// The schedulers, wait arrays and service distributions a cell names.
const (
	CFS                = machine.CFS
	TS                 = machine.TS
	EEVDF              = machine.EEVDF
	SyncArrayNone      = machine.SyncArrayNone
	SyncArray50        = machine.SyncArray50
	SyncArray55        = machine.SyncArray55
	ServiceUniform     = device.ServiceUniform
	ServiceFixed       = device.ServiceFixed
	ServiceExponential = device.ServiceExponential
)

// Defaults and bounds of a cell's settings.
const (
	// DefaultSpinLoops is innodb_sync_spin_loops' default (30).
	DefaultSpinLoops = machine.DefaultSpinLoops
	// DefaultBufferPool is innodb_buffer_pool_size's default, 128 MiB:
	// what Cell.BufferPool = 0 means.
	DefaultBufferPool = bufpool.DefaultBufferPool
	// PoolOversubscribe is thread_pool_oversubscribe's default (3).
	PoolOversubscribe = threadpool.PoolOversubscribe
	// DefaultThreadPoolStallLimit is thread_pool_stall_limit's default.
	DefaultThreadPoolStallLimit = threadpool.DefaultStallLimit
	// MaxThreadPoolStallLimit is thread_pool_stall_limit's largest value.
	MaxThreadPoolStallLimit = threadpool.MaxStallLimit
	// MaxThreadPoolMaxThreads is thread_pool_max_threads' largest value
	// and default.
	MaxThreadPoolMaxThreads = threadpool.MaxMaxThreads
)

// ErrInvalidConfig is wrapped by every error that reports a bad machine, cost
// profile, workload or experiment setting; the message names the field and
// its allowed range. It is the layers' one error (machine.ErrInvalidConfig).
var ErrInvalidConfig = machine.ErrInvalidConfig

// DefaultLogConfig is MySQL's default: innodb_flush_log_at_trx_commit = 1.
var DefaultLogConfig = redolog.DefaultConfig

// OldKernel is machine.OldKernel.
func OldKernel() CostProfile { return machine.OldKernel() }

// NewKernel is machine.NewKernel.
func NewKernel() CostProfile { return machine.NewKernel() }

// Profile is machine.Profile: the built-in profile of that name.
func Profile(name string) (CostProfile, error) { return machine.Profile(name) }

// LoadProfile is machine.LoadProfile: a cost profile from a file.
func LoadProfile(path string) (CostProfile, error) { return machine.LoadProfile(path) }

// LoadProfileDefaulted is machine.LoadProfileDefaulted.
func LoadProfileDefaulted(path string) (CostProfile, []string, error) {
	return machine.LoadProfileDefaulted(path)
}

// ParseProfile is machine.ParseProfile.
func ParseProfile(r io.Reader, name string) (CostProfile, error) {
	return machine.ParseProfile(r, name)
}

// ProfileKeys is machine.ProfileKeys.
func ProfileKeys() []string { return machine.ProfileKeys() }

// ParseScheduler is machine.ParseScheduler: "cfs" or "ts".
func ParseScheduler(s string) (Scheduler, error) { return machine.ParseScheduler(s) }

// LookupWorkload is workload.Lookup: the built-in workload called name.
func LookupWorkload(name string) (Workload, error) { return workload.Lookup(name) }

// WorkloadNames is workload.Names: the built-in workload names, sorted.
func WorkloadNames() []string { return workload.Names() }

// Workloads is workload.All: the built-in workloads, by name.
func Workloads() map[string]Workload { return workload.All() }
