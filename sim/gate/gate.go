package gate

import (
	"errors"
	"fmt"
	"time"

	"github.com/innosim/innosim/concurrency"
	"github.com/innosim/innosim/sim/machine"
)

// casCost is the CPU of one contended compare-and-swap on a shared counter (a
// cache-line transfer between cores).
const casCost = 100 * time.Nanosecond

// gateWork is the CPU of the gate's critical section under its mutex (the
// counters, the queue, the trx fields, and the cache misses of a line every
// core writes): the body of srv_conc_enter_innodb or srv_conc_force_exit_innodb
// (see Install for the mutex).
const gateWork = 3 * time.Microsecond

// Gate runs a concurrency.Core for the simulated threads: it charges the gate
// mutex (PolicyQueue only), the sleeps and the wakes; the core decides who is
// in. It runs OpGateEnter and OpGateExit.
type Gate struct {
	m      *machine.Machine
	policy concurrency.Policy
	core   concurrency.Core
	mutex  int32
	ct     []*concurrency.Thread // by sim thread id, grown on demand
	st     []gateThread          // by sim thread id, grown with ct
	owner  map[*concurrency.Thread]int32
	// tbucket is the futex bucket of each thread's private wait word, by
	// thread id, allocated on demand.
	tbucket []int32
}

// gateThread is a simulated thread's progress through OpGateEnter or
// OpGateExit: its stage and the core's decision it acts on.
type gateThread struct {
	stage   gateStage
	verdict concurrency.Decision
}

// Install installs an innodb_thread_concurrency gate on m run by policy's core with
// cfg (see concurrency.Config); workloads enter it with OpGateEnter and leave it
// with OpGateExit. The policies simulated are:
//
//   - concurrency.PolicyQueue: concurrency.QueueCore under one mutex taken on
//     every enter without tickets and every exit, as srv_conc_enter_innodb and
//     srv_conc_force_exit_innodb in MySQL 5.0 to 5.5 (srv0srv.c);
//   - concurrency.PolicyAtomic: concurrency.AtomicCore, a compare-and-swap on
//     the inside counter, sleeping the adaptive sleep delay when full (MySQL
//     5.6+), no mutex;
//   - concurrency.PolicyHandoff: concurrency.HandoffCore, seats handed directly
//     to FIFO waiters, no shared mutex on the hot path.
//
// The Queue gate's mutex is where the model departs from its source. MySQL
// 5.0, 5.1 and 5.5 take srv_conc_mutex there, an os_fast_mutex_t: a pthread
// mutex of the gate's own, with no spin rounds, whose unlock wakes one waiter;
// no version takes kernel_mutex for the gate. The simulator charges the gate
// to a spinning InnoDB mutex that wakes every waiter, named "kernel_mutex" in
// the machine's mutex statistics, and when a Queue gate is installed the
// workloads modelled on MySQL 5.0 and 5.1 (slap_select, oltp_read_write) take
// that same mutex for their kernel_mutex work: transaction start, read view
// and commit, and oltp_read_write's row locks.
//
// Any other policy, and a second gate, is an error wrapping ErrInvalidConfig;
// errors from the core's constructor are returned as they are.
func Install(m *machine.Machine, policy concurrency.Policy, cfg concurrency.Config) (*Gate, error) {
	if m.Handled(machine.OpGateEnter) {
		return nil, fmt.Errorf("sim: SetGate called twice, want one gate: %w", machine.ErrInvalidConfig)
	}
	core, err := newCore(policy, cfg)
	if err != nil {
		return nil, err
	}
	g := &Gate{m: m, policy: policy, core: core, mutex: -1, owner: map[*concurrency.Thread]int32{}}
	if policy == concurrency.PolicyQueue {
		g.mutex = m.AddMutex(machine.Mutex{Name: "kernel_mutex", Spin: true, WakeAll: true})
	}
	m.Handle(machine.OpGateEnter, g)
	m.Handle(machine.OpGateExit, g)
	return g, nil
}

// newCore returns the core of policy with cfg: a *machine.FieldError naming
// Policy for a policy the simulator does not drive, the core's own error
// (which names the field) for a bad cfg.
func newCore(policy concurrency.Policy, cfg concurrency.Config) (concurrency.Core, error) {
	switch policy {
	case concurrency.PolicyQueue:
		return concurrency.NewQueueCore(cfg)
	case concurrency.PolicyAtomic:
		return concurrency.NewAtomicCore(cfg)
	case concurrency.PolicyHandoff:
		return concurrency.NewHandoffCore(cfg)
	}
	return nil, machine.Invalid("Policy", "sim: gate policy %v, want queue, atomic or handoff: %w", policy, machine.ErrInvalidConfig)
}

// Validate reports what Install refuses for policy and cfg, without a
// machine.
func Validate(policy concurrency.Policy, cfg concurrency.Config) error {
	_, err := newCore(policy, cfg)
	if err != nil && !errors.As(err, new(*machine.FieldError)) {
		err = machine.InField("Config", err)
	}
	return err
}

// Mutex returns the gate's mutex, which the workloads modelled on MySQL 5.0
// and 5.1 also take as kernel_mutex, or −1 (a gate of another policy).
func (g *Gate) Mutex() int32 { return g.mutex }

// Step runs OpGateEnter and OpGateExit.
func (g *Gate) Step(id int32, op *machine.Op) bool {
	if op.Kind == machine.OpGateEnter {
		return g.enter(id)
	}
	return g.exit(id)
}

// FutexWait is the futex word check of a thread parked in the gate's queue:
// a seat handed over, or a chance to compete for one (Handoff barging),
// before the wait landed ends it at once.
func (g *Gate) FutexWait(id, _ int32) bool {
	ct, _ := g.thread(id)
	return !ct.Inside() && !ct.Woken()
}

// FutexWake wakes thread id, parked on its private word.
func (g *Gate) FutexWake(id int32) { g.m.Wake(id) }

// thread returns thread id's concurrency.Thread and its progress through the
// gate, allocating both on first use.
func (g *Gate) thread(id int32) (*concurrency.Thread, *gateThread) {
	for int(id) >= len(g.ct) {
		ct := new(concurrency.Thread)
		g.owner[ct] = int32(len(g.ct))
		g.ct = append(g.ct, ct)
		g.st = append(g.st, gateThread{})
	}
	return g.ct[id], &g.st[id]
}

// gateStage is how far a thread has got in OpGateEnter or OpGateExit.
type gateStage uint8

const (
	gsStart   gateStage = iota // not started: look at the tickets, take the gate mutex
	gsUnlock                   // gate mutex held, decision taken: release it
	gsVerdict                  // act on the decision
	gsRetry                    // back from the sleep the core asked for
	gsParked                   // handed a seat, or woken to compete for one, while queued
	gsWoke                     // exit: the seat was passed on
)

// enter runs OpGateEnter; it reports whether thread id is inside and goes
// on; false means it stopped (a burst, the gate mutex, a sleep, parked in the
// queue) and enter is called again when it runs.
func (g *Gate) enter(id int32) bool {
	m := g.m
	ct, gt := g.thread(id)
	core := g.core
	for {
		switch gt.stage {
		case gsStart:
			if core.Limit() == 0 || ct.Tickets() > 0 {
				// no limit, or tickets left: the gate's shared state is not touched
				core.Enter(ct, m.Clock())
				return true
			}
			if g.mutex < 0 {
				gt.verdict = core.Enter(ct, m.Clock())
				gt.stage = gsVerdict
				m.Burst(id, int64(casCost), machine.CatUser)
				return false
			}
			if !m.Lock(id, g.mutex) {
				return false
			}
			gt.verdict = core.Enter(ct, m.Clock())
			gt.stage = gsUnlock
			m.Burst(id, int64(gateWork), machine.CatUser)
			return false
		case gsUnlock:
			if !m.Unlock(id, g.mutex) {
				return false
			}
			gt.stage = gsVerdict
		case gsVerdict:
			switch gt.verdict.Verdict {
			case concurrency.Sleep:
				gt.stage = gsRetry
				m.Sleep(id, max(int64(gt.verdict.Sleep), 1000))
				return false
			case concurrency.Queued:
				gt.stage = gsParked
				m.FutexWait(id, g, id, g.bucket(id))
				return false
			}
			gt.stage = gsStart
			return true
		case gsRetry:
			gt.stage = gsStart
		case gsParked:
			gt.stage = gsStart
			if !ct.Woken() {
				return true // handed a seat
			}
			// woken to compete for a freed seat (Handoff barging): try again
		}
	}
}

// exit runs OpGateExit (srv_conc_force_exit_innodb at the end of a
// statement); it reports whether the exit is done and thread id goes on;
// false means it stopped and exit is called again when it runs.
func (g *Gate) exit(id int32) bool {
	m := g.m
	ct, gt := g.thread(id)
	for {
		switch gt.stage {
		case gsStart:
			if !ct.Inside() {
				return true
			}
			if g.mutex >= 0 {
				if !m.Lock(id, g.mutex) {
					return false
				}
			}
			r := g.core.ForceExit(ct, m.Clock())
			gt.stage = gsWoke
			if r.Outcome == concurrency.HandedOff || r.Outcome == concurrency.Woken {
				to := g.owner[r.To]
				m.FutexWake(id, g, to, g.bucket(to))
				return false
			}
			if g.mutex < 0 {
				m.Burst(id, int64(casCost), machine.CatUser)
			} else {
				m.Burst(id, int64(gateWork), machine.CatUser)
			}
			return false
		case gsWoke:
			if g.mutex < 0 {
				gt.stage = gsStart
				return true
			}
			gt.stage = gsUnlock
		case gsUnlock:
			if !m.Unlock(id, g.mutex) {
				return false
			}
			gt.stage = gsStart
			return true
		}
	}
}

// bucket returns the futex bucket of thread id's private wait word,
// allocating buckets on demand.
func (g *Gate) bucket(id int32) int32 {
	for int(id) >= len(g.tbucket) {
		g.tbucket = append(g.tbucket, g.m.AddBucket())
	}
	return g.tbucket[id]
}

// Stats returns the gate's core's counters.
func (g *Gate) Stats() concurrency.Stats { return g.core.Stats() }
