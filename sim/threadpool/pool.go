package threadpool

import (
	"time"

	"github.com/innosim/innosim/prio"
	"github.com/innosim/innosim/sim/client"
	"github.com/innosim/innosim/sim/engine"
	"github.com/innosim/innosim/sim/gate"
	"github.com/innosim/innosim/sim/machine"
)

// The thread pool with its clients on the machine follows MariaDB 10.11's
// sql/threadpool_generic.cc rather than a gate in front of a thread per
// connection: a connection has no thread of its own, only its THD (its server
// program and where it is in it) and its socket in its group's epoll set, and
// a group's few worker threads take turns at being its listener.
//
//   - get_event: a worker that has finished a request takes the next
//     connection from the group's queues, high priority first, unless
//     too_many_threads (active_thread_count ≥ 1 + thread_pool_oversubscribe
//     and the group not stalled); else, if the group has no listener, it
//     becomes it (listener(): it stops counting as active); else it polls the
//     epoll set without blocking and takes the first ready connection; else
//     it sleeps on its condition at the head of the group's waiting list
//     (LIFO: hot caches) until wake_thread signals it.
//   - listener(): epoll_wait until a client's request makes a socket
//     readable, then all ready connections (up to MAX_EVENTS, 1024) go to the
//     queues. If the queues were empty before (listener_picks_event) the
//     listener takes the first itself and is a worker again; otherwise it
//     stays listener and, when no worker is active, wakes one (wake_thread;
//     when the listener is the group's only thread, create_worker makes the
//     second, which here exists from the start, asleep).
//   - a connection's priority (thread_pool_priority=auto, get_priority): high
//     while its THD is inside a transaction (between the program's
//     OpTrxBegin and OpTrxEnd), low otherwise; thread_pool_prio_kickup_timer
//     is not modelled (a low connection waits behind high ones only while a
//     transaction is open, far less than its 1 s).
//   - after a request the worker re-arms the connection's socket
//     (io_poll_start_read: epoll_ctl with EPOLLONESHOT); the receive's entry
//     at the end of the request, where a thread per connection would block
//     in its read, is that call.
//   - a worker that takes another connection than its last touches that
//     connection's THD (ClientConfig.ServerFootprint): the lines the others
//     evicted are refilled as on a switch (CostProfile.SwitchCostOf's
//     model), though the thread does not change.
//   - a request that waits inside the server (thd_wait_begin), the timer's
//     check_stall every thread_pool_stall_limit, and workers created beyond
//     a group's two up to thread_pool_max_threads: wait.go.
//
// Not modelled: thread_pool_idle_timeout (a worker asleep for 60 s exits:
// here the pool never shrinks); thread_pool_prio_kickup_timer;
// thread_pool_dedicated_listener (off by default).

// poolMaxEvents is MAX_EVENTS of threadpool_generic.cc: the most events one
// epoll_wait of the listener returns.
const poolMaxEvents = 1024

// PoolOversubscribe is thread_pool_oversubscribe's default (3): a worker
// takes no normal-priority request from the queue while 1 + 3 workers of its
// group are active.
const PoolOversubscribe = 3

// poolConn is a pooled connection: its THD's program and place in it and its
// state in the group; its socket's end is the client's (sockets), whose
// packets tell the pool it is readable (Readable).
type poolConn struct {
	prog  []machine.Op
	pc    int32
	group int32
	armed bool   // in the epoll set, waiting for a request (EPOLLONESHOT armed)
	trx   []bool // by pc: inside a transaction there (high priority)
	foot  int64  // ClientConfig.ServerFootprint
	units uint64 // OpDone units its requests completed
	// thread is the worker serving the connection, or -1 between requests.
	thread int32
	// resumed: a worker has just taken the connection, so its receive is
	// the read of a request, not the end of the last one.
	resumed bool
}

// poolGroup is a thread_group_t: its ready sockets (epoll's ready list), its
// two queues, its listener, its sleeping workers and its counts.
type poolGroup struct {
	ready    []int32    // connections readable since the last poll, in order
	queues   [2][]int32 // high, low priority: thread_group->queues
	listener int32      // the worker thread in listener(), or -1
	polling  bool       // the listener is blocked in epoll_wait
	waiting  []int32    // sleeping workers, the next to wake first
	active   int        // active_thread_count
	threads  int        // thread_count
	conns    int        // connection_count

	// queueEvents and ioEvents are queue_event_count and io_event_count:
	// queue_get calls and the events listener() took from epoll since the
	// last check_stall; stalled is the flag check_stall sets and get_event
	// clears; lastCreate is last_thread_creation_time, in ns.
	queueEvents int
	ioEvents    int
	stalled     bool
	lastCreate  int64
}

// workerStage is where a pool worker is in its loop.
type workerStage uint8

const (
	wsGetEvent  workerStage = iota // get_event: decide
	wsPolled                       // the non-blocking poll's system call ran
	wsSlept                        // woken from its condition
	wsListen                       // listener(): enter epoll_wait
	wsListening                    // in epoll_wait (blocked or returning)
	wsSignalled                    // the listener's wake_thread ran
	wsRefilled                     // the next connection's THD is refilled
)

// poolWorker is a worker thread's own state.
type poolWorker struct {
	group int32
	stage workerStage
	conn  int32 // the connection being served, or -1
	last  int32 // the connection it served last, or -1
	next  int32 // the connection taken, to serve after the refill
	// waiting is TP_connection_generic::waiting for the connection being
	// served: thd_wait_begin calls not yet ended (see WaitBegin).
	waiting int
}

// Pool is the pool of a PoolOfThreads machine with its clients on it:
// the machine's session host (SetSessionHost) and the client sockets'
// poller.
type Pool struct {
	m        *machine.Machine
	socks    *client.Sockets // the connections' sockets
	groups   []poolGroup
	conns    []poolConn
	workers  []poolWorker // by worker number
	workerOf []int32      // by thread id: 1 + its worker number, 0 for a thread that is not one
	prog     []machine.Op // every worker's program: one op of the pool's own kind

	stallLimit int64       // thread_pool_stall_limit, in ns: check_stall's period
	maxThreads int         // thread_pool_max_threads
	nworkers   int         // tp_stats.num_worker_threads, created ones included
	evStall    engine.Kind // the timer thread's tick: check_stall of every group
	evCreate   engine.Kind // a worker create_worker started: its thread is added
}

// MaxSize bounds the groups (MariaDB allows up to 100,000; the simulator's
// pool is bounded as the gate's groups are, gate.MaxGroups).
const MaxSize = gate.MaxGroups

// Install installs MariaDB's thread pool on m, for connections whose client
// runs on the machine: size groups (0 = the CPUs), each with two worker
// threads, the first its listener-to-be and the second asleep in its
// waiting list (see the design notes above), and the timer that runs
// check_stall every stall (0 = DefaultStallLimit); the pool creates
// workers up to maxThreads (0 = MaxMaxThreads). The connections are added
// through the pool's sockets (Sockets). A bad value is an error wrapping
// ErrInvalidConfig that names it.
func Install(m *machine.Machine, size int, stall time.Duration, maxThreads int) (*Pool, error) {
	if err := Validate(size, m.Config().CPUs, stall, maxThreads); err != nil {
		return nil, err
	}
	if size == 0 {
		size = m.Config().CPUs
	}
	if stall == 0 {
		stall = DefaultStallLimit
	}
	if maxThreads == 0 {
		maxThreads = MaxMaxThreads
	}
	kind := m.NewOpKind()
	p := &Pool{m: m, groups: make([]poolGroup, size), prog: []machine.Op{{Kind: kind}},
		stallLimit: int64(stall), maxThreads: maxThreads}
	m.Handle(kind, p)
	m.SetSessionHost(p)
	p.socks = client.Install(m, p)
	p.evCreate = m.Engine().On(p.onCreate)
	p.evStall = m.Engine().On(p.onTimer)
	for g := range p.groups {
		p.groups[g] = poolGroup{listener: -1, threads: 2, active: 2}
		p.nworkers += 2
		for range 2 {
			p.addWorker(int32(g))
		}
	}
	m.Engine().At(p.stallLimit, p.evStall, 0, 0)
	return p, nil
}

// Validate reports what Install refuses on a machine of cpus CPUs: a
// *machine.FieldError naming ThreadPoolSize, ThreadPoolStallLimit or
// ThreadPoolMaxThreads and its range.
func Validate(size, cpus int, stall time.Duration, maxThreads int) error {
	if size == 0 {
		size = cpus
	}
	if size < 1 || size > MaxSize {
		return machine.Invalid("ThreadPoolSize", "sim: ThreadPoolSize = %d, want 0 (the CPUs) or 1..%d: %w", size, MaxSize, machine.ErrInvalidConfig)
	}
	if stall == 0 {
		stall = DefaultStallLimit
	}
	if stall < time.Millisecond || stall > MaxStallLimit || stall%time.Millisecond != 0 {
		return machine.Invalid("ThreadPoolStallLimit", "sim: ThreadPoolStallLimit = %v, want 0 (500ms) or whole milliseconds in 1ms..%dms: %w", stall, MaxStallLimit/time.Millisecond, machine.ErrInvalidConfig)
	}
	if maxThreads == 0 {
		maxThreads = MaxMaxThreads
	}
	if maxThreads < 1 || maxThreads > MaxMaxThreads {
		return machine.Invalid("ThreadPoolMaxThreads", "sim: ThreadPoolMaxThreads = %d, want 0 (%d) or 1..%d: %w", maxThreads, MaxMaxThreads, MaxMaxThreads, machine.ErrInvalidConfig)
	}
	return nil
}

// Sockets returns the sockets the pool's connections are added through
// (client.Sockets.Add).
func (p *Pool) Sockets() *client.Sockets { return p.socks }

// Workers returns the pool's worker threads, created ones included
// (thread_count summed over the groups: Threadpool_threads).
func (p *Pool) Workers() int { return p.nworkers }

// Connections returns how many connections the pool serves.
func (p *Pool) Connections() int { return len(p.conns) }

// GroupState is a group's counts and its sleeping workers, the next to wake
// first.
type GroupState struct {
	Threads, Active int
	Waiting         []int32
}

// Group returns group g's state.
func (p *Pool) Group(g int) GroupState {
	gr := &p.groups[g]
	return GroupState{Threads: gr.threads, Active: gr.active, Waiting: append([]int32(nil), gr.waiting...)}
}

// Program returns connection i's THD's program (its server side).
func (p *Pool) Program(i int) []machine.Op { return p.conns[i].prog }

// ConnUnits returns the units connection i (in the order they were added)
// has completed.
func (p *Pool) ConnUnits(i int) uint64 { return p.conns[i].units }

// addWorker adds a worker thread of group g, runnable at once in get_event;
// the group's counts are the caller's.
func (p *Pool) addWorker(g int32) {
	id := int32(p.m.Threads())
	p.workers = append(p.workers, poolWorker{group: g, conn: -1, last: -1, next: -1})
	for int(id) >= len(p.workerOf) {
		p.workerOf = append(p.workerOf, 0)
	}
	p.workerOf[id] = int32(len(p.workers))
	// a program of the pool's own op kind, which it handles: AddThread accepts it
	_ = p.m.AddThread(p.prog, prio.Normal)
}

// worker returns thread id's worker state, or nil for a thread that is not
// one of the pool's workers.
func (p *Pool) worker(id int32) *poolWorker {
	if int(id) >= len(p.workerOf) || p.workerOf[id] == 0 {
		return nil
	}
	return &p.workers[p.workerOf[id]-1]
}

// Connect adds a pooled connection whose THD runs server, from its first op,
// whenever a worker of its group (its number mod the groups, as
// tp_add_connection assigns thread_id % group_count) takes it, and whose
// server footprint is foot; it returns the connection's session key.
func (p *Pool) Connect(server []machine.Op, foot int64) int32 {
	c := int32(len(p.conns))
	trx := make([]bool, len(server))
	in := false
	for i, op := range server {
		trx[i] = in
		switch op.Kind {
		case machine.OpTrxBegin:
			in = true
		case machine.OpTrxEnd:
			in = false
		}
	}
	g := c % int32(len(p.groups))
	p.conns = append(p.conns, poolConn{prog: server, group: g, armed: true, trx: trx, foot: foot, thread: -1})
	p.groups[g].conns++
	return connPeer(c)
}

// connPeer is the session key of pooled connection c (a thread id is ≥ 0,
// and −1 is no peer).
func connPeer(c int32) int32 { return -2 - c }

// connOf is the pooled connection of session key k.
func connOf(k int32) int32 { return -2 - k }

// Session is the connection worker id serves, or its own id (SessionHost).
func (p *Pool) Session(id int32) int32 {
	if w := p.worker(id); w != nil && w.conn >= 0 {
		return connPeer(w.conn)
	}
	return id
}

// SessionThread is the worker serving connection key k, or −1.
func (p *Pool) SessionThread(k int32) int32 { return p.conns[connOf(k)].thread }

// Done counts n units into the connection worker id serves.
func (p *Pool) Done(id int32, n uint64) {
	if w := p.worker(id); w != nil {
		p.conns[w.conn].units += n
	}
}

// Readable is a client's request reaching pooled connection key k (its
// socket has a packet more): an armed connection joins its group's ready
// list, and a listener blocked in epoll_wait wakes (ep_poll_callback).
func (p *Pool) Readable(k int32) {
	if p.conns[connOf(k)].armed {
		p.ready(connOf(k))
	}
}

// ready puts connection c, whose socket is readable, on its group's ready
// list and wakes a listener blocked in epoll_wait.
func (p *Pool) ready(c int32) {
	conn := &p.conns[c]
	conn.armed = false
	g := &p.groups[conn.group]
	g.ready = append(g.ready, c)
	if g.polling {
		g.polling = false
		p.m.WakeSync(g.listener)
	}
}

// Receive is worker id's receive on the connection it serves: the read of
// the request when the worker has just taken the connection and a packet is
// there; otherwise the request is over (threadpool_generic.cc), the
// connection goes back to its group and the worker to get_event, and
// Receive reports false.
func (p *Pool) Receive(id int32) bool {
	w := p.worker(id)
	conn := &p.conns[w.conn]
	if !conn.resumed || p.socks.Pending(connPeer(w.conn)) == 0 {
		p.requestDone(id, w)
		return false
	}
	conn.resumed = false
	return true
}

// queuePut is queue_put of the ready connections (up to poolMaxEvents): each
// to the high queue while its THD is inside a transaction, else to the low
// one.
func (p *Pool) queuePut(g *poolGroup) {
	n := min(len(g.ready), poolMaxEvents)
	for _, c := range g.ready[:n] {
		conn := &p.conns[c]
		q := 1
		if conn.trx[conn.pc] {
			q = 0
		}
		g.queues[q] = append(g.queues[q], c)
	}
	g.ready = append(g.ready[:0], g.ready[n:]...)
}

// queueGet is queue_get: the oldest high-priority connection, else the
// oldest low one, or −1.
func (g *poolGroup) queueGet() int32 {
	g.queueEvents++ // counted whether or not a connection is dequeued
	for q := range g.queues {
		if len(g.queues[q]) > 0 {
			c := g.queues[q][0]
			g.queues[q] = g.queues[q][1:]
			return c
		}
	}
	return -1
}

// tooManyThreads is too_many_threads: a stalled group is not limited.
func (g *poolGroup) tooManyThreads() bool {
	return g.active >= 1+PoolOversubscribe && !g.stalled
}

// queued reports whether the group's queues hold a connection
// (!is_queue_empty).
func (g *poolGroup) queued() bool { return len(g.queues[0])+len(g.queues[1]) > 0 }

// Step runs a worker's loop, the one op of its program, from its stage until
// it takes time, blocks or starts serving a connection (it then interprets
// the connection's program: Machine.Exec).
func (p *Pool) Step(id int32, _ *machine.Op) bool {
	m := p.m
	w := p.worker(id)
	g := &p.groups[w.group]
	sys := int64(m.Costs().Syscall)
	for {
		switch w.stage {
		case wsGetEvent:
			if !g.tooManyThreads() {
				if c := g.queueGet(); c >= 0 {
					p.serve(id, w, c)
					return false
				}
			}
			if g.listener < 0 {
				g.listener = id
				g.active--
				w.stage = wsListen
				continue
			}
			if !g.tooManyThreads() {
				w.stage = wsPolled
				m.Syscall(id, sys) // io_poll_wait(…, 0)
				return false
			}
			p.sleep(id, w, g)
			return false
		case wsPolled:
			if len(g.ready) > 0 {
				p.queuePut(g)
				if c := g.queueGet(); c >= 0 {
					p.serve(id, w, c)
					return false
				}
			}
			p.sleep(id, w, g)
			return false
		case wsSlept:
			g.active++
			w.stage = wsGetEvent
		case wsListen:
			w.stage = wsListening
			m.Syscall(id, sys) // epoll_wait's entry
			return false
		case wsListening:
			if len(g.ready) == 0 {
				g.polling = true
				m.Block(id)
				return false
			}
			picks := !g.queued()
			g.ioEvents += min(len(g.ready), poolMaxEvents)
			p.queuePut(g)
			if picks {
				c := g.queueGet()
				g.listener = -1
				g.active++
				p.serve(id, w, c)
				return false
			}
			if g.active == 0 && len(g.waiting) > 0 {
				next := g.waiting[0]
				g.waiting = g.waiting[1:]
				w.stage = wsSignalled
				m.Syscall(id, int64(max(m.Costs().FutexWakeCall, m.Costs().Syscall))) // mysql_cond_signal
				m.Wake(next)
				return false
			}
			w.stage = wsListen
		case wsSignalled:
			w.stage = wsListen
		case wsRefilled:
			p.run(id, w, w.next)
			return false
		}
	}
}

// sleep puts worker w (thread id) to sleep at the head of its group's
// waiting list.
func (p *Pool) sleep(id int32, w *poolWorker, g *poolGroup) {
	g.waiting = append([]int32{id}, g.waiting...)
	g.active--
	w.stage = wsSlept
	p.m.Block(id)
}

// serve starts worker w (thread id) on connection c: first the refill of c's
// THD if the worker served another connection last (see the design notes).
func (p *Pool) serve(id int32, w *poolWorker, c int32) {
	m := p.m
	if c == w.last || !m.Costs().HasCaches() {
		p.run(id, w, c)
		return
	}
	conn := &p.conns[c]
	others := float64(int64(m.Threads())*m.Costs().SwitchFootprint + m.Footprints() - conn.foot)
	refill := m.Costs().RefillOf(conn.foot, others)
	if refill < 1 {
		p.run(id, w, c)
		return
	}
	w.next, w.stage = c, wsRefilled
	m.Burst(id, int64(refill+0.5), machine.CatUser)
}

// run makes worker w (thread id) interpret connection c's program from where
// c left it.
func (p *Pool) run(id int32, w *poolWorker, c int32) {
	conn := &p.conns[c]
	p.groups[w.group].stalled = false // get_event returned
	w.conn, w.last, w.stage = c, c, wsGetEvent
	conn.resumed, conn.thread = true, id
	p.m.Exec(id, conn.prog, conn.pc)
}

// requestDone ends worker w's (thread id's) request at its connection's next
// receive (whose entry was the re-arm): the connection keeps its place (the
// receive, to run as the read of its next request), its socket is armed
// again, or is ready at once if the next request is already there, and the
// worker goes back to get_event.
func (p *Pool) requestDone(id int32, w *poolWorker) {
	c := w.conn
	conn := &p.conns[c]
	conn.pc, conn.armed, conn.thread = p.m.PC(id), true, -1
	if p.socks.Pending(connPeer(c)) > 0 {
		p.ready(c)
	}
	w.conn = -1
	p.m.Exec(id, p.prog, 0)
}
