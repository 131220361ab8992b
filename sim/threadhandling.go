package sim

import (
	"fmt"

	"github.com/innosim/innosim/sim/threadpool"
)

// ThreadHandling is MariaDB's thread_handling: how client connections get a
// server thread.
type ThreadHandling uint8

const (
	// OneThreadPerConnection (the default): each connection has its own
	// server thread for its whole life, as the workloads' programs are
	// written.
	OneThreadPerConnection ThreadHandling = iota
	// PoolOfThreads is MariaDB's thread pool (sql/threadpool_generic.cc): a
	// connection holds a worker thread only while a request of its is being
	// served; between requests it waits, without a thread, in its group's
	// epoll set, and the group's listener queues its next request for a
	// worker. The connections have no threads: the groups' workers and
	// listeners serve them (package threadpool), whether their client runs
	// on the machine (Cell.Client) or across the network (its round trips
	// the workload's waits for its client). See Cell.ThreadPoolSize.
	PoolOfThreads
)

// String returns MariaDB's name of the mode.
func (h ThreadHandling) String() string {
	if h == PoolOfThreads {
		return "pool-of-threads"
	}
	return "one-thread-per-connection"
}

// ParseThreadHandling reads a thread_handling value: one-thread-per-connection
// or pool-of-threads (MariaDB's spellings; no-threads, one connection in all,
// is not simulated). Any other value is an error wrapping ErrInvalidConfig.
func ParseThreadHandling(s string) (ThreadHandling, error) {
	switch s {
	case "one-thread-per-connection":
		return OneThreadPerConnection, nil
	case "pool-of-threads":
		return PoolOfThreads, nil
	}
	return 0, fmt.Errorf("sim: thread_handling %q, want one-thread-per-connection or pool-of-threads: %w", s, ErrInvalidConfig)
}

// MaxThreadPoolSize bounds Cell.ThreadPoolSize: MAX_THREAD_GROUPS of
// threadpool_generic.cc (MariaDB 5.5 to 10.1 allow 128).
const MaxThreadPoolSize = threadpool.MaxSize
