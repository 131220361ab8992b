package gate

import (
	"github.com/innosim/innosim/concurrency"
	"github.com/innosim/innosim/sim/machine"
)

// MaxGroups bounds the groups of InstallGroups (MariaDB allows up to
// 100,000; the simulator keeps a concurrency core per group).
const MaxGroups = concurrency.MaxLimit

// InstallGroups installs the thread pool of a PoolOfThreads cell without its
// clients on the machine (with them, package threadpool), after
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
// machine follow (package threadpool): here a request that waits inside the
// server holds its group's seat, except in a row lock wait, which leaves it
// as it leaves an innodb_thread_concurrency gate (srv_conc_force_exit_innodb)
// and queues for it again after; the high/low priority queues (thread_pool_priority=auto
// serves a connection inside a transaction first; the concurrency core has
// the classes and the kickup, concurrency.Config.Priority and Kickup, but the
// workloads do not mark which requests are inside a transaction).
func InstallGroups(m *machine.Machine, size, stride int) (*Gate, error) {
	if err := ValidateGroups(size, m.Config().CPUs); err != nil {
		return nil, err
	}
	if size == 0 {
		size = m.Config().CPUs
	}
	g, err := Install(m, concurrency.PolicyHandoff, concurrency.Config{Limit: 1, Tickets: 1})
	if err != nil {
		return nil, err
	}
	g.stride = int32(stride)
	g.groups = make([]concurrency.Core, size)
	g.groups[0] = g.core
	for i := 1; i < size; i++ {
		core, err := concurrency.NewHandoffCore(concurrency.Config{Limit: 1, Tickets: 1})
		if err != nil {
			return nil, err
		}
		g.groups[i] = core
	}
	return g, nil
}

// ValidateGroups reports what InstallGroups refuses on a machine of cpus
// CPUs: a *machine.FieldError naming ThreadPoolSize and its range.
func ValidateGroups(size, cpus int) error {
	if size == 0 {
		if cpus > MaxGroups {
			return machine.Invalid("ThreadPoolSize", "sim: ThreadPoolSize = 0 takes the CPUs (%d), more groups than 1..%d: give ThreadPoolSize: %w", cpus, MaxGroups, machine.ErrInvalidConfig)
		}
		return nil
	}
	if size < 1 || size > MaxGroups {
		return machine.Invalid("ThreadPoolSize", "sim: ThreadPoolSize = %d, want 0 (the CPUs) or 1..%d: %w", size, MaxGroups, machine.ErrInvalidConfig)
	}
	return nil
}

// coreOf returns the core thread id enters: its pool group's, or the gate's.
func (g *Gate) coreOf(id int32) concurrency.Core {
	if g.groups == nil {
		return g.core
	}
	return g.groups[int(id/g.stride)%len(g.groups)]
}

// stats returns the gate's counters: with pool groups, their sum (Inside and
// Waiting summed too: seats held and threads waiting in all groups).
func (g *Gate) Stats() concurrency.Stats {
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

// PoolProgram returns prog as a pool worker serves it: every stretch of
// server work between two client waits (the OpSleep ops: the client's round
// trip, as statement and the connect workload write them) is one request,
// entered into the pool (OpGateEnter) before its first op and left
// (OpGateExit) before the next wait. A connection waiting for its client thus
// holds no seat, as a pooled connection holds no worker
// (threadpool_generic.cc: the worker returns to the group after
// threadpool_process_request; the connection waits in epoll). The program's
// own OpGateEnter and OpGateExit (an innodb_thread_concurrency gate, which
// MariaDB 10.11 does not have) are dropped.
func PoolProgram(prog []machine.Op) []machine.Op {
	out := make([]machine.Op, 0, len(prog)+8)
	inside := false
	for _, op := range prog {
		switch {
		case op.Kind == machine.OpGateEnter || op.Kind == machine.OpGateExit:
		case op.Kind == machine.OpSleep && inside:
			out = append(out, machine.Op{Kind: machine.OpGateExit}, op)
			inside = false
		case op.Kind != machine.OpSleep && !inside:
			out = append(out, machine.Op{Kind: machine.OpGateEnter}, op)
			inside = true
		default:
			out = append(out, op)
		}
	}
	if inside {
		out = append(out, machine.Op{Kind: machine.OpGateExit})
	}
	return out
}
