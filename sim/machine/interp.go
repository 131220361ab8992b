package machine

import (
	"github.com/innosim/innosim/prio"
)

// onRun ends a burst or a slice of a running thread.
func (m *Machine) onRun(now int64, id int32, gen uint32) {
	t := &m.threads[id]
	if gen != t.gen || t.state != stRunning {
		return
	}
	m.account(t)
	if t.rem > 0 || t.cs > 0 || t.rqSpin > 0 || t.rqHold > 0 {
		m.sliceEnd(t, id)
		return
	}
	if t.sy.sys.op != fxNone {
		m.sy.kernelStep(t, id)
		return
	}
	m.advance(t, id)
}

// runBurst starts a burst of d ns in category cat on t's core.
func (m *Machine) runBurst(t *thread, id int32, d int64, cat Cat) {
	t.rem, t.cat, t.start = d, cat, m.e.Now()
	m.schedule(t, id)
}

// next moves t to the start of its program's next op, wrapping around.
func (m *Machine) next(t *thread) {
	t.pc++
	t.step = opStart
	if int(t.pc) == len(t.prog) {
		t.pc = 0
	}
}

// advance interprets t's program from its pc until an op takes time or blocks.
func (m *Machine) advance(t *thread, id int32) {
	for {
		op := &t.prog[t.pc]
		switch op.Kind {
		case OpCPU, OpSyscall:
			if t.step == opStart {
				t.step = opCharged
				if op.Kind == OpCPU {
					m.runBurst(t, id, m.jit(op.Dur), CatUser)
				} else {
					m.syscalls++
					m.runBurst(t, id, int64(m.cfg.Costs.SyscallCost(SyscallKind(op.Arg)))+m.jit(op.Dur), CatSys)
				}
				return
			}
			m.next(t)
		case OpSleep:
			if t.step == opStart {
				t.step = opCharged
				m.block(t)
				m.e.At(m.e.Now()+m.jit(op.Dur), m.evWake, id, t.gen)
				return
			}
			m.next(t)
		case OpLock:
			if !m.sy.lock(t, id, op.Arg) {
				return
			}
			m.next(t)
		case OpUnlock:
			if !m.sy.unlock(t, id, op.Arg) {
				return
			}
			m.next(t)
		case OpSetPrio:
			if !m.cfg.Priorities {
				m.next(t)
				continue
			}
			if t.step == opStart {
				t.step = opCharged
				m.syscalls++
				m.runBurst(t, id, int64(m.cfg.Costs.Syscall+m.cfg.Costs.SetPriority), CatSys)
				return
			}
			t.hint = prio.Hint(op.Arg)
			t.weight = cfsWeight(t.hint)
			m.next(t)
			if q := &m.sets[t.set]; m.cfg.Scheduler == TS {
				if i := m.bestRunnable(q); i >= 0 && m.tsPrio(&m.threads[i]) > m.tsPrio(t) {
					m.requeue(t, id) // lowered below a runnable thread: surrender the core
					return
				}
			}
		case OpTrxBegin:
			m.trxBegin(t)
			m.next(t)
		case OpTrxEnd:
			m.trxEnd(t)
			m.next(t)
		case OpReadView:
			if t.step == opStart {
				t.step = opCharged
				m.runBurst(t, id, m.readViewCost(t, op), CatUser)
				return
			}
			m.next(t)
		case OpDone:
			m.units += uint64(op.Arg)
			t.units += uint64(op.Arg)
			if m.host != nil { // a pool worker serving a connection counts them into it
				m.host.Done(id, uint64(op.Arg))
			}
			m.activeSum += uint64(m.activeTrx)
			m.next(t)
		case OpSplit:
			if m.e.Rand().Int64N(1e9) < int64(op.Dur) {
				m.next(t)
			} else {
				t.pc += op.Arg
				m.next(t)
			}
		default:
			if s := m.steppers[op.Kind]; s != nil && !s.Step(id, op) {
				return
			}
			m.next(t)
		}
	}
}
