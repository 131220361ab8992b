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
	// worker. See Cell.ThreadPoolSize and poolProgram for what is modelled.
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

// MaxThreadPoolSize bounds Cell.ThreadPoolSize: the simulated pool is a
// concurrency gate, whose limit is at most concurrency.MaxLimit (MariaDB
// allows up to 100,000 groups).
const MaxThreadPoolSize = concurrency.MaxLimit

// setThreadPool installs the thread pool of a PoolOfThreads cell: size
// groups (0 = the machine's CPUs, MariaDB's default for thread_pool_size),
// each serving one request at a time, as a group's single active worker
// does in threadpool_generic.cc; it is a concurrency.HandoffCore gate with
// Limit = size and FIFO order, so that a request that arrives when every
// group is busy waits in a queue and the worker that finishes hands its seat
// straight to the oldest (the group's queue; the listener's own hop, from
// epoll to the queue, is not a thread of its own here).
//
// Not modelled: the groups being separate (a request is hashed to its
// connection's group, so one group can queue while another idles), the
// listener thread and its wake-ups, thread_pool_stall_limit (the timer that
// lets a group start a second worker when its active one has run 500 ms
// without finishing: no simulated request runs that long), and the
// high/low priority queues (thread_pool_priority=auto serves a connection
// inside a transaction first). The concurrency gate already holds the
// priority classes and kickup (concurrency.Config.Priority, Kickup), but
// the workloads do not yet mark which statements are inside a transaction.
func (m *Machine) setThreadPool(size int) error {
	if m.gate != nil {
		return fmt.Errorf("sim: thread_handling pool-of-threads with an innodb_thread_concurrency gate: want one of the two (MariaDB 10.11 has no innodb_thread_concurrency): %w", ErrInvalidConfig)
	}
	if size == 0 {
		size = m.cfg.CPUs
	}
	if size < 1 || size > MaxThreadPoolSize {
		return fmt.Errorf("sim: ThreadPoolSize = %d, want 0 (the CPUs) or 1..%d: %w", size, MaxThreadPoolSize, ErrInvalidConfig)
	}
	return m.SetGate(concurrency.PolicyHandoff, concurrency.Config{Limit: size, Tickets: 1})
}

// poolProgram returns prog as a pool worker serves it: every stretch of
// server work between two client waits (the OpSleep ops: the client's round
// trip, as statement and the connect workload write them) is one request,
// entered into the pool (OpGateEnter) before its first op and left
// (OpGateExit) before the next wait. A connection waiting for its client thus
// holds no seat, as a pooled connection holds no worker
// (threadpool_generic.cc: the worker returns to the group after
// threadpool_process_request; the connection waits in epoll). The program's
// own OpGateEnter and OpGateExit (an innodb_thread_concurrency gate, which
// MariaDB 10.11 does not have) are dropped.
func poolProgram(prog []Op) []Op {
	out := make([]Op, 0, len(prog)+8)
	inside := false
	for _, op := range prog {
		switch {
		case op.Kind == OpGateEnter || op.Kind == OpGateExit:
		case op.Kind == OpSleep && inside:
			out = append(out, Op{Kind: OpGateExit}, op)
			inside = false
		case op.Kind != OpSleep && !inside:
			out = append(out, Op{Kind: OpGateEnter}, op)
			inside = true
		default:
			out = append(out, op)
		}
	}
	if inside {
		out = append(out, Op{Kind: OpGateExit})
	}
	return out
}
