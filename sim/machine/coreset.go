package machine

// CoreSet names one of a machine's sets of cores. A thread runs on the
// cores of its set and no other, as a process pinned with taskset or a
// cpuset runs (sched_setaffinity: the kernel places, wakes and balances a
// task only among its allowed CPUs). A machine has ServerCores, the
// Config.CPUs cores every thread runs on by default, and, with
// Config.ClientCPUs, ClientCores: the benchmark client's own, as MariaDB's
// thread-pool benchmarks pinned sysbench to a quarter of the box and
// mysqld to the rest.
type CoreSet uint8

const (
	// ServerCores is the Config.CPUs cores.
	ServerCores CoreSet = iota
	// ClientCores is the Config.ClientCPUs cores after them.
	ClientCores
	numCoreSets
)

// coreSet is one set's scheduler state: its cores, the run queue and the
// fair class's least virtual runtime of its threads (each CPU of a Linux
// box has its own; the model keeps one for the set, see the package
// doc), its idle cores, and what its switches refill: its threads, their
// own footprints and its caches.
type coreSet struct {
	lo, hi int      // its cores: m.cores[lo:hi]
	rq     runQueue // runnable threads
	minVr  int64
	idle   int
	// threads counts the set's threads and footSum their own footprints
	// (thread.foot, and AddFootprint's state); costs is the machine's cost
	// profile with the set's caches (CostProfile.CacheL2 and CacheLLC for
	// the server's cores, their share for the client's: see
	// Config.ClientCPUs).
	threads int
	footSum int64
	costs   CostProfile
	// csThreads and csFootSum key the cached switch costs: csCost, the
	// profile's SwitchCost of the set's threads, and csFoot, SwitchCostOf
	// by a thread's own footprint.
	csThreads int
	csFootSum int64
	csCost    int64
	csFoot    []footCost
}

// cpus returns how many cores the set has.
func (q *coreSet) cpus() int { return q.hi - q.lo }

// setOf returns the set of core c.
func (m *Machine) setOf(c int) *coreSet {
	if c >= m.sets[ServerCores].hi {
		return &m.sets[ClientCores]
	}
	return &m.sets[ServerCores]
}

// busy returns how many of set q's cores run a thread or have one on its
// way to them.
func (q *coreSet) busy() int { return q.cpus() - q.idle }
