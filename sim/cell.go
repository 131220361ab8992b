package sim

import (
	"context"
	"fmt"
	"hash/fnv"
	"time"

	"github.com/innosim/innosim/aio"
	"github.com/innosim/innosim/concurrency"
	"github.com/innosim/innosim/mycnf"
	"github.com/innosim/innosim/prio"
	"github.com/innosim/innosim/sim/aiosim"
	"github.com/innosim/innosim/sim/bufpool"
	"github.com/innosim/innosim/sim/client"
	"github.com/innosim/innosim/sim/device"
	"github.com/innosim/innosim/sim/gate"
	"github.com/innosim/innosim/sim/machine"
	"github.com/innosim/innosim/sim/redolog"
	"github.com/innosim/innosim/sim/rowlock"
	"github.com/innosim/innosim/sim/threadpool"
	"github.com/innosim/innosim/sim/workload"
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
	// AIO, when not nil, installs an AIO array with its handler threads:
	// simulated or native by AIO.IO (see aiosim.Install).
	AIO *aio.Config
	// Device, when not nil, installs the storage device that the AIO handlers
	// and the workload's reads, writes and fsyncs wait for (device.Install).
	Device *DeviceConfig
	// Warmup and Measure are the virtual durations of the warm-up and of the
	// measured window; zero means DefaultWarmup and DefaultMeasure. Their sum
	// is at most math.MaxInt64 ns, the virtual clock's range.
	Warmup, Measure time.Duration
	// Steady, when not nil, goes on warming up after Warmup until MSER-5
	// finds the end of the cell's initial transient, and measures from there
	// (see SteadyWarmup); a cell still in its transient at Steady.Max
	// returns a Result with NotSteady set. Nil ends the warm-up at Warmup.
	Steady *SteadyWarmup
	// Log, when not nil, sets innodb_flush_log_at_trx_commit for the
	// workloads that commit through the redo log (redolog.Config); nil means
	// DefaultLogConfig.
	Log *LogConfig
	// ThreadHandling is MariaDB's thread_handling (default
	// OneThreadPerConnection); PoolOfThreads serves the workload through a
	// thread pool of ThreadPoolSize groups (see PoolOfThreads). A pool with a
	// Gate is refused.
	ThreadHandling ThreadHandling
	// ThreadPoolSize is thread_pool_size: 0 (the machine's CPUs, MariaDB's
	// default) or 1..MaxThreadPoolSize (128 for MariaDB 5.5 to 10.1).
	// ThreadPoolOversubscribe is thread_pool_oversubscribe: 0
	// (PoolOversubscribe) or 1..1000. ThreadPoolStallLimit is
	// thread_pool_stall_limit, check_stall's period (package threadpool): 0
	// (DefaultThreadPoolStallLimit, 500 ms) or whole milliseconds in
	// 1ms..MaxThreadPoolStallLimit. ThreadPoolMaxThreads is
	// thread_pool_max_threads: once the pool has that many workers,
	// create_worker adds none to a group that has its two (which may exceed
	// it): 0 (the release's default: 500 for MariaDB 5.5 to 10.1,
	// MaxThreadPoolMaxThreads after) or 1..MaxThreadPoolMaxThreads. All four
	// are read only with PoolOfThreads; Run refuses a value it would ignore.
	ThreadPoolSize          int
	ThreadPoolOversubscribe int
	ThreadPoolStallLimit    time.Duration
	ThreadPoolMaxThreads    int
	// Server is the server release the cell models, where the release
	// changes what the simulator runs: the source of its thread pool
	// (MariaDB 5.5 to 10.1 threadpool_unix.cc, later and the zero value
	// threadpool_generic.cc) and which waits it tells the pool, and the
	// statements' server-layer mutexes (workload.Env.Server). The zero value
	// (mysql of no version) runs the workloads' own programs.
	Server mycnf.Server
	// BufferPool is innodb_buffer_pool_size in bytes, at least 5 MiB; 0
	// means DefaultBufferPool. The bulk insert's sibling prefetch reads only
	// the siblings it does not find there (OpPrefetchSiblings), and the
	// pages a workload dirties take its frames (OpDirty, with a page
	// cleaner); no other workload reads it.
	BufferPool int64
	// Client, when not nil, runs the benchmark client on the machine: each
	// of the Threads connections is a server thread and a client thread
	// (client.Sockets.Add, the workload's program through client.ServerProgram),
	// and the sleep of each round trip with the client (SleepClient,
	// SleepLast) becomes the client thread's CPU and system calls. Run
	// refuses a Client for a workload with no round trip, or with think
	// time (SleepThink: read_ahead). Nil keeps the client off the machine,
	// its round trip a sleep.
	Client *ClientConfig
	// RemoteWake charges a wake onto another, idle CPU
	// (Machine.SetRemoteWake): the machine's FutexWakeCall and FutexWake.
	RemoteWake bool
}

// GateConfig selects the gate's policy (PolicyQueue, PolicyAtomic or
// PolicyHandoff; see gate.Install) and its concurrency.Config.
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
// wrapping ErrInvalidConfig (or the core package's) for a bad setting, and
// ctx.Err() when ctx ends before the cell does: the engine looks at ctx every
// few thousand events, so a canceled cell returns within milliseconds of wall
// time. Cancellation never changes the result of a cell that finishes.
func (c Cell) Run(ctx context.Context) (Result, error) {
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	if err := c.Validate(); err != nil {
		return Result{}, err
	}
	return c.run(ctx)
}

// run builds and runs a valid cell, as Run does.
func (c Cell) run(ctx context.Context) (Result, error) {
	b, err := c.build()
	if err != nil {
		return Result{}, err
	}
	m := b.m
	wu, ms := c.durations()
	m.Engine().SetDone(ctx.Done())
	var r Result
	if c.Steady != nil {
		r = b.runSteady(wu, ms, *c.Steady)
	} else {
		r = m.Run(wu, ms)
	}
	if m.Engine().Canceled() {
		return Result{}, ctx.Err()
	}
	return r, nil
}

// built is a cell's machine with the mechanisms the cell installed on it.
type built struct {
	m      *machine.Machine
	gate   *gate.Gate
	dev    *device.Device
	logCfg redolog.Config
	log    *redolog.Log // installed by the workload's first LogMutex
	rows   *rowlock.Locks
	pool   *bufpool.Pool
	array  aiosim.Array
	flush  *bufpool.FlushList
	socks  *client.Sockets
	tpool  *threadpool.Pool
	server mycnf.Server
}

// Server is workload.Env's: the cell's server release.
func (b *built) Server() mycnf.Server { return b.server }

// AddMutex is workload.Env's: the workload's own mutex.
func (b *built) AddMutex(mu machine.Mutex) int32 { return b.m.AddMutex(mu) }

// GateMutex is workload.Env's: the Queue gate's mutex, or −1.
func (b *built) GateMutex() int32 {
	if b.gate == nil {
		return -1
	}
	return b.gate.Mutex()
}

// LogMutex is workload.Env's: log_sys->mutex, the redo log installed on
// first use (its setting was checked before).
func (b *built) LogMutex() int32 {
	if b.log == nil {
		b.log, _ = redolog.Install(b.m, b.logCfg, b.dev)
	}
	return b.log.Mutex()
}

// build sets up the machine of a valid cell (Validate), ready to run: the
// mechanisms the cell and its workload's declaration ask for, then its
// threads. The layers' constructors check their own settings again, which
// Validate has checked; an error here is a cell Validate let through.
func (c Cell) build() (*built, error) {
	w, err := LookupWorkload(c.Workload)
	if err != nil {
		return nil, err
	}
	m, err := machine.New(c.Machine)
	if err != nil {
		return nil, err
	}
	b := &built{m: m, logCfg: DefaultLogConfig, server: c.Server}
	if c.Gate != nil {
		if b.gate, err = gate.Install(m, c.Gate.Policy, c.Gate.Config); err != nil {
			return nil, err
		}
	}
	if c.Device != nil {
		if b.dev, err = device.Install(m, *c.Device); err != nil {
			return nil, err
		}
	}
	if c.Log != nil {
		b.logCfg = *c.Log
	}
	b.logCfg.SrwMutex = workload.IsSrw(c.Server) // the server's release decides log_sys's mutex
	pool, page := c.BufferPool, int64(16<<10)
	if pool == 0 {
		pool = DefaultBufferPool
	}
	if c.AIO != nil && c.AIO.PageSize > 0 {
		page = c.AIO.PageSize
	}
	if b.pool, err = bufpool.New(pool, page); err != nil {
		return nil, err
	}
	if c.AIO != nil {
		if b.array, err = aiosim.Install(m, *c.AIO, cellTablespace, b.dev, b.pool); err != nil {
			return nil, err
		}
	}
	if w.Uses.RowLocks {
		if b.rows, err = rowlock.Install(m, w.Rows); err != nil {
			return nil, err
		}
	}
	if w.Uses.Dirties && b.array != nil {
		if b.flush, err = bufpool.AddCleaner(m, b.pool, b.array, b.dev); err != nil {
			return nil, err
		}
	}
	prog := w.Setup(b)
	if c.ThreadHandling == PoolOfThreads {
		// the requests reach the pool through sockets, from a client on the
		// machine or across the network: its groups' workers and listeners
		// serve them (package threadpool)
		if b.tpool, err = threadpool.Install(m, c.poolConfig()); err != nil {
			return nil, err
		}
		b.socks = b.tpool.Sockets()
	}
	start := prio.Normal
	if c.Machine.Priorities {
		start = prio.Wait
	}
	m.SetRemoteWake(c.RemoteWake)
	rtts, noRead := client.RoundTrips(prog)
	if c.Client != nil || b.tpool != nil {
		prog = client.ServerProgram(prog)
		if b.socks == nil {
			b.socks = client.Install(m, nil)
		}
	}
	for range c.Threads {
		var err error
		switch {
		case c.Client != nil:
			err = b.socks.Add(prog, start, *c.Client)
		case b.tpool != nil:
			err = b.socks.AddRemote(prog, rtts, noRead)
		default:
			err = m.AddThread(prog, start)
		}
		if err != nil {
			return nil, err
		}
	}
	return b, nil
}

// poolConfig returns the thread pool's settings of a PoolOfThreads cell,
// its source by the cell's release.
func (c Cell) poolConfig() threadpool.Config {
	return threadpool.Config{Release: poolRelease(c.Server), Size: c.ThreadPoolSize, Oversubscribe: c.ThreadPoolOversubscribe,
		StallLimit: c.ThreadPoolStallLimit, MaxThreads: c.ThreadPoolMaxThreads}
}

// poolRelease is the source of srv's thread pool: threadpool_unix.cc for
// MariaDB 5.5 to 10.1, threadpool_generic.cc for any other.
func poolRelease(srv mycnf.Server) threadpool.Release {
	if major, minor, ok := srv.Series(); ok && srv.Product == mycnf.MariaDB &&
		(major == 5 && minor >= 5 || major == 10 && minor <= 1) {
		return threadpool.Unix55
	}
	return threadpool.Generic
}

// cellTablespace is the pages a cell's AIO reads are drawn from: study D's
// tablespace, 48 tables of 5M rows of ~100 bytes.
const cellTablespace = 48 * 5_000_000 / 100

// DeviceUse is which of a storage device's service times
// (DeviceConfig.Read, Write and Fsync) a cell can wait for.
type DeviceUse struct{ Read, Write, Fsync bool }

// DeviceUse reports which kinds of I/O a cell of c can send to its device
// (Cell.Device), read off its workload's declaration and c's settings: reads
// from OpRead and the AIO array's read-aheads (OpPrefetch, and
// OpPrefetchSiblings but for a sibling known to be resident); writes from
// OpWrite and a page cleaner's pages (the write array, the doublewrite file
// and a user thread's single-page flush: a workload that dirties pages,
// OpDirty, with an AIO array); fsyncs from OpFsync, a commit through the
// redo log under innodb_flush_log_at_trx_commit = 1 (the log's write goes to
// the page cache; c.Log nil means 1) and the doublewrite's. A kind reported
// may not occur in a given run (a bulk insert whose siblings stay in the
// buffer pool reads nothing); one not reported never does. Errors are
// LookupWorkload's and aio.Config.Validate's.
func (c Cell) DeviceUse() (DeviceUse, error) {
	w, err := LookupWorkload(c.Workload)
	if err != nil {
		return DeviceUse{}, err
	}
	if c.AIO != nil {
		if err := c.AIO.Validate(); err != nil {
			return DeviceUse{}, err
		}
	}
	u, aio := w.Uses, c.AIO != nil
	cleaner := u.Dirties && aio // the page cleaner of the pages OpDirty dirties
	return DeviceUse{
		Read:  u.Reads || u.ReadAhead && aio,
		Write: u.Writes || cleaner,
		Fsync: u.Fsyncs || cleaner || u.LogCommit && (c.Log == nil || c.Log.FlushAtTrxCommit == 1),
	}, nil
}

// SeedFor returns the seed a sweep gives this cell for the user's seed: a hash
// of the cell's own parameters (workload, threads, machine but its Seed and
// the profile's Name, gate, AIO array but its Backend, device, durations with
// zero read as their defaults, the log setting and the buffer pool unless
// they are the defaults, thread handling, client, remote wake, steady
// warm-up) mixed with seed. A cell's result thus depends on what
// the cell is and on seed only, never on the other cells of its sweep or its
// place among them: the same cell alone or inside a bigger sweep gives the same
// figures. Two cells that differ in any parameter get unrelated seeds.
func (c Cell) SeedFor(seed uint64) uint64 {
	k := c
	k.Machine.Seed = 0
	if k.Machine.Costs == (CostProfile{}) {
		k.Machine.Costs = OldKernel()
	}
	k.Machine.Costs.Name = ""
	if k.Warmup == 0 {
		k.Warmup = DefaultWarmup
	}
	if k.Measure == 0 {
		k.Measure = DefaultMeasure
	}
	var gate, array any = "no gate", "no aio"
	if k.Gate != nil {
		gate = *k.Gate
	}
	if k.AIO != nil {
		a := *k.AIO
		a.Backend = nil // the simulator's own driver serves the requests
		array = a
	}
	// The key keeps the layout the hash had before Cell.Log, so that the
	// cells without one (and without a thread pool) keep their seeds; the device is hashed by value (its
	// pointer's address made the seed differ from run to run).
	key := struct {
		Workload        string
		Threads         int
		Machine         MachineConfig
		Gate            *GateConfig
		AIO             *aio.Config
		Device          *DeviceConfig
		Warmup, Measure time.Duration
	}{k.Workload, k.Threads, k.Machine, nil, nil, nil, k.Warmup, k.Measure}
	h := fnv.New64a()
	fmt.Fprintf(h, "%+v|%+v|%+v", key, gate, array)
	if k.Device != nil {
		fmt.Fprintf(h, "|device %+v", *k.Device)
	}
	if k.Log != nil && *k.Log != DefaultLogConfig { // nil means the default
		fmt.Fprintf(h, "|log %+v", *k.Log)
	}
	if k.ThreadHandling != OneThreadPerConnection || k.ThreadPoolSize != 0 {
		fmt.Fprintf(h, "|pool %v %d", k.ThreadHandling, k.ThreadPoolSize)
	}
	if k.ThreadPoolStallLimit != 0 || k.ThreadPoolMaxThreads != 0 {
		fmt.Fprintf(h, "|pool limits %v %d", k.ThreadPoolStallLimit, k.ThreadPoolMaxThreads)
	}
	if k.ThreadPoolOversubscribe != 0 {
		fmt.Fprintf(h, "|oversubscribe %d", k.ThreadPoolOversubscribe)
	}
	if k.Server != (mycnf.Server{}) {
		fmt.Fprintf(h, "|server %v", k.Server)
	}
	if k.Client != nil {
		fmt.Fprintf(h, "|client %+v", *k.Client)
	}
	if k.RemoteWake {
		fmt.Fprint(h, "|remote wake")
	}
	if k.Steady != nil {
		fmt.Fprintf(h, "|steady %+v", *k.Steady)
	}
	if k.BufferPool != 0 && k.BufferPool != DefaultBufferPool { // 0 means the default
		fmt.Fprintf(h, "|buffer pool %d", k.BufferPool)
	}
	return splitmix64(h.Sum64() ^ splitmix64(seed))
}

// splitmix64 is SplitMix64's finaliser (Steele, Lea and Flood, "Fast
// splittable pseudorandom number generators", 2014): it spreads every input bit
// over the output, so nearby seeds give unrelated streams.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}
