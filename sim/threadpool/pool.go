package threadpool

import (
	"fmt"
	"time"

	"github.com/innosim/innosim/prio"
	"github.com/innosim/innosim/sim/client"
	"github.com/innosim/innosim/sim/engine"
	"github.com/innosim/innosim/sim/machine"
)

// The thread pool follows MariaDB's source rather than a gate in front of a
// thread per connection, in the variant of the release the cell models
// (Config.Release: sql/threadpool_unix.cc of 5.5 to 10.1, Unix55, or
// sql/threadpool_generic.cc of 10.2 on, Generic): a connection has no thread
// of its own, only its THD (its server program and where it is in it) and
// its socket in its group's epoll set, and a group's few worker threads take
// turns at being its listener. Its requests come from a client thread on
// the machine or, without one, from a client across the network
// (client.Sockets.AddRemote: a request arrives a round trip after the
// reply before it).
//
//   - get_event: a worker that has finished a request takes the next
//     connection from the group's queue (Generic: the high priority queue
//     first), unless too_many_threads (active_thread_count ≥ 1 +
//     thread_pool_oversubscribe and the group not stalled); else, if the
//     group has no listener, it becomes it (listener(): it stops counting
//     as active); else it polls the epoll set without blocking (Unix55:
//     one event, which it serves; Generic: every ready one into the queue,
//     then queue_get); else it sleeps on its condition at the head of the
//     group's waiting list (LIFO: hot caches) until wake_thread signals it.
//   - listener(): epoll_wait until a client's request makes a socket
//     readable, then all ready connections (up to MAX_EVENTS, 1024) go to the
//     queue. If the queue was empty before (listener_picks_event) the
//     listener takes the first itself and is a worker again; otherwise it
//     stays listener and, when no worker is active, wakes one (wake_thread;
//     when the listener is the group's only thread, create_worker makes the
//     second, which here exists from the start, asleep).
//   - a connection's priority (Generic, thread_pool_priority=auto,
//     get_priority): high while its THD is inside a transaction (between
//     the program's OpTrxBegin and OpTrxEnd), low otherwise;
//     thread_pool_prio_kickup_timer is not modelled (a low connection waits
//     behind high ones only while a transaction is open, far less than its
//     1 s). Unix55 has one queue.
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
// takes no request from the queue while 1 + 3 workers of its group are
// active.
const PoolOversubscribe = 3

// Release is the source of MariaDB's pool a Pool follows.
type Release uint8

const (
	// Generic is sql/threadpool_generic.cc (MariaDB 10.2 on): two queues,
	// today's wait_begin and throttling, thread_pool_max_threads 65536.
	Generic Release = iota
	// Unix55 is sql/threadpool_unix.cc of MariaDB 5.5 to 10.1: one queue,
	// wait_begin waking a worker only when the queue is empty or the group
	// has no listener, 5.5's throttling, thread_pool_max_threads 500, at
	// most 128 groups.
	Unix55
)

// String names the source file.
func (r Release) String() string {
	if r == Unix55 {
		return "threadpool_unix.cc (5.5-10.1)"
	}
	return "threadpool_generic.cc (10.2 on)"
}

// Config is the pool's settings, MariaDB's thread_pool_* variables, and the
// release whose source it follows. A zero field takes the release's
// default.
type Config struct {
	// Release is the source followed.
	Release Release
	// Size is thread_pool_size: the groups, 0 (the machine's CPUs, its
	// default) or 1..128 (Unix55) or 1..MaxSize (Generic).
	Size int
	// Oversubscribe is thread_pool_oversubscribe, 0 (PoolOversubscribe)
	// or 1..1000.
	Oversubscribe int
	// StallLimit is thread_pool_stall_limit, check_stall's period: 0
	// (DefaultStallLimit) or whole milliseconds in 1ms..MaxStallLimit.
	StallLimit time.Duration
	// MaxThreads is thread_pool_max_threads: once the pool has that many
	// workers, create_worker adds none to a group that has its two; 0 (the
	// release's default: 500 for Unix55, MaxMaxThreads for Generic) or
	// 1..MaxMaxThreads.
	MaxThreads int
}

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
// queues (Generic's two; Unix55 uses the first), its listener, its sleeping
// workers and its counts.
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

	release       Release
	oversubscribe int         // thread_pool_oversubscribe
	stallLimit    int64       // thread_pool_stall_limit, in ns: check_stall's period
	maxThreads    int         // thread_pool_max_threads
	nworkers      int         // tp_stats.num_worker_threads, created ones included
	evStall       engine.Kind // the timer thread's tick: check_stall of every group
	evCreate      engine.Kind // a worker create_worker started: its thread is added
}

// MaxSize bounds Generic's groups (MAX_THREAD_GROUPS of
// threadpool_generic.cc); Unix55 allows 128.
const MaxSize = 100000

// maxSize55 is thread_pool_size's largest value in MariaDB 5.5 to 10.1.
const maxSize55 = 128

// maxThreads55 is thread_pool_max_threads' default in MariaDB 5.5 to 10.1.
const maxThreads55 = 500

// Install installs MariaDB's thread pool on m as cfg sets it: its groups
// (each with two worker threads, the first its listener-to-be and the
// second asleep in its waiting list; see the design notes above) and the
// timer that runs check_stall every stall limit. The connections are added
// through the pool's sockets (Sockets), with their client on the machine
// (Sockets.Add) or across the network (Sockets.AddRemote). A bad value is
// an error wrapping ErrInvalidConfig that names it.
func Install(m *machine.Machine, cfg Config) (*Pool, error) {
	if err := Validate(cfg, m.Config().CPUs); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults(m.Config().CPUs)
	kind := m.NewOpKind()
	p := &Pool{m: m, groups: make([]poolGroup, cfg.Size), prog: []machine.Op{{Kind: kind}},
		release: cfg.Release, oversubscribe: cfg.Oversubscribe, stallLimit: int64(cfg.StallLimit), maxThreads: cfg.MaxThreads}
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

// withDefaults returns cfg with its zero fields at their defaults on a
// machine of cpus CPUs.
func (cfg Config) withDefaults(cpus int) Config {
	if cfg.Size == 0 {
		cfg.Size = cpus
	}
	if cfg.Oversubscribe == 0 {
		cfg.Oversubscribe = PoolOversubscribe
	}
	if cfg.StallLimit == 0 {
		cfg.StallLimit = DefaultStallLimit
	}
	if cfg.MaxThreads == 0 {
		cfg.MaxThreads = MaxMaxThreads
		if cfg.Release == Unix55 {
			cfg.MaxThreads = maxThreads55
		}
	}
	return cfg
}

// Validate reports what Install refuses on a machine of cpus CPUs: a
// *machine.FieldError naming ThreadPoolSize, ThreadPoolOversubscribe,
// ThreadPoolStallLimit or ThreadPoolMaxThreads and its range.
func Validate(cfg Config, cpus int) error {
	if cfg.Release > Unix55 {
		return machine.Invalid("ThreadPoolRelease", "sim: thread pool release %d, want Generic or Unix55: %w", cfg.Release, machine.ErrInvalidConfig)
	}
	d := cfg.withDefaults(cpus)
	most := MaxSize
	if cfg.Release == Unix55 {
		most = maxSize55
	}
	if d.Size < 1 || d.Size > most {
		what := ""
		if cfg.Size == 0 {
			what = fmt.Sprintf(" (0 takes the CPUs, %d)", cpus)
		}
		return machine.Invalid("ThreadPoolSize", "sim: ThreadPoolSize = %d%s, want 0 (the CPUs) or 1..%d (%v): %w", cfg.Size, what, most, cfg.Release, machine.ErrInvalidConfig)
	}
	if d.Oversubscribe < 1 || d.Oversubscribe > 1000 {
		return machine.Invalid("ThreadPoolOversubscribe", "sim: ThreadPoolOversubscribe = %d, want 0 (%d) or 1..1000: %w", cfg.Oversubscribe, PoolOversubscribe, machine.ErrInvalidConfig)
	}
	if st := d.StallLimit; st < time.Millisecond || st > MaxStallLimit || st%time.Millisecond != 0 {
		return machine.Invalid("ThreadPoolStallLimit", "sim: ThreadPoolStallLimit = %v, want 0 (500ms) or whole milliseconds in 1ms..%dms: %w", cfg.StallLimit, MaxStallLimit/time.Millisecond, machine.ErrInvalidConfig)
	}
	if d.MaxThreads < 1 || d.MaxThreads > MaxMaxThreads {
		return machine.Invalid("ThreadPoolMaxThreads", "sim: ThreadPoolMaxThreads = %d, want 0 (the release's default) or 1..%d: %w", cfg.MaxThreads, MaxMaxThreads, machine.ErrInvalidConfig)
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

// queuePut is queue_put of the ready connections (up to poolMaxEvents):
// under Generic each to the high queue while its THD is inside a
// transaction, else to the low one; under Unix55 to the one queue.
func (p *Pool) queuePut(g *poolGroup) {
	n := min(len(g.ready), poolMaxEvents)
	for _, c := range g.ready[:n] {
		conn := &p.conns[c]
		q := 1
		if conn.trx[conn.pc] || p.release == Unix55 {
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
func (p *Pool) tooManyThreads(g *poolGroup) bool {
	return g.active >= 1+p.oversubscribe && !g.stalled
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
			if !p.tooManyThreads(g) {
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
			if !p.tooManyThreads(g) {
				w.stage = wsPolled
				m.Syscall(id, sys) // io_poll_wait(…, 0)
				return false
			}
			p.sleep(id, w, g)
			return false
		case wsPolled:
			if len(g.ready) > 0 && p.release == Unix55 {
				// io_poll_wait(…, 1, 0): the one event taken is served
				c := g.ready[0]
				g.ready = g.ready[1:]
				p.serve(id, w, c)
				return false
			}
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
	refill := m.Refill(conn.foot)
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
