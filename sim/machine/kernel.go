package machine

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/innosim/innosim/prio"
)

// The kernel API: what the machine offers the mechanisms it steps. A
// mechanism (the device, the redo log, row locks, the buffer pool and its
// page cleaner, the AIO drivers, the gate, the client's sockets, the thread
// pool) owns its per-thread state, indexed by thread id, and runs the ops of
// the kinds it registered with Handle. To make a thread take time it asks
// for a burst of CPU (Burst, Syscall), blocks the thread (Block, Sleep) and
// later makes it runnable (Wake, WakeGen), takes and releases InnoDB
// mutexes (Lock, Unlock), waits and wakes through futex hash buckets
// (FutexWait, FutexWake), and schedules events of its own on the machine's
// engine (Engine). It never reaches another mechanism's state.

// A Stepper runs the ops of the kinds it is registered for (Machine.Handle).
// Step is called when thread id reaches op, and again each time the thread
// runs after Step stopped it; it reports whether the op is done, and the
// thread goes on to its next op. False means Step stopped the thread: it
// started a burst, blocked the thread or began a wait, and the Stepper keeps
// how far the thread has got in op in its own per-thread state.
type Stepper interface {
	Step(id int32, op *Op) bool
}

// Handle makes s run the ops of kind k; an op of a kind no Stepper handles
// does nothing (a gate's ops on a machine without a gate).
func (m *Machine) Handle(k OpKind, s Stepper) { m.steppers[k] = s }

// Handled reports whether a Stepper handles op kind k (a mechanism of that
// kind is installed).
func (m *Machine) Handled(k OpKind) bool { return int(k) < len(m.steppers) && m.steppers[k] != nil }

// Burst runs d ns of CPU of category cat on running thread id's core; its
// Stepper is called again when the burst ends.
func (m *Machine) Burst(id int32, d int64, cat Cat) { m.runBurst(&m.threads[id], id, d, cat) }

// Syscall counts one system call of running thread id and runs ns of kernel
// CPU (the caller's cost of the call, its entry included: Costs().Syscall).
func (m *Machine) Syscall(id int32, ns int64) { m.Syscalls(id, 1, ns) }

// Syscalls counts n system calls of running thread id and runs ns of kernel
// CPU for all of them.
func (m *Machine) Syscalls(id int32, n int, ns int64) {
	m.syscalls += uint64(n)
	m.runBurst(&m.threads[id], id, ns, CatSys)
}

// Block takes thread id off its core (or off the run queue) until a Wake.
func (m *Machine) Block(id int32) { m.block(&m.threads[id]) }

// Sleep blocks thread id and wakes it ns from now.
func (m *Machine) Sleep(id int32, ns int64) {
	t := &m.threads[id]
	m.block(t)
	m.e.At(m.e.Now()+ns, m.evWake, id, t.gen)
}

// Wake makes blocked thread id runnable, as the scheduler places a wake; a
// thread that is not blocked is left as it is.
func (m *Machine) Wake(id int32) { m.wake(id) }

// WakeSync wakes thread id as a socket wakes its reader (WF_SYNC; see
// wakeSync).
func (m *Machine) WakeSync(id int32) { m.wakeSync(id) }

// Gen returns thread id's generation: it changes whenever the thread blocks,
// wakes or leaves its core, so that a wake kept with the generation of a wait
// (WakeGen) reaches only that wait.
func (m *Machine) Gen(id int32) uint32 { return m.threads[id].gen }

// WakeGen wakes thread id if it is still in the wait whose generation was gen.
func (m *Machine) WakeGen(id int32, gen uint32) {
	if m.threads[id].gen == gen {
		m.wake(id)
	}
}

// Blocked reports whether thread id is blocked.
func (m *Machine) Blocked(id int32) bool { return m.threads[id].state == stBlocked }

// Lock takes InnoDB mutex mi for thread id (see Machine.lock): it reports
// whether id holds it and goes on; false means id stopped, spinning or
// waiting, and Lock is called again, with the same mi, when it runs.
func (m *Machine) Lock(id, mi int32) bool { return m.sy.lock(&m.threads[id], id, mi) }

// Unlock releases mutex mi for thread id: it reports whether the release is
// done; false means id stopped in its wake of the waiters, and Unlock is
// called again when it runs.
func (m *Machine) Unlock(id, mi int32) bool { return m.sy.unlock(&m.threads[id], id, mi) }

// AddBucket adds a futex hash bucket and returns it, for FutexWait and
// FutexWake.
func (m *Machine) AddBucket() int32 { return m.sy.addBucket() }

// Now returns the virtual time in ns.
func (m *Machine) Now() int64 { return m.e.Now() }

// Clock returns the virtual time as a time.Duration since the start: the
// clock the policy cores are given.
func (m *Machine) Clock() time.Duration { return m.clock() }

// Jitter draws a duration uniformly in [0.5, 1.5) × d, in ns (Engine.Jitter).
func (m *Machine) Jitter(d time.Duration) int64 { return m.e.Jitter(d) }

// Rand returns the machine's seeded random source (Engine.Rand).
func (m *Machine) Rand() *rand.Rand { return m.e.Rand() }

// Costs returns the machine's cost profile; it is not to be changed.
func (m *Machine) Costs() *CostProfile { return &m.cfg.Costs }

// CountIO counts n I/Os of kind k in the machine's I/O figures (Result's
// Reads, Writes, Fsyncs): a device counts those it completes, a mechanism
// without a device those it starts at the profile's IOService.
func (m *Machine) CountIO(k IOKind, n uint64) { m.ioCount[k] += n }

// IOCount returns the I/Os of kind k counted since the start (CountIO).
func (m *Machine) IOCount(k IOKind) uint64 { return m.ioCount[k] }

// WaitKind is what a thread waits for inside the server when a mechanism
// tells the session host (thd_wait_begin's thd_wait_type, sql/scheduler.h):
// the host decides, by the release it models, which kinds it acts on.
type WaitKind uint8

const (
	// WaitRowLock is a row lock's wait (THD_WAIT_ROW_LOCK: lock_wait in
	// MariaDB 10.6 on, srv_suspend_mysql_thread in 5.5).
	WaitRowLock WaitKind = iota
	// WaitUserLock is innodb_thread_concurrency's queue (THD_WAIT_USER_LOCK:
	// srv_conc_enter_innodb in 5.5).
	WaitUserLock
	// WaitDiskIO is a synchronous page read (THD_WAIT_DISKIO:
	// buf_read_page_low).
	WaitDiskIO
	// WaitGroupCommit is a commit waiting for another's redo log write and
	// flush (THD_WAIT_GROUP_COMMIT: group_commit_lock::acquire, 10.5 on; 5.5
	// waits on log_sys->no_flush_event without telling the scheduler).
	WaitGroupCommit
	numWaitKinds
)

// String names the wait as thd_wait_type does.
func (k WaitKind) String() string {
	switch k {
	case WaitRowLock:
		return "row lock"
	case WaitUserLock:
		return "user lock"
	case WaitDiskIO:
		return "disk io"
	case WaitGroupCommit:
		return "group commit"
	}
	return fmt.Sprintf("wait(%d)", uint8(k))
}

// WaitBegin is thd_wait_begin for thread id, which has just blocked in a
// wait of kind k inside the server (a row lock, a page read, another
// commit's log flush): the session host may give the thread's group another
// worker meanwhile.
func (m *Machine) WaitBegin(id int32, k WaitKind) {
	if m.host != nil {
		m.host.WaitBegin(id, k)
	}
}

// WaitEnd is thd_wait_end for thread id, running again after the wait
// WaitBegin began.
func (m *Machine) WaitEnd(id int32) {
	if m.host != nil {
		m.host.WaitEnd(id)
	}
}

// StepOp runs op for thread id as if the thread had reached it in its
// program: the Stepper of its kind, or nothing when no mechanism handles the
// kind. A mechanism uses it to run another's op inside its own (a row lock's
// wait leaves InnoDB's gate as OpGateExit does, and enters it again after);
// the same resumption rule as Step holds.
func (m *Machine) StepOp(id int32, op *Op) bool {
	if s := m.steppers[op.Kind]; s != nil {
		return s.Step(id, op)
	}
	return true
}

// A SessionHost runs sessions that have no thread of their own on threads it
// owns: MariaDB's thread pool, whose workers serve connections (their THDs)
// one request at a time. The machine asks it whose session a thread runs,
// tells it the units a served session completes, and tells it when a thread
// begins and ends a wait inside the server (thd_wait_begin, thd_wait_end).
type SessionHost interface {
	// Session returns the session thread id runs now: its own id, or the
	// key (≤ −2) of the session it serves.
	Session(id int32) int32
	// SessionThread returns the thread serving session k (≤ −2) now, or −1.
	SessionThread(k int32) int32
	// Done counts n units (OpDone) that thread id completed.
	Done(id int32, n uint64)
	// WaitBegin and WaitEnd bracket a wait of kind k of thread id
	// (Machine.WaitBegin).
	WaitBegin(id int32, k WaitKind)
	WaitEnd(id int32)
}

// SetSessionHost installs h, the machine's one session host.
func (m *Machine) SetSessionHost(h SessionHost) { m.host = h }

// Session returns the session thread id runs now: its own id, or, for a
// thread the session host lends to a session (a pool worker serving a
// connection), the session's key (≤ −2: a connection's THD, whose
// transaction the next request may run on another worker).
func (m *Machine) Session(id int32) int32 {
	if m.host != nil {
		return m.host.Session(id)
	}
	return id
}

// SessionThread returns the thread running session k now, or −1 (a pooled
// connection between requests).
func (m *Machine) SessionThread(k int32) int32 {
	if k >= 0 || m.host == nil {
		return k
	}
	return m.host.SessionThread(k)
}

// Exec makes thread id, running, interpret prog from op pc (a session's
// program, or back to the thread's own): the session host's switch of a
// worker between connections.
func (m *Machine) Exec(id int32, prog []Op, pc int32) {
	t := &m.threads[id]
	t.prog, t.pc, t.step = prog, pc, opStart
	m.advance(t, id)
}

// PC returns the op thread id is at in its program.
func (m *Machine) PC(id int32) int32 { return m.threads[id].pc }

// NewOpKind returns an op kind of the machine's own, beyond the public ones,
// for a mechanism's thread whose whole program is one op that its Stepper
// runs (Handle): a pool worker's loop. AddThread accepts an op of such a kind
// once a Stepper handles it, and counts it as an op that takes time.
func (m *Machine) NewOpKind() OpKind {
	m.steppers = append(m.steppers, nil)
	return OpKind(len(m.steppers) - 1)
}

// Threads returns the machine's threads so far.
func (m *Machine) Threads() int { return len(m.threads) }

// SetFootprint gives thread id bytes of its own state that a switch to it
// refills (ClientConfig's footprints), beyond CostProfile.SwitchFootprint;
// the bytes also join what evicts the others' of its set of cores.
func (m *Machine) SetFootprint(id int32, bytes int64) {
	t := &m.threads[id]
	m.sets[t.set].footSum += bytes - t.foot
	t.foot = bytes
}

// AddFootprint adds bytes of state that no thread of its own touches (a
// pooled connection's THD) to what evicts the footprints of the server's
// cores' threads.
func (m *Machine) AddFootprint(bytes int64) { m.sets[ServerCores].footSum += bytes }

// Refill returns the ns a thread of the server's cores spends refilling own
// bytes of state it takes up (a pooled connection's THD, counted in
// AddFootprint) after the footprints of that set's threads and the state
// AddFootprint added, less own, went through the set's caches
// (CostProfile.RefillOf); 0 without caches.
func (m *Machine) Refill(own int64) float64 {
	q := &m.sets[ServerCores]
	others := float64(int64(q.threads)*q.costs.SwitchFootprint + q.footSum - own)
	return q.costs.RefillOf(own, others)
}

// A Checker is a Stepper that refuses the ops of its kinds that it could
// not run (AddThread calls it for each such op of a program).
type Checker interface {
	CheckOp(op Op) error
}

// CheckProgram reports what a thread running prog could not run, as
// AddThread does, without adding the thread: for a session's program that
// threads of a session host run.
func (m *Machine) CheckProgram(prog []Op) error { return m.checkProgram(prog) }

// RestartTrx ends thread id's transaction (the machine's count of active
// transactions) and makes its program's first op its next, as sysbench
// retries a transaction that got a deadlock error; with priorities on, the
// thread waits for its client at the Wait priority, as after any statement.
func (m *Machine) RestartTrx(id int32) {
	t := &m.threads[id]
	m.trxEnd(t)
	if m.cfg.Priorities {
		t.hint = prio.Wait
		t.weight = cfsWeight(t.hint)
	}
	t.pc = int32(len(t.prog) - 1)
}

// mechanisms reports whether a mechanism is installed (a Stepper handles an
// op kind).
func (m *Machine) mechanisms() bool {
	for _, s := range m.steppers {
		if s != nil {
			return true
		}
	}
	return false
}

// wakeSync wakes thread id as a socket wakes its reader: unix_stream_sendmsg
// calls sk_data_ready, sock_def_readable, whose
// wake_up_interruptible_sync_poll passes WF_SYNC (the waker is about to
// block in its own read), and the scheduler's wake_affine_idle then keeps
// the woken thread on the waker's CPU (kernel/sched/fair.c: sync and the
// waker all that runs there). So the woken thread takes no idle core and
// pays no interrupt to one (SetRemoteWake's cost): it preempts a worse
// running thread, as any wake may, or waits for the core its waker is
// leaving. An epoll waiter is woken the same way (ep_poll_callback passes
// the sync flag on).
func (m *Machine) wakeSync(id int32) {
	m.syncWake = true
	m.wake(id)
	m.syncWake = false
}

// Config returns the machine's configuration, its cost profile filled in.
func (m *Machine) Config() Config { return m.cfg }

// MutexCount returns how many mutexes the machine has (AddMutex's indices
// are 0..MutexCount−1).
func (m *Machine) MutexCount() int { return len(m.sy.mutexes) }

// Units returns the OpDone units the machine's threads have completed.
func (m *Machine) Units() uint64 { return m.units }

// CountingThreads returns the threads whose programs count units (an OpDone
// of at least one): a connection's server thread, not its client or an AIO
// handler.
func (m *Machine) CountingThreads() int {
	n := 0
	for _, t := range m.threads {
		if slices.ContainsFunc(t.prog, func(o Op) bool { return o.Kind == OpDone && o.Arg > 0 }) {
			n++
		}
	}
	return n
}

// SleeperCreditWarmup is the virtual time before which a CFS machine's
// scheduler state is still a ramp: the time in which the cores of each set
// can give each of the set's threads its sleeper credit of CPU, the most
// vruntime a sleeper is credited on waking (place_entity, kernel/sched/fair.c
// before 6.6: GENTLE_FAIR_SLEEPERS), the longest over the sets. All threads
// start at vruntime 0; the lag of a thread that sleeps more than the others
// grows by what they run ahead of it, and its wakes preempt only once that
// lag passes the wakeup granularity, so until the lags have had time to
// reach the credit, wakeup preemption is rarer than it will be. 0 under TS
// and EEVDF, which credit no sleeper.
func (m *Machine) SleeperCreditWarmup() time.Duration {
	var per [numCoreSets]int
	for i := range m.threads {
		per[m.threads[i].set]++
	}
	return sleeperCreditWarmup(m.cfg, per)
}

// SleeperCreditWarmup is Machine.SleeperCreditWarmup for a machine of cfg
// with threads threads on its server's cores and clients on its client's
// cores, before it is built.
func SleeperCreditWarmup(cfg Config, threads, clients int) time.Duration {
	return sleeperCreditWarmup(cfg, [numCoreSets]int{threads, clients})
}

func sleeperCreditWarmup(cfg Config, per [numCoreSets]int) time.Duration {
	credit := SleeperCreditOf(cfg)
	var w time.Duration
	for s, cpus := range [numCoreSets]int{cfg.CPUs, cfg.ClientCPUs} {
		if cpus > 0 {
			w = max(w, time.Duration(int64(per[s])*int64(credit)/int64(cpus)))
		}
	}
	return w
}

// SleeperCreditOf is the sleeper credit of a machine of cfg: CFS's
// Fair.SleeperCredit, the CPU time each thread needs before
// SleeperCreditWarmup; 0 under TS and EEVDF.
func SleeperCreditOf(cfg Config) time.Duration {
	if cfg.Scheduler != CFS {
		return 0
	}
	return cfg.Fair.orDefault().SleeperCredit
}

// Program returns the program thread id runs now.
func (m *Machine) Program(id int32) []Op { return m.threads[id].prog }

// SwitchCost returns the ns a switch to thread id costs now: the profile's
// SwitchCost of the threads of its set of cores (with the set's caches), or
// SwitchCostOf the thread's own footprint after the others' (SetFootprint).
func (m *Machine) SwitchCost(id int32) int64 { return m.switchCost(&m.threads[id]) }

// Check reports the first thread that the machine has running on a core
// that does not run it, or nil: an invariant of the scheduler that a test of
// any layer may hold it to.
func (m *Machine) Check() error {
	for id := range m.threads {
		t := &m.threads[id]
		if t.state == stRunning && m.cores[t.core].cur != int32(id) {
			return fmt.Errorf("sim: thread %d runs on core %d, which runs %d", id, t.core, m.cores[t.core].cur)
		}
	}
	return nil
}
