// Package spec describes a machine by its spec sheet — what a user knows
// about a published box: sockets, cores, hardware threads, cache sizes,
// clock, kernel release — and derives from it the simulator's machine
// parameters, so that a prediction for a box nobody measured needs nothing
// fitted to that box's results.
//
// A Machine is read from a small text file (Parse, Load) of "key = value"
// lines; Machine.Derive turns it into Params: the CPUs and sockets the
// simulator schedules on, the caches a thread's footprint is refilled from,
// the cost profile of the kernel's entry path, and the fair scheduler's
// tunables of that kernel on that many CPUs (Sched, after
// kernel/sched/fair.c). What the spec sheet cannot give — a context
// switch's base cost, a line's refill time, a thread's footprint — comes
// from a calibration (innosim calibrate's profile), not from here.
//
// Derivation rules, by Params field (the simulator's field in brackets):
//
//   - CPUs [MachineConfig.CPUs] = sockets × cores_per_socket ×
//     threads_per_core: the logical CPUs Linux schedules on. A benchmark
//     that pins its client to some of them leaves the rest to the server
//     (ClientSplit).
//   - Sockets [MachineConfig.Sockets] = sockets.
//   - CostCaches [CostProfile.CacheL2, CostProfile.CacheLLC] = l2_per_core
//     times the cores, and l3_per_socket (l2_per_core on a part without an
//     L3) times the sockets, each times the share of the box's CPUs
//     simulated: the simulator counts every thread's footprint through one
//     pair of caches, the box a core's threads through its L2 and a
//     socket's through its L3.
//   - Profile [the cost profile's name]: "new-kernel" when page-table
//     isolation is on (pti), else "old-kernel".
//   - Sched: the fair class's defaults of the kernel release on CPUs online
//     CPUs (SchedOf), or the sched_* values the file gives, which are what
//     /proc/sys/kernel (before 6.6) or debugfs (from 6.6) report on the box.
//
// Values a file marks as assumed (the assumed key: those the published
// description of the box does not give) are carried to Params.Assumed, so
// that a prediction resting on them says so.
package spec
