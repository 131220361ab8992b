package machine

import (
	"fmt"
	"time"

	"github.com/innosim/innosim/prio"
)

// Scheduler selects the CPU scheduler model of a Machine.
type Scheduler uint8

const (
	// CFS is a model of Linux's Completely Fair Scheduler (2.6.23 to 6.5,
	// kernel/sched/fair.c; kernel/sched_fair.c before 3.3): the runnable
	// thread with the least virtual runtime runs next; virtual runtime grows
	// at 1024/weight per ns of CPU, the weight coming from the thread's nice
	// value (prio.WeightOfNice); a woken thread is placed at most
	// Fair.SleeperCredit behind the minimum (place_entity) and preempts the
	// running thread only if it is Fair.WakeupGranularity ahead of it
	// (wakeup_preempt_entity); slices are the period (__sched_period)
	// shared among the runnable threads of a core, never below
	// Fair.MinGranularity; a thread a wake preempted while a core had
	// Fair.NrLatency runnable threads or more is that core's last buddy,
	// which gets the core back when it next picks, unless it is more than
	// the wakeup granularity behind the leftmost (LAST_BUDDY,
	// pick_next_entity).
	CFS Scheduler = iota
	// TS is a model of Solaris's time-sharing class: dispatch priority is the
	// thread's CPU priority (0..59) plus its user priority (from the hint, as
	// prio.Hint.TSLevel), clamped to 0..59; the highest priority runs, FIFO within
	// a priority; a thread that uses up its quantum drops 10 levels (ts_tqexp),
	// one that returns from sleep rises to 50 or above (ts_slpret); a thread kept
	// runnable for more than a second is raised to 50 (ts_maxwait, ts_lwait). The
	// quantum is 20 ms at the top levels and grows to 200 ms at the bottom, as in
	// the default ts_dptbl(4).
	TS
	// EEVDF is a model of Linux's fair class from 6.6 (Earliest Eligible
	// Virtual Deadline First, kernel/sched/fair.c): every thread asks for a
	// slice of Fair.BaseSlice, whatever the run queue's length; a running
	// thread is not preempted by a wake before it has used that slice
	// (RUN_TO_PARITY: pick_eevdf keeps the current thread while its deadline
	// is the one it was picked with); a woken thread keeps the lag it had
	// when it went to sleep (PLACE_LAG), bounded by two slices
	// (update_entity_lag), instead of a sleeper's credit. Of the runnable
	// threads the one of earliest virtual deadline runs; every thread asking
	// for the same slice, that is the one of least virtual runtime, so the
	// run queue is CFS's.
	EEVDF
)

// String returns "cfs", "ts" or "eevdf".
func (s Scheduler) String() string {
	switch s {
	case CFS:
		return "cfs"
	case TS:
		return "ts"
	case EEVDF:
		return "eevdf"
	}
	return fmt.Sprintf("scheduler(%d)", uint8(s))
}

// ParseScheduler parses "cfs", "ts" or "eevdf".
func ParseScheduler(s string) (Scheduler, error) {
	switch s {
	case "cfs", "linux":
		return CFS, nil
	case "ts", "solaris":
		return TS, nil
	case "eevdf":
		return EEVDF, nil
	}
	return 0, fmt.Errorf("sim: scheduler %q, want cfs, eevdf or ts: %w", s, ErrInvalidConfig)
}

// fair reports whether the scheduler is Linux's fair class (CFS or EEVDF),
// whose run queue is ordered by virtual runtime.
func (s Scheduler) fair() bool { return s != TS }

// Fair is the fair class's tunables on the machine, as the kernel uses them
// (already scaled by its CPU count: spec.Sched derives them from a kernel
// release and a box). The zero value is DefaultFair.
type Fair struct {
	// Latency is sysctl_sched_latency, the period in which each of up to
	// NrLatency runnable threads of a CPU runs once; MinGranularity is
	// sysctl_sched_min_granularity, the least slice; WakeupGranularity is
	// sysctl_sched_wakeup_granularity, how far (in a nice-0 thread's
	// virtual runtime) a woken thread must be behind the running one to
	// preempt it; NrLatency is sched_nr_latency. CFS only.
	Latency, MinGranularity, WakeupGranularity time.Duration
	NrLatency                                  int
	// SleeperCredit is how far behind the least virtual runtime a thread
	// waking from a long sleep is placed (place_entity with
	// GENTLE_FAIR_SLEEPERS: half of Latency). CFS only.
	SleeperCredit time.Duration
	// BaseSlice is sysctl_sched_base_slice, the slice every thread asks for.
	// EEVDF only.
	BaseSlice time.Duration
}

// DefaultFair is the fair class of Linux 3.2 to 6.5 (CFS) and 6.6 to 6.14
// (EEVDF) on 8 or more CPUs: the normalized tunables × (1 + ilog2 8) = 4
// (get_update_sysctl_factor): latency 24 ms, minimum granularity 3 ms,
// wakeup granularity 4 ms, sched_nr_latency 8, a sleeper's credit of half
// the latency; base slice 0.75 ms × 4.
func DefaultFair() Fair {
	return Fair{Latency: 24 * time.Millisecond, MinGranularity: 3 * time.Millisecond, WakeupGranularity: 4 * time.Millisecond,
		NrLatency: 8, SleeperCredit: 12 * time.Millisecond, BaseSlice: 3 * time.Millisecond}
}

// validate reports a tunable of scheduler s out of range: CFS's Latency,
// MinGranularity, WakeupGranularity and SleeperCredit, EEVDF's BaseSlice,
// each 1µs..1s, and CFS's NrLatency 1..1000; the zero value is
// DefaultFair's, and TS reads none.
func (f Fair) validate(s Scheduler) error {
	if f == (Fair{}) || s == TS {
		return nil
	}
	type tunable struct {
		name string
		v    time.Duration
	}
	ds := []tunable{{"BaseSlice", f.BaseSlice}}
	if s == CFS {
		ds = []tunable{{"Latency", f.Latency}, {"MinGranularity", f.MinGranularity}, {"WakeupGranularity", f.WakeupGranularity},
			{"SleeperCredit", f.SleeperCredit}}
	}
	for _, d := range ds {
		if d.v < time.Microsecond || d.v > time.Second {
			return Invalid("Fair."+d.name, "sim: Fair.%s = %v, want 1µs..1s under %v (or a zero Fair: DefaultFair): %w", d.name, d.v, s, ErrInvalidConfig)
		}
	}
	if s == CFS && (f.NrLatency < 1 || f.NrLatency > 1000) {
		return Invalid("Fair.NrLatency", "sim: Fair.NrLatency = %d, want 1..1000: %w", f.NrLatency, ErrInvalidConfig)
	}
	return nil
}

// orDefault returns f, or DefaultFair for the zero value.
func (f Fair) orDefault() Fair {
	if f == (Fair{}) {
		return DefaultFair()
	}
	return f
}

const nice0Weight = 1024

// TS dispatcher constants after Solaris's default ts_dptbl(4).
const (
	tsLevels     = 60
	tsMaxWait    = 1_000_000_000 // ts_maxwait: a second on the run queue
	tsLwait      = 50            // ts_lwait: the level a starved thread is raised to
	tsSleepFloor = 50            // ts_slpret for the lower levels
)

// tsQuantum is the time quantum of a TS level in ns: 200 ms at levels 0..9,
// 160, 120, 80, 40 ms, and 20 ms at 50..59.
func tsQuantum(level int) int64 {
	q := [...]int64{200, 160, 120, 80, 40, 20}
	return q[level/10] * 1_000_000
}

// tsSleepReturn is ts_slpret: the CPU priority after a return from sleep.
func tsSleepReturn(level int) int {
	return min(max(level+1, tsSleepFloor), tsLevels-1)
}

// tsQuantumExpired is ts_tqexp: the CPU priority after using a whole quantum.
func tsQuantumExpired(level int) int { return max(level-10, 0) }

// tsUpri is the user priority (ts_upri) of a hint: the offset prio.Hint.TSLevel
// applies to a thread at the entry level, so Query is +15 and Wait is -15.
func tsUpri(h prio.Hint) int { return h.TSLevel() - prio.Normal.TSLevel() }

// cfsWeight is the CFS load weight of a hint (prio.Hint.Weight: 1024 at nice 0).
func cfsWeight(h prio.Hint) int64 { return int64(h.Weight()) }

// tsLevel is thread t's dispatch priority before ts_maxwait: its CPU
// priority plus its user priority, clamped to 0..59.
func (m *Machine) tsLevel(t *thread) int { return min(max(t.cpupri+tsUpri(t.hint), 0), tsLevels-1) }

// tsPrio is thread t's dispatch priority: tsLevel, raised to ts_lwait for a
// thread that has waited on the run queue for more than ts_maxwait.
func (m *Machine) tsPrio(t *thread) int {
	p := m.tsLevel(t)
	if t.state == stRunnable && m.e.Now()-t.enqAt > tsMaxWait && p < tsLwait {
		p = tsLwait
	}
	return p
}

// better reports whether runnable thread a should run before b: the order
// of the run queue (runQueue).
func (m *Machine) better(a, b *thread) bool {
	if m.cfg.Scheduler == TS {
		pa, pb := m.tsPrio(a), m.tsPrio(b)
		if pa != pb {
			return pa > pb
		}
	} else if a.vr != b.vr {
		return a.vr < b.vr
	}
	return a.enqKey < b.enqKey
}

func (m *Machine) enqueue(id int32, front bool) {
	t := &m.threads[id]
	t.state = stRunnable
	t.enqAt = m.e.Now()
	m.seq++
	if front {
		t.enqKey = -m.seq
	} else {
		t.enqKey = m.seq
	}
	m.rqPush(&m.sets[t.set].rq, id, front)
}

// bestRunnable returns the thread of set q that should run next (better
// than every other runnable one), or -1 when none is runnable.
func (m *Machine) bestRunnable(q *coreSet) int32 { return m.rqBest(&q.rq) }

// takeRunnable removes runnable thread id from set q's run queue and
// returns it, as dequeue.
func (m *Machine) takeRunnable(q *coreSet, id int32) int32 {
	m.dequeue(q, &m.threads[id])
	return id
}

// dequeue removes queued thread t from set q's run queue; a core's last
// buddy that is taken, by any core, is no longer one.
func (m *Machine) dequeue(q *coreSet, t *thread) {
	m.rqRemove(&q.rq, t)
	t.qi = -1
	if t.buddyOf >= 0 {
		m.cores[t.buddyOf].last = -1
		t.buddyOf = -1
	}
}

// vruntimeOf is the virtual runtime of ns of CPU at weight w: ns ×
// 1024/w (calc_delta_fair), without the division at nice 0.
func (m *Machine) vruntimeOf(ns, w int64) int64 {
	if w == nice0Weight {
		return ns
	}
	return ns * nice0Weight / w
}

// wakeupGran is the wakeup granularity in the virtual runtime of thread se
// (wakeup_gran: sysctl_sched_wakeup_granularity scaled by se's weight).
func (m *Machine) wakeupGran(se *thread) int64 {
	return int64(m.fair.WakeupGranularity) * nice0Weight / se.weight
}
