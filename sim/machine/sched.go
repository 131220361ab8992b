package machine

import (
	"fmt"

	"github.com/innosim/innosim/prio"
)

// Scheduler selects the CPU scheduler model of a Machine.
type Scheduler uint8

const (
	// CFS is a model of Linux's Completely Fair Scheduler: the runnable thread
	// with the least virtual runtime runs next; virtual runtime grows at
	// 1024/weight per ns of CPU, the weight coming from the thread's nice value
	// (prio.WeightOfNice); a woken thread is placed at most half a scheduling
	// latency behind the minimum and preempts the running thread only if it is a
	// wakeup granularity ahead of it; slices are the latency shared among the
	// runnable threads of a core, never below the minimum granularity.
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
)

// String returns "cfs" or "ts".
func (s Scheduler) String() string {
	switch s {
	case CFS:
		return "cfs"
	case TS:
		return "ts"
	}
	return fmt.Sprintf("scheduler(%d)", uint8(s))
}

// ParseScheduler parses "cfs" or "ts".
func ParseScheduler(s string) (Scheduler, error) {
	switch s {
	case "cfs", "linux":
		return CFS, nil
	case "ts", "solaris":
		return TS, nil
	}
	return 0, fmt.Errorf("sim: scheduler %q, want cfs or ts: %w", s, ErrInvalidConfig)
}

// CFS tunables, the kernel defaults for a machine of 8 or more CPUs
// (kernel/sched/fair.c: sysctl_sched_latency 6 ms × (1+log2 8) is capped at
// 24 ms; min granularity 0.75 ms × 4 = 3 ms; wakeup granularity 1 ms × 4).
const (
	cfsLatency    = 24_000_000
	cfsMinGran    = 3_000_000
	cfsWakeupGran = 4_000_000
	nice0Weight   = 1024
)

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

func (m *Machine) tsPrio(t *thread) int {
	p := min(max(t.cpupri+tsUpri(t.hint), 0), tsLevels-1)
	if t.state == stRunnable && m.e.Now()-t.enqAt > tsMaxWait && p < tsLwait {
		p = tsLwait
	}
	return p
}

// better reports whether runnable thread a should run before b.
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
	m.runq = append(m.runq, id)
	if m.cfg.Scheduler == CFS {
		m.runqUp(len(m.runq) - 1)
	}
}

// bestRunnable returns the run queue's index of the thread that should run
// next (better than every other), or -1 when none is runnable. Under CFS the
// queue is a binary heap ordered by better, whose keys (vruntime, then the
// enqueue order) do not change while a thread is queued, so the best is at
// 0, as the leftmost entity of CFS's red-black tree; under TS a queued
// thread's priority rises with its wait (ts_maxwait), so the queue is
// scanned. The answer is the same either way: better is a total order.
func (m *Machine) bestRunnable() int {
	if len(m.runq) == 0 {
		return -1
	}
	if m.cfg.Scheduler == CFS {
		return 0
	}
	best := 0
	for i, id := range m.runq {
		if m.better(&m.threads[id], &m.threads[m.runq[best]]) {
			best = i
		}
	}
	return best
}

// takeRunnable removes the thread at index i of the run queue (an index
// bestRunnable returned) and returns its id.
func (m *Machine) takeRunnable(i int) int32 {
	id := m.runq[i]
	last := len(m.runq) - 1
	m.runq[i] = m.runq[last]
	m.runq = m.runq[:last]
	if m.cfg.Scheduler == CFS && i < last {
		m.runqDown(i)
		m.runqUp(i)
	}
	return id
}

// runqUp and runqDown restore the CFS heap's order around index i.
func (m *Machine) runqUp(i int) {
	q := m.runq
	for i > 0 {
		p := (i - 1) / 2
		if !m.better(&m.threads[q[i]], &m.threads[q[p]]) {
			return
		}
		q[i], q[p] = q[p], q[i]
		i = p
	}
}

func (m *Machine) runqDown(i int) {
	q := m.runq
	for {
		b, l := i, 2*i+1
		if l < len(q) && m.better(&m.threads[q[l]], &m.threads[q[b]]) {
			b = l
		}
		if r := l + 1; r < len(q) && m.better(&m.threads[q[r]], &m.threads[q[b]]) {
			b = r
		}
		if b == i {
			return
		}
		q[i], q[b] = q[b], q[i]
		i = b
	}
}
