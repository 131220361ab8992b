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
	// (threadpool_group.go); without it, a gate per group in front of a
	// thread per connection stands for the pool (setThreadPool,
	// poolProgram). See Cell.ThreadPoolSize.
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

// setThreadPool installs the thread pool of a PoolOfThreads cell without its
// clients on the machine (with them, setPoolGroups), after
// MariaDB's sql/threadpool_generic.cc: size groups (0 = the machine's CPUs,
// the default of thread_pool_size), a connection belonging to group
// (connection number mod size), as tp_add_connection assigns
// thread_id % group_count; stride is how many threads a connection has
// (2 with its client on the machine, whose thread never enters the pool), so
// that thread id / stride is the connection number. Each group serves one
// request at a time, the "one active thread per group" of the listener's
// design notes: a concurrency.HandoffCore of Limit 1, FIFO, so that a
// request arriving while its group's worker is busy waits in the group's
// queue (queue_put) and the worker that finishes hands the group straight to
// the oldest (get_event → queue_get), while another group may idle.
//
// Not modelled: the listener as a thread of its own (the request's wake is
// the connection thread's socket wake; the listener's hop from epoll to the
// queue, listener() → queue_put, and the worker it wakes when the group has
// none active are that wake and the handoff's futex wake here);
// thd_wait_begin, thread_pool_stall_limit's check_stall and
// thread_pool_oversubscribe, which the workers with the clients on the
// machine follow (threadpool_wait.go): here a request that waits inside the
// server holds its group's seat, except in a row lock wait, which leaves it
// as it leaves an innodb_thread_concurrency gate (srv_conc_force_exit_innodb)
// and queues for it again after; the high/low priority queues (thread_pool_priority=auto
// serves a connection inside a transaction first; the concurrency core has
// the classes and the kickup, concurrency.Config.Priority and Kickup, but the
// workloads do not mark which requests are inside a transaction).
func (m *Machine) setThreadPool(size, stride int) error {
	if m.gate != nil {
		return fmt.Errorf("sim: thread_handling pool-of-threads with an innodb_thread_concurrency gate: want one of the two (MariaDB 10.11 has no innodb_thread_concurrency): %w", ErrInvalidConfig)
	}
	if size == 0 {
		size = m.cfg.CPUs
		if size > MaxThreadPoolSize {
			return fmt.Errorf("sim: ThreadPoolSize = 0 takes the CPUs (%d), more groups than 1..%d: give ThreadPoolSize: %w", size, MaxThreadPoolSize, ErrInvalidConfig)
		}
	}
	if size < 1 || size > MaxThreadPoolSize {
		return fmt.Errorf("sim: ThreadPoolSize = %d, want 0 (the CPUs) or 1..%d: %w", size, MaxThreadPoolSize, ErrInvalidConfig)
	}
	if err := m.SetGate(concurrency.PolicyHandoff, concurrency.Config{Limit: 1, Tickets: 1}); err != nil {
		return err
	}
	g := m.gate
	g.stride = int32(stride)
	g.groups = make([]concurrency.Core, size)
	g.groups[0] = g.core
	for i := 1; i < size; i++ {
		core, err := concurrency.NewHandoffCore(concurrency.Config{Limit: 1, Tickets: 1})
		if err != nil {
			return err
		}
		g.groups[i] = core
	}
	return nil
}

// coreOf returns the core thread id enters: its pool group's, or the gate's.
func (g *gateDriver) coreOf(id int32) concurrency.Core {
	if g.groups == nil {
		return g.core
	}
	return g.groups[int(id/g.stride)%len(g.groups)]
}

// stats returns the gate's counters: with pool groups, their sum (Inside and
// Waiting summed too: seats held and threads waiting in all groups).
func (g *gateDriver) stats() concurrency.Stats {
	if g.groups == nil {
		return g.core.Stats()
	}
	var t concurrency.Stats
	for _, c := range g.groups {
		s := c.Stats()
		t.Enters += s.Enters
		t.TicketEnters += s.TicketEnters
		t.ForceEnters += s.ForceEnters
		t.Exits += s.Exits
		t.Waits += s.Waits
		t.Sleeps += s.Sleeps
		t.Handoffs += s.Handoffs
		t.WaitsAdmitted += s.WaitsAdmitted
		t.Canceled += s.Canceled
		t.PassedOn += s.PassedOn
		t.WaitsHigh += s.WaitsHigh
		t.Kickups += s.Kickups
		t.StarvationHandoffs += s.StarvationHandoffs
		t.BargeWakes += s.BargeWakes
		t.BargeLosses += s.BargeLosses
		t.LockHolderBypasses += s.LockHolderBypasses
		t.Inside += s.Inside
		t.Waiting += s.Waiting
	}
	return t
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
