// Package sim is the simulator's scenario layer: a Cell is one run of a
// workload on a described machine, with the InnoDB and MariaDB settings that
// shape it; RunCells runs a sweep of cells; CellFromSettings reads a cell's
// settings from a MySQL option file (package mycnf).
//
// # A cell
//
// A Cell names a built-in workload (package workload; Workloads,
// LookupWorkload), its client threads (connections) and the machine they run
// on (MachineConfig: cores, sockets, the CFS or TS scheduler, the cost
// profile, innodb_sync_spin_loops, the wait array, thread priorities), and
// optionally an innodb_thread_concurrency gate, an AIO array (simulated or
// native), a storage device, innodb_flush_log_at_trx_commit,
// innodb_buffer_pool_size, MariaDB's thread_handling and pool settings, the
// benchmark client on the machine (ClientConfig) and the cost of a wake onto
// an idle CPU (RemoteWake). A workload declares what it uses
// (workload.Uses: the gate, AIO, the log, the buffer pool, row locks, the
// device, a client round trip or think time); the cell installs what the
// declaration and its settings ask for, and refuses a setting the workload
// would ignore.
//
// The layers the cell builds on are packages of their own: machine (cores,
// schedulers, threads, costs, InnoDB mutexes, futexes, the wait array, and
// the kernel API every mechanism uses), device, redolog, rowlock, gate,
// bufpool, aiosim, client and threadpool (the mechanisms, each owning its
// per-thread state behind the machine's Stepper and small interfaces of its
// own) and workload (the programs). sim names their config types
// (MachineConfig, DeviceConfig, LogConfig, ClientConfig, ...) so that a cell
// is written with this package alone.
//
// # Validation, build, run
//
// Cell.Validate checks every setting without building the machine: each
// layer's own config, the settings against the workload's declaration, the
// pool's settings, the client against the program its connections run, and a
// steady warm-up's room. A bad setting is a *FieldError whose Field is the
// setting's path in the Cell (Threads, Machine.CPUs, Client.Event,
// Steady.Max, ...), whose message names the setting and its allowed range,
// and which wraps ErrInvalidConfig. Cell.Run validates, builds the machine
// once and runs the warm-up (fixed, Warmup, or until steady, Steady) and the
// measured window (Measure), returning a Result; RunCells validates every
// cell before the first runs, then builds and runs each in parallel.
//
// # Determinism
//
// A cell's machine runs on package engine's virtual clock and seeded random
// source: the same cell with the same seed gives the same Result, byte for
// byte. SeedFor derives a cell's seed from the cell and the user's seed, so
// a cell's figures do not depend on the other cells of its sweep, its place
// among them or GOMAXPROCS.
package sim
