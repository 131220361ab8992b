package sim

import "time"

// The workloads of the field cases innosim validate holds the simulator to:
// each is the shape of a public MySQL bug report's test, written as the
// per-unit sequence that test executes.

// rowScan is MySQL bug 15815's shape: a query scanning rows of an in-memory
// table, each row fixing its page under the buffer-pool mutex
// (buf_page_optimistic_get in MySQL 5.0 takes buf_pool->mutex to bump the
// block's fix count) and then doing the row's own work. There is no client
// round trip: one long query per thread, one unit per row. With shards > 1
// the row's page falls, uniformly, under one of shards mutexes (the split
// buf_pool mutex of the bug's fix, buf_pool instances in 5.5).
func rowScan(name string, shards int) Workload {
	return Workload{
		Name: name, Unit: "rows/s",
		Doc: "MySQL bug 15815's scan: per row, a page fix under the buffer-pool mutex (0.3 µs) and 1 µs " +
			"of row work; " + map[bool]string{true: "one global buf_pool mutex", false: "the page's mutex one of 4, uniformly"}[shards == 1] + ".",
		Setup: func(m *Machine) []Op {
			ids := make([]int32, shards)
			for i := range ids {
				ids[i] = m.AddMutex(Mutex{Name: "buf_pool", Spin: true, WakeAll: true})
			}
			var p []Op
			for k, id := range ids {
				left := int32(4 * (shards - 1 - k)) // ops of the blocks after this one
				if k < shards-1 {
					// this block with probability 1/(shards-k): uniform over the shards
					p = append(p, withProb(1/float64(shards-k), 4))
					left -= 1
				}
				p = append(p, lock(id), cpu(300*time.Nanosecond), unlock(id))
				if k < shards-1 {
					p = append(p, withProb(0, left)) // skip the other shards
				}
			}
			return append(p, cpu(1*us), done(1))
		},
	}
}

// hotMutex is MySQL bug 52806's shape: threads that, per unit, do 4 µs of
// their own work and then 1 µs under one InnoDB mutex. wakeAll is the mutex
// release of MySQL 5.1 (mutex_exit → mutex_signal_object → os_event_set: every
// waiter); false is the bug's proposal, waking one waiter.
func hotMutex(name string, wakeAll bool) Workload {
	return Workload{
		Name: name, Unit: "units/s",
		Doc: "MySQL bug 52806's shape: per unit 4 µs of work, then 1 µs under one InnoDB mutex whose release " +
			map[bool]string{true: "wakes every waiter (os_event_set)", false: "wakes one waiter"}[wakeAll] + ".",
		Setup: func(m *Machine) []Op {
			mu := m.AddMutex(Mutex{Name: "hot", Spin: true, WakeAll: wakeAll})
			return []Op{cpu(4 * us), lock(mu), cpu(1 * us), unlock(mu), done(1)}
		},
	}
}

// readAhead is MySQL bug 40604's load: client threads whose scans keep the
// read array of simulated AIO full of read-aheads (buf_read_ahead_linear →
// os_aio with a simulated-AIO read, not waited for), so that the reads/s are
// the read I/O threads' and the device's: per loop 20 µs of row work, one
// page read-ahead, 500 µs of the client's think time. Reads/s need a device
// (Cell.Device) and an AIO array (Cell.AIO).
func readAhead() Workload {
	return Workload{
		Name: "read_ahead", Unit: "scans/s",
		Doc: "MySQL bug 40604's load: per loop 20 µs of row work, one simulated-AIO read-ahead of a " +
			"page (not waited for), 500 µs of think time; the reads are served by the read I/O threads.",
		Setup: func(m *Machine) []Op {
			return []Op{cpu(20 * us), prefetch(1), sleep(500 * us), done(1)}
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
