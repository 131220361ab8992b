package sim

import (
	"math/rand/v2"
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
func (m *Machine) Lock(id, mi int32) bool { return m.lock(&m.threads[id], id, mi) }

// Unlock releases mutex mi for thread id: it reports whether the release is
// done; false means id stopped in its wake of the waiters, and Unlock is
// called again when it runs.
func (m *Machine) Unlock(id, mi int32) bool { return m.unlock(&m.threads[id], id, mi) }

// AddBucket adds a futex hash bucket and returns it, for FutexWait and
// FutexWake.
func (m *Machine) AddBucket() int32 { return m.addBucket() }

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

// WaitBegin is thd_wait_begin for thread id, which has just blocked in a
// wait inside the server that MariaDB's thread pool is told of (a row lock,
// a page read, another commit's log flush): the pool may give the thread's
// group another worker meanwhile.
func (m *Machine) WaitBegin(id int32) { m.poolWaitBegin(&m.threads[id]) }

// WaitEnd is thd_wait_end for thread id, running again after the wait
// WaitBegin began.
func (m *Machine) WaitEnd(id int32) { m.poolWaitEnd(&m.threads[id]) }

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

// The gate's ops as a mechanism runs them through StepOp.
var (
	gateEnterOp = Op{Kind: OpGateEnter}
	gateExitOp  = Op{Kind: OpGateExit}
)

// Session returns the session thread id runs now: its own id, or, for a
// thread pool worker serving a connection, the connection's key (≤ −2: its
// THD, whose transaction the next request may run on another worker).
func (m *Machine) Session(id int32) int32 {
	if t := &m.threads[id]; t.worker > 0 {
		if c := m.tpool.workers[t.worker-1].conn; c >= 0 {
			return connPeer(c)
		}
	}
	return id
}

// SessionThread returns the thread running session k now, or −1 (a pooled
// connection between requests).
func (m *Machine) SessionThread(k int32) int32 {
	if k >= 0 {
		return k
	}
	return m.tpool.conns[-2-k].thread
}

// RestartTrx ends thread id's transaction (the machine's count of active
// transactions) and makes its program's first op its next, as sysbench
// retries a transaction that got a deadlock error; with priorities on, the
// thread waits for its client at the Wait priority, as after any statement.
func (m *Machine) RestartTrx(id int32) {
	t := &m.threads[id]
	m.activeTrx--
	if m.cfg.Priorities {
		t.hint = prio.Wait
		t.weight = cfsWeight(t.hint)
	}
	t.pc = int32(len(t.prog) - 1)
}
