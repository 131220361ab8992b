package workload

import (
	"time"

	"github.com/innosim/innosim/sim/machine"
)

// The workloads of the field cases innosim validate holds the simulator to:
// each is the shape of a public MySQL bug report's test, written as the
// per-unit sequence that test executes.

// rowScan is MySQL bug 15815's shape: a query scanning rows of an in-memory
// table. Per row InnoDB 5.0 fixes the row's block and releases it again
// (block_get and block_release in the report's profile: buf_page_optimistic_get
// and buf_page_release in buf0buf.c), each a short critical section under
// buf_pool->mutex that writes the block's control line (buf_fix_count) and
// the pool's counters (n_page_gets) beside the lock word: Lines = 2. Between
// them 1 µs of the row's own work. There is no client round trip: one long
// query per thread, one unit per row. With shards > 1 the row's block falls,
// uniformly, under one of shards mutexes (the per-block mutex of the
// report's patch, buf_pool instances in 5.5).
func rowScan(name string, shards int) Workload {
	return Workload{
		Name: name, Unit: "rows/s",
		Uses: Uses{},
		Doc: "MySQL bug 15815's scan: per row a block fix and a block release, each 50 ns under the " +
			"buffer-pool mutex writing 2 data lines, and 1 µs of row work between them; " +
			map[bool]string{true: "one global buf_pool mutex", false: "the block's mutex one of 4, uniformly"}[shards == 1] + ".",
		Setup: func(env Env) []machine.Op {
			ids := make([]int32, shards)
			for i := range ids {
				ids[i] = env.AddMutex(machine.Mutex{Name: "buf_pool", Spin: true, WakeAll: true, Lines: 2})
			}
			// the row's block is block k with probability 1/(shards-k) once the
			// blocks before it were passed over: uniform over the shards
			const fix = 50 * time.Nanosecond
			var p []machine.Op
			var ends []int // each block's jump past the blocks after it
			for k, id := range ids {
				body := []machine.Op{lock(id), cpu(fix), unlock(id), cpu(1 * us), lock(id), cpu(fix), unlock(id)}
				if k < shards-1 {
					p = append(p, withProb(1/float64(shards-k), int32(len(body)+1)))
				}
				p = append(p, body...)
				if k < shards-1 {
					ends = append(ends, len(p))
					p = append(p, withProb(0, 0))
				}
			}
			for _, i := range ends {
				p[i].Arg = int32(len(p) - i - 1)
			}
			return append(p, done(1))
		},
	}
}

// hotMutex is MySQL bug 52806's shape: threads that, per unit, do 4 µs of
// their own work and then hold one InnoDB mutex 4 µs, the hold of the same
// reporter's public mutex benchmark (Mark Callaghan, "The InnoDB Mutex",
// smalldatum.blogspot.com, 2014: ~4,000 ns a hold; ~6,000 on an older CPU).
// wakeAll is the mutex release of MySQL 5.1 (mutex_exit →
// mutex_signal_object → os_event_set: every waiter); false is the bug's
// proposal, waking one waiter.
func hotMutex(name string, wakeAll bool) Workload {
	return Workload{
		Name: name, Unit: "units/s",
		Uses: Uses{},
		Doc: "MySQL bug 52806's shape: per unit 4 µs of work, then 4 µs under one InnoDB mutex whose release " +
			map[bool]string{true: "wakes every waiter (os_event_set)", false: "wakes one waiter"}[wakeAll] + ".",
		Setup: func(env Env) []machine.Op {
			mu := env.AddMutex(machine.Mutex{Name: "hot", Spin: true, WakeAll: wakeAll})
			return []machine.Op{cpu(4 * us), lock(mu), cpu(4 * us), unlock(mu), done(1)}
		},
	}
}

// readAhead is MySQL bug 40604's load: client threads whose scans keep the
// read array of simulated AIO full of read-aheads (buf_read_ahead_linear →
// os_aio with a simulated-AIO read, not waited for), so that the reads/s are
// the read I/O threads' and the device's: per loop 20 µs of row work, one
// page read-ahead, 500 µs of think time (SleepThink: the scanning threads
// are the load, with no benchmark client to wait for, so a Cell.Client is
// refused). Reads/s need a device (Cell.Device) and an AIO array (Cell.AIO).
func readAhead() Workload {
	return Workload{
		Name: "read_ahead", Unit: "scans/s",
		Uses: Uses{AIO: true, ReadAhead: true, Think: 500 * us},
		Doc: "MySQL bug 40604's load: per loop 20 µs of row work, one simulated-AIO read-ahead of a " +
			"page (not waited for), 500 µs of think time (the scanning threads' own: no benchmark client, so " +
			"no --client); the reads are served by the read I/O threads.",
		Setup: func(env Env) []machine.Op {
			return []machine.Op{cpu(20 * us), prefetch(1), sleepFor(500*us, machine.SleepThink), done(1)}
		},
	}
}

// fieldWorkloads are the field cases' workloads.
func fieldWorkloads() []Workload {
	return []Workload{
		rowScan("row_scan_global", 1), rowScan("row_scan_sharded", 4),
		hotMutex("mutex_wake_all", true), hotMutex("mutex_wake_one", false), readAhead(),
	}
}
