package machine

// SetRemoteWake turns on the cost of a wake that must bring another, idle CPU
// out of idle: Linux's try_to_wake_up (kernel/sched/core.c) picks the wakee's
// CPU with select_task_rq (select_idle_sibling prefers an idle CPU of the
// cache domain, so on a lightly loaded machine the wakee goes to the other,
// idle CPU even for a WF_SYNC socket wake), and ttwu_queue_wakelist queues it
// there and sends that CPU a reschedule interrupt, which on a virtual machine
// is a hypervisor exit on the waker and a halted virtual CPU to run again. A
// thread woken by a running thread onto an idle core then costs:
//
//   - the waker CostProfile.FutexWakeCall − Syscall more CPU (its system call's
//     entry is charged already), added before its next burst; a waker that
//     blocks before it runs again is not charged it;
//   - the wakee FutexWake − ContextSwitch of delay before it runs on that core
//     (FutexWake runs from the call's start to the wakee running; its switch
//     in is charged as always), during which the core is idle but taken.
//
// A wake by a timer or a device (no running waker: the interrupt is on the
// CPU it wakes) and a wake onto a busy core (the run queue, or preempting) cost
// nothing more. Both costs are drawn with Engine.Jitter. Off by default: the
// four studies' machines were chosen without it, and OldKernel and NewKernel
// carry FutexWakeCall and FutexWake for the Go runtime layer only. innosim
// calibrate measures both on this machine (its "futex wake call" and "futex
// remote wake").
func (m *Machine) SetRemoteWake(on bool) {
	if on && !m.remoteWake && m.evPut == 0 {
		m.evPut = m.e.On(m.onPut)
	}
	m.remoteWake = on
}

// onRunAs handles a run event of thread id with id as the machine's waker:
// a thread it wakes meanwhile is woken from id's CPU.
func (m *Machine) onRunAs(now int64, id int32, gen uint32) {
	m.waker = id
	m.onRun(now, id, gen)
	m.waker = -1
}

// remoteWakeTo takes idle core c for woken thread id and runs it there after
// the interrupt's delay, charging the waker its wake call (see SetRemoteWake).
func (m *Machine) remoteWakeTo(id int32, c int) {
	p := m.cfg.Costs
	if w := &m.threads[m.waker]; w.state == stRunning {
		w.cs += m.jit(max(p.FutexWakeCall-p.Syscall, 0))
	}
	t := &m.threads[id]
	t.state = stRunnable
	t.core = int32(c)
	m.cores[c].cur = id
	m.cores[c].waking = true
	m.e.At(m.e.Now()+m.jit(max(p.FutexWake-p.ContextSwitch, 0)), m.evPut, id, t.gen)
}

// onPut runs a remotely woken thread on the core it was given.
func (m *Machine) onPut(now int64, id int32, gen uint32) {
	t := &m.threads[id]
	if t.gen != gen || t.state != stRunnable || t.core < 0 || !m.cores[t.core].waking {
		return
	}
	c := int(t.core)
	m.cores[c].waking = false
	m.put(id, c)
}
