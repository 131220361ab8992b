package sim

import (
	"fmt"

	"github.com/innosim/innosim/concurrency"
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
	// worker. With the client on the machine (Cell.Client) the connections
	// have no threads and the groups' workers and listeners serve them
	// (package threadpool); without it, a gate per group in front of a
	// thread per connection stands for the pool (gate.InstallGroups,
	// gate.PoolProgram). See Cell.ThreadPoolSize.
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

// MaxThreadPoolSize bounds Cell.ThreadPoolSize (MariaDB allows up to
// 100,000 groups; the simulator's pool keeps a concurrency core per group).
const MaxThreadPoolSize = concurrency.MaxLimit
