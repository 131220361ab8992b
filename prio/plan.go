package prio

import "fmt"

// Class is a Linux scheduling policy number (include/uapi/linux/sched.h). innosim
// sets only Other and Idle; the others can be read back from a thread.
type Class int

// Scheduling classes, with Linux's numbers.
const (
	ClassOther Class = 0 // SCHED_OTHER: CFS/EEVDF with nice weights; the default
	ClassFIFO  Class = 1 // SCHED_FIFO: real-time
	ClassRR    Class = 2 // SCHED_RR: real-time, round robin
	ClassBatch Class = 3 // SCHED_BATCH: like Other, never preempts on wakeup
	ClassIdle  Class = 5 // SCHED_IDLE: weight 3, runs when nothing else will
)

// String returns the kernel's name for the class, e.g. "SCHED_IDLE".
func (c Class) String() string {
	switch c {
	case ClassOther:
		return "SCHED_OTHER"
	case ClassFIFO:
		return "SCHED_FIFO"
	case ClassRR:
		return "SCHED_RR"
	case ClassBatch:
		return "SCHED_BATCH"
	case ClassIdle:
		return "SCHED_IDLE"
	}
	return fmt.Sprintf("class(%d)", int(c))
}

// State is a thread's scheduling state as the kernel holds it. The zero value is a
// default thread: SCHED_OTHER, priority 0, nice 0.
type State struct {
	Class    Class // scheduling policy
	Priority int   // sched_priority: 0 for Other, Batch and Idle; 1..99 for FIFO and RR
	Nice     int   // nice value, -20..19
}

// Call names a system call a policy makes.
type Call uint8

// Calls.
const (
	CallSetpriority  Call = iota + 1 // setpriority(PRIO_PROCESS, tid, Change.Nice)
	CallSetscheduler                 // sched_setscheduler(tid, Change.Class, {Change.Priority})
	CallSetparam                     // sched_setparam(tid, {Change.Priority})
)

// String returns the system call's name.
func (c Call) String() string {
	switch c {
	case CallSetpriority:
		return "setpriority"
	case CallSetscheduler:
		return "sched_setscheduler"
	case CallSetparam:
		return "sched_setparam"
	}
	return fmt.Sprintf("call(%d)", uint8(c))
}

// Change is one system call a policy asks a driver to make on a thread. Only the
// fields the Call uses are set.
type Change struct {
	Call     Call
	Nice     int   // CallSetpriority: the nice to set, -20..19
	Class    Class // CallSetscheduler: the class to set
	Priority int   // CallSetscheduler, CallSetparam: the sched_priority to set
}

// Apply returns the state s would be in if the kernel accepted c. A driver calls it
// only after the call succeeded; a refused call changes nothing.
func (c Change) Apply(s State) State {
	switch c.Call {
	case CallSetpriority:
		s.Nice = c.Nice
	case CallSetscheduler:
		s.Class, s.Priority = c.Class, c.Priority
	case CallSetparam:
		s.Priority = c.Priority
	}
	return s
}

// Plan is the policy core: it returns the system call policy p makes when a thread
// whose kernel state is cur takes hint h, or false when p makes none. It is pure —
// the real driver (Thread) and the simulator both call it and differ only in what
// a call costs and whether the kernel accepts it.
//
//   - Off: never a call.
//   - Legacy: sched_setparam(Hint.LegacyPriority) on every hint MySQL had a
//     priority for, even when the last call asked for the same value — MySQL 5.1 made
//     both calls on every query.
//   - Nice: setpriority(Hint.Nice) unless cur already has that nice.
//   - Idle: sched_setscheduler(SCHED_IDLE) for Background and below unless already
//     idle; sched_setscheduler(SCHED_OTHER) for more urgent hints if idle.
//
// With downward set, a call that would raise the thread's priority (a lower nice, or
// leaving SCHED_IDLE) is skipped, as RocksDB's ThreadPoolImpl only ever lowers a
// background thread's CPU priority. Such a thread can later be restored only with
// CAP_SYS_NICE; without it, let the thread end with its goroutine.
func (p Policy) Plan(h Hint, cur State, downward bool) (Change, bool) {
	switch p {
	case PolicyLegacy:
		prio, ok := h.LegacyPriority()
		if !ok {
			return Change{}, false
		}
		return Change{Call: CallSetparam, Priority: prio}, true
	case PolicyNice:
		n := h.Nice()
		if n == cur.Nice || (downward && n < cur.Nice) {
			return Change{}, false
		}
		return Change{Call: CallSetpriority, Nice: n}, true
	case PolicyIdle:
		if h <= Background {
			if cur.Class == ClassIdle {
				return Change{}, false
			}
			return Change{Call: CallSetscheduler, Class: ClassIdle}, true
		}
		if cur.Class != ClassIdle || downward {
			return Change{}, false
		}
		return Change{Call: CallSetscheduler, Class: ClassOther}, true
	}
	return Change{}, false
}

// RestorePlan returns the calls, in order, that bring a thread from state cur back
// to base (the state it had before its first hint): the class and priority first,
// then the nice. It returns nil when cur equals base. Pure.
func RestorePlan(cur, base State) []Change {
	var cs []Change
	if cur.Class != base.Class || cur.Priority != base.Priority {
		if cur.Class == base.Class {
			cs = append(cs, Change{Call: CallSetparam, Priority: base.Priority})
		} else {
			cs = append(cs, Change{Call: CallSetscheduler, Class: base.Class, Priority: base.Priority})
		}
	}
	if cur.Nice != base.Nice {
		cs = append(cs, Change{Call: CallSetpriority, Nice: base.Nice})
	}
	return cs
}
