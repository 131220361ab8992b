package spec

import (
	"fmt"
	"slices"
)

// Params is what the simulator takes from a machine description (the
// derivation rules are in the package doc).
type Params struct {
	// Name is the machine's name.
	Name string
	// CPUs is the logical CPUs (MachineConfig.CPUs for the whole box),
	// Cores the physical cores and Sockets the sockets
	// (MachineConfig.Sockets).
	CPUs, Cores, Sockets int
	// L2PerCore is a core's L2 and LLCPerSocket the last-level cache one
	// core shares with the other cores of its socket (its L3, or its L2 on a
	// part without one), in bytes. CostCaches turns them into the cost
	// profile's.
	L2PerCore, LLCPerSocket int64
	// Profile names the built-in cost profile of the kernel's entry path:
	// "new-kernel" with page-table isolation on, else "old-kernel" (see
	// the simulator's OldKernel and NewKernel).
	Profile string
	// Sched is the fair class's tunables (Machine.Sched).
	Sched Sched
	// Assumed lists the description's assumed keys, in file order.
	Assumed []string
}

// Derive validates m and returns its Params; an error is Validate's.
func (m Machine) Derive() (Params, error) {
	if err := m.Validate(); err != nil {
		return Params{}, err
	}
	s, err := m.Sched()
	if err != nil {
		return Params{}, err
	}
	p := Params{
		Name: m.Name, CPUs: m.CPUs(), Cores: m.Sockets * m.CoresPerSocket, Sockets: m.Sockets,
		L2PerCore: m.L2PerCore, LLCPerSocket: m.L3PerSocket,
		Profile: "old-kernel", Sched: s, Assumed: slices.Clone(m.Assumed),
	}
	if p.LLCPerSocket == 0 {
		p.LLCPerSocket = p.L2PerCore
	}
	if m.PTI == On {
		p.Profile = "new-kernel"
	}
	return p, nil
}

// IsAssumed reports whether the description's value of key is assumed
// rather than published.
func (p Params) IsAssumed(key string) bool { return slices.Contains(p.Assumed, key) }

// CostCaches returns the cost profile's CacheL2 and CacheLLC for a
// simulated machine of cpus of the box's CPUs (all of them, or the
// server's share of ClientSplit), in bytes.
//
// The simulator's switch cost (CostProfile.SwitchCost) counts every
// thread's footprint as passing through one L2 and one last-level cache
// between two runs of a thread: exact for calibrate's ring, whose threads
// share one CPU, but on a box of many cores a thread's lines meet only the
// threads of its own core in the L2 and those of its own socket in the L3
// (each CPU has its run queue, and the load balancer spreads the threads
// evenly). With the threads spread evenly, 1/k of them through one cache
// evicts as much as all of them through k such caches; so the L2 is the
// box's L2s (a core's times Cores) and the last-level cache its L3s (a
// socket's times Sockets), each times the share cpus / CPUs of the box the
// simulated CPUs are: a client pinned to the other CPUs is taken to leave
// the server that share of every cache, which it only approximates (the
// client's own lines use some of it). It returns an error wrapping
// ErrInvalidConfig for cpus outside 1..CPUs.
func (p Params) CostCaches(cpus int) (l2, llc int64, err error) {
	if cpus < 1 || cpus > p.CPUs {
		return 0, 0, fmt.Errorf("spec: %d CPUs of %s's %d, want 1..%d: %w", cpus, p.Name, p.CPUs, p.CPUs, ErrInvalidConfig)
	}
	share := func(each int64, n int) int64 { return each * int64(n) * int64(cpus) / int64(p.CPUs) }
	return share(p.L2PerCore, p.Cores), share(p.LLCPerSocket, p.Sockets), nil
}

// FootprintsFit returns how many footprints of footprint bytes each (a
// thread's kernel stack and task, its user stack, the connection state it
// touches) fit in the caches of cpus of the box's CPUs (CostCaches): the
// thread counts past which a switch back to a thread finds its lines
// evicted from L2, and from the last-level cache, by those that ran
// between. A footprint of 0 or less fits without bound (-1, -1); cpus out
// of range is CostCaches' error.
func (p Params) FootprintsFit(footprint int64, cpus int) (l2, llc int64, err error) {
	cl2, cllc, err := p.CostCaches(cpus)
	if err != nil {
		return 0, 0, err
	}
	if footprint <= 0 {
		return -1, -1, nil
	}
	return cl2 / footprint, cllc / footprint, nil
}

// ClientSplit returns how a benchmark that pins its client to a quarter of
// a box's cpus CPUs (rounded down) splits them: server CPUs, client CPUs.
// It is the placement of MariaDB's thread-pool benchmarks (taskset put
// sysbench on #CPUs/4 and mysqld on the rest, with thread_pool_size the
// server's CPUs). A box of fewer than 4 CPUs gives the client none.
func ClientSplit(cpus int) (server, client int) {
	cpus = max(cpus, 0)
	client = cpus / 4
	return cpus - client, client
}
