package sim

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/innosim/innosim/mycnf"
	"github.com/innosim/innosim/sim/bufpool"
	"github.com/innosim/innosim/sim/client"
	"github.com/innosim/innosim/sim/gate"
	"github.com/innosim/innosim/sim/machine"
	"github.com/innosim/innosim/sim/threadpool"
	"github.com/innosim/innosim/sim/workload"
)

// FieldError is a cell's setting out of its range (machine.FieldError):
// Field is the setting's path in the Cell ("Threads", "Machine.CPUs",
// "Machine.Costs.syscall", "Device.Units", "Client.Event", "Steady.Max",
// "ThreadPoolSize"), and the message names the setting, its value and the
// range it wants. It wraps ErrInvalidConfig; a steady warm-up that can have
// no steady pair wraps ErrNotSteady too.
type FieldError = machine.FieldError

// Validate reports what Run would refuse, without building the cell's
// machine: a *FieldError naming the first setting out of its range, or nil.
// RunCells validates every cell once, before the first runs.
func (c Cell) Validate() error {
	if c.Warmup < 0 || c.Measure < 0 {
		field := "Warmup"
		if c.Warmup >= 0 {
			field = "Measure"
		}
		return machine.Invalid(field, "sim: Warmup = %v, Measure = %v, want ≥ 0: %w", c.Warmup, c.Measure, ErrInvalidConfig)
	}
	wu, ms := c.durations()
	if ms > math.MaxInt64-wu { // the run's end would overflow the clock
		return machine.Invalid("Measure", "sim: Warmup + Measure = %v + %v, want at most %v, the virtual clock's range: %w", wu, ms, time.Duration(math.MaxInt64), ErrInvalidConfig)
	}
	if c.Steady != nil {
		if err := c.Steady.validate(wu, ms); err != nil {
			return machine.InField("Steady", err)
		}
	}
	if c.Threads < 1 || c.Threads > 10000 {
		return machine.Invalid("Threads", "sim: Threads = %d, want 1..10000: %w", c.Threads, ErrInvalidConfig)
	}
	w, err := LookupWorkload(c.Workload)
	if err != nil {
		return machine.InField("Workload", err)
	}
	if err := c.validateLayers(); err != nil {
		return err
	}
	if err := c.validateUses(w); err != nil {
		return err
	}
	if err := c.validateThreadHandling(); err != nil {
		return err
	}
	if c.Client != nil {
		if err := c.validateClient(w); err != nil {
			return machine.InField("Client", err)
		}
	}
	if c.Steady != nil {
		threads, clients := c.threads(w)
		return checkSteadyRoom(c.Machine, threads, clients, wu, ms, *c.Steady)
	}
	return nil
}

// CellError is RunCells' refusal of one cell of a sweep, before any cell
// runs: Index is the cell's place in the sweep (from 0) of Len cells, and Err
// is its Validate error (a *FieldError). A command that built the sweep maps
// it back to the cell's place in its own terms.
type CellError struct {
	Index, Len int
	Err        error
}

// Error returns "cell I of N: " and Err's message, I counted from 1.
func (e *CellError) Error() string {
	return fmt.Sprintf("cell %d of %d: %v", e.Index+1, e.Len, e.Err)
}

// Unwrap returns Err.
func (e *CellError) Unwrap() error { return e.Err }

// durations returns the cell's warm-up and measurement, zero read as the
// defaults.
func (c Cell) durations() (warmup, measure time.Duration) {
	warmup, measure = c.Warmup, c.Measure
	if warmup == 0 {
		warmup = DefaultWarmup
	}
	if measure == 0 {
		measure = DefaultMeasure
	}
	return warmup, measure
}

// validateLayers checks each layer's own settings: the machine, the gate,
// the device, the log, the buffer pool and the AIO array.
func (c Cell) validateLayers() error {
	if err := c.Machine.Validate(); err != nil {
		return machine.InField("Machine", err)
	}
	if c.Gate != nil {
		if err := gate.Validate(c.Gate.Policy, c.Gate.Config); err != nil {
			return machine.InField("Gate", err)
		}
	}
	if c.Device != nil {
		if err := c.Device.Validate(); err != nil {
			return machine.InField("Device", err)
		}
	}
	if c.Log != nil {
		if err := c.Log.Validate(); err != nil {
			return machine.InField("Log", err)
		}
	}
	pool, page := c.BufferPool, int64(16<<10)
	if pool == 0 {
		pool = DefaultBufferPool
	}
	if c.AIO != nil && c.AIO.PageSize > 0 {
		page = c.AIO.PageSize
	}
	if _, err := bufpool.New(pool, page); err != nil {
		return machine.InField("BufferPool", err)
	}
	if c.AIO != nil {
		if err := c.AIO.Validate(); err != nil {
			return machine.InField("AIO", err)
		}
	}
	return nil
}

// validateUses checks the cell's settings against what its workload
// declares it uses (workload.Uses): a client needs a round trip to take,
// a gate a workload that enters it, a device a workload that waits for one.
func (c Cell) validateUses(w Workload) error {
	u := w.Uses
	switch {
	case c.Client != nil && u.Think > 0:
		return machine.Invalid("Client", "sim: Client with workload %s, which has no benchmark client to put on the machine: its %v wait is think time (SleepThink), its own threads' pause, not a round trip to a client: want no Client: %w",
			c.Workload, u.Think, ErrInvalidConfig)
	case c.Client != nil && !u.RoundTrip:
		return machine.Invalid("Client", "sim: Client with workload %s, which has no client round trip (no wait for its client) to put a client on: want no Client: %w",
			c.Workload, ErrInvalidConfig)
	case c.Gate != nil && !u.Gate:
		return machine.Invalid("Gate", "sim: Gate (innodb_thread_concurrency = %d) with workload %s, which never enters InnoDB's gate: want no Gate, or a workload that enters it: %w",
			c.Gate.Config.Limit, c.Workload, ErrInvalidConfig)
	case c.Device == nil && (u.Reads || u.Writes || u.Fsyncs):
		return machine.Invalid("Device", "sim: workload %s waits for the device (its %s): want a Device: %w", c.Workload, ioKinds(u), ErrInvalidConfig)
	case c.Device == nil && u.LogCommit && (c.Log == nil || c.Log.FlushAtTrxCommit == 1):
		return machine.Invalid("Device", "sim: workload %s with innodb_flush_log_at_trx_commit = 1 fsyncs the log at every commit: want a Device, or innodb_flush_log_at_trx_commit = 0 or 2: %w", c.Workload, ErrInvalidConfig)
	}
	return nil
}

// ioKinds names the synchronous I/O a workload's program waits for
// ("reads", "reads and fsyncs").
func ioKinds(u workload.Uses) string {
	var kinds []string
	for _, k := range []struct {
		does bool
		name string
	}{{u.Reads, "reads"}, {u.Writes, "writes"}, {u.Fsyncs, "fsyncs"}} {
		if k.does {
			kinds = append(kinds, k.name)
		}
	}
	return strings.Join(kinds, " and ")
}

// validateThreadHandling checks the thread pool's settings.
func (c Cell) validateThreadHandling() error {
	switch c.ThreadHandling {
	case OneThreadPerConnection:
		for _, f := range []struct {
			name string
			v    any
			set  bool
		}{{"ThreadPoolSize", c.ThreadPoolSize, c.ThreadPoolSize != 0}, {"ThreadPoolOversubscribe", c.ThreadPoolOversubscribe, c.ThreadPoolOversubscribe != 0},
			{"ThreadPoolStallLimit", c.ThreadPoolStallLimit, c.ThreadPoolStallLimit != 0}, {"ThreadPoolMaxThreads", c.ThreadPoolMaxThreads, c.ThreadPoolMaxThreads != 0}} {
			if f.set {
				return machine.Invalid(f.name, "sim: %s = %v with one-thread-per-connection, want 0 (thread_pool_* is read only with pool-of-threads): %w",
					f.name, f.v, ErrInvalidConfig)
			}
		}
	case PoolOfThreads:
		if c.Gate != nil {
			return machine.Invalid("ThreadHandling", "sim: ThreadHandling = pool-of-threads with a Gate (innodb_thread_concurrency = %d): want one of the two (MariaDB 10.11 has no innodb_thread_concurrency): %w", c.Gate.Config.Limit, ErrInvalidConfig)
		}
		return threadpool.Validate(c.poolConfig(), c.Machine.CPUs)
	default:
		return machine.Invalid("ThreadHandling", "sim: ThreadHandling = %d, want one-thread-per-connection or pool-of-threads: %w", c.ThreadHandling, ErrInvalidConfig)
	}
	return nil
}

// validateClient checks the client's settings against the program its
// connections run, as the machine's sockets would when they add one.
func (c Cell) validateClient(w Workload) error {
	costs := c.Machine.Costs
	if costs == (CostProfile{}) {
		costs = OldKernel()
	}
	env := &countingEnv{gate: -1, server: c.Server}
	if c.Gate != nil {
		env.gate = env.AddMutex(machine.Mutex{})
	}
	pooled := c.ThreadHandling == PoolOfThreads
	_, _, err := client.Prepare(client.ServerProgram(w.Setup(env)), *c.Client, &costs, pooled)
	return err
}

// countingEnv is a workload's Env without a machine: its mutexes are
// numbered, and nothing is installed. A program it sets up has the shape the
// cell's machine runs.
type countingEnv struct {
	mutexes, gate, log int32
	server             mycnf.Server
}

func (e *countingEnv) Server() mycnf.Server { return e.server }

func (e *countingEnv) AddMutex(machine.Mutex) int32 {
	e.mutexes++
	return e.mutexes - 1
}

func (e *countingEnv) GateMutex() int32 { return e.gate }

func (e *countingEnv) LogMutex() int32 {
	if e.log == 0 {
		e.log = e.AddMutex(machine.Mutex{}) + 1
	}
	return e.log - 1
}

// threads is how many threads a valid cell's machine has when it starts on
// the server's cores and on the client's (MachineConfig.ClientCPUs): the
// AIO array's handlers, a page cleaner, the log's master thread, the pool's first two workers a
// group, and a thread a connection, and with a Client a client thread a
// connection, on the client's cores when the machine has them.
func (c Cell) threads(w Workload) (server, clients int) {
	n := 0
	if c.AIO != nil {
		n += c.AIO.Segments()
		if w.Uses.Dirties {
			n++
		}
	}
	if w.Uses.LogCommit && c.Log != nil && c.Log.FlushAtTrxCommit != 1 {
		n++ // InnoDB's master thread, which flushes the log once a second (redolog.Install)
	}
	pooled := c.ThreadHandling == PoolOfThreads
	if pooled {
		size := c.ThreadPoolSize
		if size == 0 {
			size = c.Machine.CPUs
		}
		n += 2 * size
	}
	if !pooled {
		n += c.Threads
	}
	if c.Client == nil {
		return n, 0
	}
	if c.Machine.ClientCPUs > 0 {
		return n, c.Threads
	}
	return n + c.Threads, 0
}

// Both Envs a workload's Setup is given.
var (
	_ workload.Env = (*built)(nil)
	_ workload.Env = (*countingEnv)(nil)
)
