package client

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/innosim/innosim/prio"
	"github.com/innosim/innosim/sim/engine"
	"github.com/innosim/innosim/sim/machine"
)

// Config is the benchmark client when it runs on the simulated machine
// itself, as sysbench does when a study runs it on the server's host: one
// client thread per connection (sysbench 1.0's worker threads,
// sb_worker_thread → thread_run → the script's event()), each a thread of the
// machine competing with the server's threads for the same cores. Per request
// a client thread runs Event of user CPU (the Lua event loop: sysbench's
// sb_event_start and sb_event_stop with its latency histogram, the script's
// event(), e.g. oltp_common.lua's execute_point_selects binding a random id,
// and the client library building the packet), writes the request to the
// server (Send of kernel work) and blocks in its read of the reply
// (libmariadb's vio_read: a blocking recv on the Unix socket), then Recv of
// kernel work. Units are not counted on the client: the server's program
// counts them.
type Config struct {
	// Event is the client's user CPU per unit of the workload (query,
	// connection), spread evenly over the unit's requests; 0..1s.
	Event time.Duration
	// Send and Recv are the kernel work of the client's write of a request
	// and read of a reply beyond the system call's entry; 0..1s each.
	Send, Recv time.Duration
	// ServerCPU, when not 0, is the server's CPU per unit with one
	// connection, measured on the machine being modelled (innosim live's
	// server_cpu_us_per_query at one thread: mariadbd's user and system
	// time per query); 0..1s. Sockets.Add then scales the server
	// program's CPU bursts (OpCPU, OpReadView) by one factor so that a lone
	// connection costs the server ServerCPU per unit: ServerCPU less what
	// the machine charges besides the bursts there (each system call's
	// entry and kernel work, a context switch per receive, and with
	// SetRemoteWake a wake call per send, FutexWakeCall − Syscall), over the
	// bursts' sum. The workloads' bursts are one server's on one machine
	// (MySQL 5.1's statements on 2008 hardware); ServerCPU makes them this
	// server's on this one, as Event makes the client's. 0 keeps them.
	ServerCPU time.Duration
	// ServerFootprint and ClientFootprint are the bytes of the connection's
	// own state that a switch to its server thread and to its client thread
	// touches beyond the machine's CostProfile.SwitchFootprint: on the
	// server, what it holds per connection (MariaDB's THD, the thread's
	// stack and net buffers: innosim live's server_rss_kib growth per
	// connection), on the client, per thread (sysbench 1.0 gives each worker
	// thread a Lua state of its own, sb_lua_new_state: its client_rss_kib
	// growth per thread). Every switch to the thread refills them after the
	// other threads' footprints went through the caches
	// (CostProfile.SwitchCostOf), and they are in what evicts the others';
	// 0..1 GiB each, 0 adds nothing. A footprint needs a profile with caches
	// (CacheL2, CacheLLC: a calibrated one); Sockets.Add refuses one
	// otherwise, which would charge it nothing.
	ServerFootprint, ClientFootprint int64
	// StatsMutexes runs each client event through the global mutexes of
	// sysbench 0.4 and 0.5's statistics (sb_logger.c, script_lua.c): its
	// LOG_EVENT_START takes timers_mutex to start the thread's timer, its
	// LOG_EVENT_STOP takes timers_mutex again to stop it and the
	// percentile's mutex to count the time (sb_percentile_update), and the
	// Lua driver counts it into a second percentile under that one's mutex:
	// four pthread-mutex sections of StatsHold each, out of Event, around
	// one round of the server's program. false is sysbench 1.0, whose timers
	// and histograms are per thread.
	StatsMutexes bool
}

// StatsHold is the CPU inside each of StatsMutexes' sections: a timer's
// clock read or a histogram cell's increment (an estimate).
const StatsHold = 100 * time.Nanosecond

// Validate reports a field out of range, wrapping ErrInvalidConfig.
func (c Config) Validate() error {
	for _, f := range []struct {
		name string
		d    time.Duration
	}{{"Event", c.Event}, {"Send", c.Send}, {"Recv", c.Recv}, {"ServerCPU", c.ServerCPU}} {
		if f.d < 0 || f.d > time.Second {
			return machine.Invalid(f.name, "sim: ClientConfig.%s = %v, want 0..1s: %w", f.name, f.d, machine.ErrInvalidConfig)
		}
	}
	for _, f := range []struct {
		name string
		n    int64
	}{{"ServerFootprint", c.ServerFootprint}, {"ClientFootprint", c.ClientFootprint}} {
		if f.n < 0 || f.n > 1<<30 {
			return machine.Invalid(f.name, "sim: ClientConfig.%s = %d, want 0..%d bytes: %w", f.name, f.n, 1<<30, machine.ErrInvalidConfig)
		}
	}
	return nil
}

// sockEnd is one end of a connection's socket: the peer (a thread, or a
// pooled connection's session key) and the packets sent to this end and not
// yet read.
type sockEnd struct {
	peer    int32
	pending int32
	waiting bool // blocked in OpSockRecv
}

// Sockets are the connections' sockets (Add, AddRemote): each end by its
// session (a thread's own id, or a pooled connection's key), and each
// thread's progress through OpSockSend and OpSockRecv.
type Sockets struct {
	m       *machine.Machine
	ends    []sockEnd   // by thread id
	pooled  []sockEnd   // by pooled connection (session key −2 − c)
	stage   []sockStage // by thread id
	adding  bool        // Add is adding its threads
	poller  Poller      // the thread pool serving the connections, or nil
	remotes []remote    // clients across the network (AddRemote), by remote key
	evSend  engine.Kind // a remote client's request reaches the server
	// stats are sysbench 0.4/0.5's timers_mutex and its two percentiles'
	// mutexes (Config.StatsMutexes), added at the first Add that wants them.
	stats []int32
}

// remote is a client across the network (AddRemote): the round trip
// before each of its requests (the workload's wait for its client), which
// of them it reads no reply to (SleepLast), the request it sends next, and
// the server end its requests go to.
type remote struct {
	rtts   []time.Duration
	noRead []bool
	next   int
	server int32
}

// remotePeer is the peer key of remote client r: below every session key
// (a thread id is ≥ 0, a pooled connection ≤ −2, and −1 is no peer).
func remotePeer(r int) int32 { return math.MinInt32 + int32(r) }

// remoteOf returns the remote client of peer key k, or -1.
func remoteOf(k int32) int {
	if k < math.MinInt32/2 {
		return int(k - math.MinInt32)
	}
	return -1
}

// sockStage is how far a thread has got in OpSockSend or OpSockRecv.
type sockStage uint8

const (
	sockStart   sockStage = iota
	sockCharged           // the system call's entry is charged: look at the queue
	sockReading           // reading the packet: Dur of kernel work
)

// A Poller serves connections that have no server thread of their own:
// MariaDB's thread pool, whose connections wait in their group's epoll set.
type Poller interface {
	// Connect adds a connection whose THD runs server and touches foot
	// bytes of its own, and returns its session key (≤ −2).
	Connect(server []machine.Op, foot int64) int32
	// Readable is a packet reaching pooled connection k.
	Readable(k int32)
	// Receive is thread id's receive on the pooled connection it serves: it
	// reports whether the receive reads a request now; false means the
	// request is over and the Poller has taken the thread back.
	Receive(id int32) bool
}

// Install installs the connections' sockets on m: OpSockSend and
// OpSockRecv of the threads Add adds. poller, when not nil, serves the
// connections' server side (a thread pool): Add then adds only the client's
// thread, and AddRemote none.
func Install(m *machine.Machine, poller Poller) *Sockets {
	s := &Sockets{m: m, poller: poller}
	m.Handle(machine.OpSockSend, s)
	m.Handle(machine.OpSockRecv, s)
	s.evSend = m.Engine().On(s.onRemoteSend)
	return s
}

// RoundTrips returns, for each wait of prog for its client (an OpSleep of
// SleepClient or SleepLast, in order: ServerProgram's receives), its
// duration, the round trip to a client across the network before that
// request reaches the server, and whether it is a SleepLast one, after
// which the client reads no reply.
func RoundTrips(prog []machine.Op) (rtts []time.Duration, noRead []bool) {
	for _, op := range prog {
		if waitsForClient(op) {
			rtts = append(rtts, op.Dur)
			noRead = append(noRead, op.Arg == machine.SleepLast)
		}
	}
	return rtts, noRead
}

// AddRemote adds a connection served by the poller (a thread pool) whose
// client is across the network, not on the machine: no client thread, and
// each request reaches the server's end a round trip (drawn with
// Engine.Jitter) after the client read the reply before it, or, after a
// request it reads no reply to, after it sent that one; the first a round
// trip after the start. rtts and noRead are RoundTrips of the workload's
// program, server its ServerProgram. The arrival wakes the pool's listener
// as a packet from the network does: from no running thread (the NIC's
// interrupt), so with no sync wake.
func (s *Sockets) AddRemote(server []machine.Op, rtts []time.Duration, noRead []bool) error {
	if s.poller == nil {
		return fmt.Errorf("sim: a remote client for a connection with a thread of its own, want a thread pool's sockets (a thread per connection waits its round trip in OpSleep): %w", machine.ErrInvalidConfig)
	}
	recvs := 0
	for _, op := range server {
		if op.Kind == machine.OpSockRecv {
			recvs++
		}
	}
	if recvs == 0 || recvs != len(rtts) || len(rtts) != len(noRead) {
		return fmt.Errorf("sim: connection's server program has %d receives and its client %d round trips, want as many, at least one: %w", recvs, len(rtts), machine.ErrInvalidConfig)
	}
	s.adding = true
	defer func() { s.adding = false }()
	if err := s.m.CheckProgram(server); err != nil {
		return err
	}
	r := len(s.remotes)
	k := s.poller.Connect(server, 0)
	s.remotes = append(s.remotes, remote{rtts: rtts, noRead: noRead, server: k})
	s.end(k).peer = remotePeer(r)
	s.remoteSend(r)
	return nil
}

// remoteSend makes remote client r send its next request a round trip
// from now.
func (s *Sockets) remoteSend(r int) {
	rc := &s.remotes[r]
	e := s.m.Engine()
	e.At(e.Now()+e.Jitter(rc.rtts[rc.next]), s.evSend, int32(r), 0)
}

// onRemoteSend is remote client r's request reaching the server's end;
// after one it reads no reply to, it sends the next.
func (s *Sockets) onRemoteSend(_ int64, r32 int32, _ uint32) {
	rc := &s.remotes[r32]
	i := rc.next
	rc.next = (rc.next + 1) % len(rc.rtts)
	s.end(rc.server).pending++
	s.poller.Readable(rc.server)
	if rc.noRead[i] {
		s.remoteSend(int(r32))
	}
}

// end returns session k's end of its socket.
func (s *Sockets) end(k int32) *sockEnd {
	if k <= -2 {
		c := int(-2 - k)
		for c >= len(s.pooled) {
			s.pooled = append(s.pooled, sockEnd{peer: -1})
		}
		return &s.pooled[c]
	}
	for int(k) >= len(s.ends) {
		s.ends = append(s.ends, sockEnd{peer: -1})
	}
	return &s.ends[k]
}

// Pending returns the packets sent to session k and not yet read.
func (s *Sockets) Pending(k int32) int32 { return s.end(k).pending }

// CheckOp refuses a socket op of a thread that Add is not adding:
// it would have no peer.
func (s *Sockets) CheckOp(op machine.Op) error {
	if !s.adding {
		return errNoPeer(op.Kind)
	}
	return nil
}

func errNoPeer(k machine.OpKind) error {
	return fmt.Errorf("sim: op %d needs a connection peer, want the thread added by AddConnection: %w", k, machine.ErrInvalidConfig)
}

// ServerProgram returns prog as the server thread of a connection whose
// client runs on the machine (Sockets.Add): every OpSleep that
// waits for the client (SleepClient, SleepLast) becomes an OpSockRecv
// (merged with the OpSyscall after it, the read of the request, when there
// is one; a SleepLast's receive keeps its Arg), and the last OpSyscall
// before each such wait, the write of the reply (or of the greeting),
// becomes an OpSockSend, which wakes the client; a wait with no system call
// before it in the program gets an OpSockSend of no work. A wait that
// follows a SleepLast gets no send: the client reads nothing after that
// request (mysql_close's COM_QUIT) and sends the next one at once. A
// SleepServer wait stays a sleep: it waits for another server thread; so
// does a SleepThink one, which is no request (Cell refuses a Client for a
// workload with one). The result has as many sends as receives but
// SleepLast's. The server waits on
// its socket as one-thread-per-connection does (do_command → my_net_read, a
// blocking read); a pooled connection waits in its group's epoll set, with
// the same result for this model (see PoolOfThreads).
func ServerProgram(prog []machine.Op) []machine.Op {
	n := len(prog)
	send := make([]bool, n)
	for i, op := range prog {
		if !waitsForClient(op) {
			continue
		}
		j := i
		for k := 1; k < n; k++ {
			j = (i - k + n) % n
			if prog[j].Kind == machine.OpSyscall || prog[j].Kind == machine.OpSleep {
				break // a server wait ends the scan too: the reply follows it
			}
		}
		switch {
		case prog[j].Kind == machine.OpSleep && prog[j].Arg == machine.SleepLast:
			// the client's request after COM_QUIT: no reply before it
		case prog[j].Kind == machine.OpSyscall && !send[j] && !afterLast(prog, j):
			send[j] = true
		case !afterLast(prog, i):
			send[i] = true // a send of no work before this wait
		}
	}
	out := make([]machine.Op, 0, n+4)
	for i := 0; i < n; i++ {
		op := prog[i]
		switch {
		case waitsForClient(op):
			if send[i] {
				out = append(out, machine.Op{Kind: machine.OpSockSend})
			}
			recv := machine.Op{Kind: machine.OpSockRecv, Arg: op.Arg}
			if i+1 < n && prog[i+1].Kind == machine.OpSyscall && !send[i+1] {
				recv.Dur = prog[i+1].Dur
				i++
			}
			out = append(out, recv)
		case send[i]:
			out = append(out, machine.Op{Kind: machine.OpSockSend, Dur: op.Dur})
		default:
			out = append(out, op)
		}
	}
	return out
}

// waitsForClient reports whether op is a wait for the client (an OpSleep
// of SleepClient or SleepLast), which ServerProgram makes a receive.
func waitsForClient(op machine.Op) bool {
	return op.Kind == machine.OpSleep && (op.Arg == machine.SleepClient || op.Arg == machine.SleepLast)
}

// afterLast reports whether op i of prog comes after a SleepLast wait with no
// other wait for the client between (cyclically): the server has nothing to
// reply there.
func afterLast(prog []machine.Op, i int) bool {
	n := len(prog)
	for k := 1; k <= n; k++ { // k = n is op i itself: a program whose one wait is a SleepLast
		j := (i - k + n) % n
		if waitsForClient(prog[j]) {
			return prog[j].Arg == machine.SleepLast
		}
	}
	return false
}

// Prepare checks a connection's server program and client config as Add
// does, on a machine of costs p whose connections a pool serves (pooled) or
// not, and returns the programs Add runs: the server's (its bursts scaled by
// c.ServerCPU) and its client's. It adds nothing to a machine.
func Prepare(server []machine.Op, c Config, p *machine.CostProfile, pooled bool) (serverOut, client []machine.Op, err error) {
	if err := c.Validate(); err != nil {
		return nil, nil, err
	}
	if (c.ServerFootprint > 0 || c.ClientFootprint > 0) && !p.HasCaches() {
		// RefillOf charges nothing without caches: the footprints would be ignored
		field := "ServerFootprint"
		if c.ServerFootprint == 0 {
			field = "ClientFootprint"
		}
		return nil, nil, machine.Invalid(field, "sim: ClientConfig footprints (server %d, client %d bytes) with costs %q, which has no caches to refill them (CacheL2 %d, CacheLLC %d): want a calibrated profile, or footprints of 0: %w",
			c.ServerFootprint, c.ClientFootprint, p.Name, p.CacheL2, p.CacheLLC, machine.ErrInvalidConfig)
	}
	sends, recvs, last, units := 0, 0, 0, int64(0)
	for _, op := range server {
		switch op.Kind {
		case machine.OpSockSend:
			sends++
		case machine.OpSockRecv:
			recvs++
			if op.Arg == machine.SleepLast {
				last++
			}
		case machine.OpDone:
			units += int64(op.Arg)
		}
	}
	if recvs == 0 || sends != recvs-last {
		return nil, nil, fmt.Errorf("sim: connection's server program has %d sends and %d receives (%d of a request the client reads no reply to), want a send for every other receive and at least one receive: %w",
			sends, recvs, last, machine.ErrInvalidConfig)
	}
	if recvs == last {
		return nil, nil, fmt.Errorf("sim: connection's server program has %d receives, all of requests the client reads no reply to (SleepLast): want at least one the client waits for, or its client would only send: %w",
			recvs, machine.ErrInvalidConfig)
	}
	if c.ServerCPU > 0 {
		if server, err = scaleServer(server, c, p, pooled); err != nil {
			return nil, nil, err
		}
	}
	// Event is per unit: a round of the program that counts k units (a
	// batch of rows) costs the client k × Event, spread over its receives
	each := c.Event * time.Duration(max(units, 1)) / time.Duration(recvs)
	client = make([]machine.Op, 0, 3*recvs)
	for _, op := range server {
		if op.Kind != machine.OpSockRecv {
			continue
		}
		client = append(client, machine.Op{Kind: machine.OpCPU, Dur: each}, machine.Op{Kind: machine.OpSockSend, Dur: c.Send})
		if op.Arg != machine.SleepLast { // after COM_QUIT the client reads nothing: it sends the next request
			client = append(client, machine.Op{Kind: machine.OpSockRecv, Dur: c.Recv})
		}
	}
	return server, client, nil
}

// Add adds a connection whose client runs on the machine: a
// server thread that runs server (a program with OpSockSend and
// OpSockRecv, such as ServerProgram makes, starting blocked in its first
// receive when that is its first op) and a client thread that, once per
// receive of the server's program, runs c.Event for each unit the program
// counts (OpDone) divided among them, sends
// (c.Send) and receives (c.Recv), but for a receive whose Arg is SleepLast
// (see ServerProgram) it only sends. Both start at time 0 with hint h. The
// server's program must have a send for every receive but those and at
// least one receive, and c's footprints a machine whose profile has caches.
func (s *Sockets) Add(server []machine.Op, h prio.Hint, c Config) error {
	m := s.m
	server, client, err := Prepare(server, c, m.Costs(), s.poller != nil)
	if err != nil {
		return err
	}
	if c.StatsMutexes {
		if client, err = s.withStats(client); err != nil {
			return err
		}
	}
	s.adding = true
	defer func() { s.adding = false }()
	if s.poller != nil {
		// the server side runs on the pool's workers, not on a thread of its own
		cid := int32(m.Threads())
		if err := m.CheckProgram(server); err != nil {
			return err
		}
		if err := m.AddThreadOn(s.clientCores(), client, prio.Normal); err != nil {
			return err
		}
		k := s.poller.Connect(server, c.ServerFootprint)
		s.end(cid).peer = k
		s.end(k).peer = cid
		m.SetFootprint(cid, c.ClientFootprint)
		m.AddFootprint(c.ServerFootprint)
		return nil
	}
	sid := int32(m.Threads())
	if err := m.AddThread(server, h); err != nil {
		return err
	}
	if err := m.AddThreadOn(s.clientCores(), client, prio.Normal); err != nil {
		return err // not reached: what AddThread checks passed for the server
	}
	s.end(sid).peer = sid + 1 // each end grows the slice the other may be in: one at a time
	s.end(sid + 1).peer = sid
	m.SetFootprint(sid, c.ServerFootprint)
	m.SetFootprint(sid+1, c.ClientFootprint)
	return nil
}

// clientCores is the set of cores the client threads run on: the client's
// own (machine.Config.ClientCPUs) when the machine has them, else the
// server's.
func (s *Sockets) clientCores() machine.CoreSet {
	if s.m.Config().ClientCPUs > 0 {
		return machine.ClientCores
	}
	return machine.ServerCores
}

// scaleServer returns a copy of server whose CPU bursts are scaled so that
// one connection alone costs the server c.ServerCPU of CPU per unit it
// counts (see Config.ServerCPU), or an error if that is below what the
// machine charges the program besides its bursts. A receive's switch is
// the server thread's with its client the only other thread; with the
// worker pool (package threadpool) it is the listener's, woken from
// epoll_wait, and a receive costs that call's entry and a second entry of
// its own (the re-arm after the request, then the read).
func scaleServer(server []machine.Op, c Config, p *machine.CostProfile, pooled bool) ([]machine.Op, error) {
	perUnit := c.ServerCPU
	w := p.SwitchFootprint
	lone := p.SwitchCost(2)
	if c.ServerFootprint > 0 || c.ClientFootprint > 0 {
		lone = p.SwitchCostOf(w+c.ServerFootprint, w+c.ClientFootprint)
	}
	var poolRecv int64
	if pooled {
		lone = p.SwitchCostOf(w, w+c.ClientFootprint)
		poolRecv = int64(p.Syscall + p.SyscallCost(machine.SysSocket))
	}
	var units, bursts, fixed int64
	for _, op := range server {
		switch op.Kind {
		case machine.OpDone:
			units += int64(op.Arg)
		case machine.OpCPU, machine.OpReadView: // one active transaction: its own
			bursts += int64(op.Dur)
		case machine.OpSyscall:
			fixed += int64(p.SyscallCost(machine.SyscallKind(op.Arg))) + int64(op.Dur)
		case machine.OpSockRecv:
			fixed += int64(p.SyscallCost(machine.SysSocket)) + int64(op.Dur) + int64(lone) + poolRecv
		case machine.OpSockSend:
			fixed += int64(p.SyscallCost(machine.SysSocket)) + int64(op.Dur)
		}
	}
	want := int64(perUnit) * units
	if units == 0 || bursts == 0 || want <= fixed {
		return nil, machine.Invalid("ServerCPU", "sim: ClientConfig.ServerCPU = %v per unit, want more than the %v per unit the machine charges the server's program besides its CPU bursts (system calls, switches, wakes), in a program that counts units and has bursts: %w",
			perUnit, time.Duration(fixed/max(units, 1)), machine.ErrInvalidConfig)
	}
	k := float64(want-fixed) / float64(bursts)
	out := slices.Clone(server)
	for i := range out {
		if out[i].Kind == machine.OpCPU || out[i].Kind == machine.OpReadView {
			out[i].Dur = time.Duration(float64(out[i].Dur)*k + 0.5)
		}
	}
	return out, nil
}

// Step runs OpSockSend and OpSockRecv, as a Unix stream socket between a
// client and a server thread does (net/unix/af_unix.c): a send queues the
// packet on the peer's receive queue and calls its sk_data_ready
// (sock_def_readable → wake_up_interruptible_sync_poll → try_to_wake_up) if
// the peer sleeps in its read, then returns; a receive with nothing queued
// sleeps in unix_stream_data_wait until a send wakes it. The wake is the
// scheduler's (Machine.Wake; with SetRemoteWake, a wake onto an idle CPU
// pays its interrupt) made with WF_SYNC (Machine.WakeSync). A packet for a
// pooled connection makes it readable to the pool instead, and a pool
// worker's receive ends its request unless it reads one (Poller). It reports
// whether the thread goes on.
func (s *Sockets) Step(id int32, op *machine.Op) bool {
	m := s.m
	for int(id) >= len(s.stage) {
		s.stage = append(s.stage, sockStart)
	}
	st := &s.stage[id]
	key := m.Session(id)
	end := s.end(key)
	if op.Kind == machine.OpSockSend {
		if *st != sockStart {
			*st = sockStart
			return true
		}
		*st = sockCharged
		peer := end.peer
		if r := remoteOf(peer); r >= 0 {
			s.remoteSend(r) // the client across the network reads the reply
		} else if p := s.end(peer); peer <= -2 {
			p.pending++
			s.poller.Readable(peer)
		} else {
			p.pending++
			if p.waiting {
				p.waiting = false
				m.WakeSync(peer)
			}
		}
		m.Syscall(id, int64(m.Costs().SyscallCost(machine.SysSocket))+m.Jitter(op.Dur)) // unix_stream_sendmsg
		return false
	}
	switch *st {
	case sockStart: // the system call's entry
		*st = sockCharged
		m.Syscall(id, int64(m.Costs().SyscallCost(machine.SysSocket))) // unix_stream_recvmsg
		return false
	case sockCharged: // look at the receive queue
		if key <= -2 {
			*st = sockStart // the request may end here, and the worker take another
			if !s.poller.Receive(id) {
				return false
			}
			*st = sockCharged
		}
		if end.pending == 0 {
			end.waiting = true
			m.Block(id)
			return false
		}
		end.pending--
		*st = sockReading
		m.Burst(id, m.Jitter(op.Dur), machine.CatSys)
		return false
	}
	*st = sockStart
	return true
}

// withStats returns client's program with Config.StatsMutexes' sections:
// timers_mutex before the round's first op, timers_mutex and the two
// percentiles' mutexes after its last, StatsHold each, taken from the
// round's first burst of Event.
func (s *Sockets) withStats(client []machine.Op) ([]machine.Op, error) {
	if len(s.stats) == 0 {
		for _, name := range []string{"sysbench timers_mutex", "sysbench percentile", "sysbench local_percentile"} {
			s.stats = append(s.stats, s.m.AddMutex(machine.Mutex{Name: name})) // pthread mutexes
		}
	}
	if len(client) == 0 || client[0].Kind != machine.OpCPU || client[0].Dur < 4*StatsHold {
		return nil, machine.Invalid("Event", "sim: ClientConfig.StatsMutexes wants an Event of at least %v a round for its four sections: %w", 4*StatsHold, machine.ErrInvalidConfig)
	}
	section := func(mu int32) []machine.Op {
		return []machine.Op{{Kind: machine.OpLock, Arg: mu}, {Kind: machine.OpCPU, Dur: StatsHold}, {Kind: machine.OpUnlock, Arg: mu}}
	}
	timers, pct, local := s.stats[0], s.stats[1], s.stats[2]
	out := section(timers)
	out = append(out, client...)
	out[3].Dur -= 4 * StatsHold
	out = append(out, section(timers)...)
	out = append(out, section(pct)...)
	return append(out, section(local)...), nil
}
