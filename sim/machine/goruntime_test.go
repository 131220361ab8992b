package machine

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// newIdleRuntime returns a two-CPU machine with the Go runtime layer, two Ps,
// one mutex and twelve threads, every thread asleep on CPU 0 and both CPUs
// idle, for Wake and dispatch to be held to their placement rules one wake at
// a time.
func newIdleRuntime(t *testing.T, preempt float64) *GoRuntime {
	t.Helper()
	c := calibratedCosts()
	c.WakePreempt = preempt
	m, err := New(Config{CPUs: 2, Costs: c, Seed: 1})
	require.NoError(t, err)
	g, err := m.SetGoRuntime(2, func(int32) {})
	require.NoError(t, err)
	m.AddMutex(Mutex{Name: "segment 0"})
	for range 12 {
		g.AddThread()
	}
	for c := range m.cores {
		m.cores[c] = core{cur: -1}
	}
	for id := range g.gs {
		th := &g.gs[id]
		th.blocked, th.cpu, th.preempt, th.inCall = true, 0, -1, false
	}
	return g
}

// A woken thread goes to the CPU it last ran on, as this kernel places wakes:
// there if that CPU is idle (an interrupt to it), in line there if it is busy
// with another thread (preempting that thread with the wakeup-preemption
// share), beside the waker if that is where it last ran. Only a thread the
// runtime wakes looks for an idle CPU.
func TestWakeUpKeepsTheWakeeOnItsLastCPU(t *testing.T) {
	const wakee, waker, other = 0, 1, 2
	tests := []struct {
		name      string
		preempt   float64
		setup     func(g *GoRuntime)
		byRuntime bool
		wantCPU   int
		wantCur   bool    // the wakee is the CPU's current thread (on its way)
		wantQueue []int32 // the wakee's CPU's run queue after the wake
		wantPre   int32   // the thread that the wakee preempts at its call's return, or -1
		remote    bool    // the waker paid an interrupt (FutexWakeCall)
		// wantResume is the work left to the thread preempted in Go code
		// (preemptUser), 0 if none was
		wantResume int64
	}{
		{name: "last CPU idle: a remote wake there", preempt: 1,
			setup:   func(g *GoRuntime) { g.gs[wakee].cpu = 1; g.m.cores[0].cur = waker },
			wantCPU: 1, wantCur: true, wantPre: -1, remote: true},
		{name: "last CPU busy, no preemption: in line there", preempt: 0,
			setup: func(g *GoRuntime) {
				g.gs[wakee].cpu = 1
				g.m.cores[0].cur, g.m.cores[1].cur = waker, other
				g.gs[other].cpu = 1
			},
			wantCPU: 1, wantQueue: []int32{wakee}, wantPre: -1},
		{name: "last CPU busy with a thread in a call: preempts it as the call returns", preempt: 1,
			setup: func(g *GoRuntime) {
				g.gs[wakee].cpu = 1
				g.m.cores[0].cur, g.m.cores[1].cur = waker, other
				g.gs[other].cpu, g.gs[other].inCall = 1, true
			},
			wantCPU: 1, wantPre: other, remote: true},
		{name: "last CPU busy with a thread spinning for a mutex: first in line there", preempt: 1,
			setup: func(g *GoRuntime) {
				g.gs[wakee].cpu = 1
				g.m.cores[0].cur, g.m.cores[1].cur = waker, other
				g.m.cores[1].runq = []int32{3}
				g.gs[other].cpu = 1
				g.m.sy.mutexes[0].holder, g.m.sy.mutexes[0].spinners = 3, []int32{other}
			},
			wantCPU: 1, wantQueue: []int32{wakee, 3}, wantPre: -1, remote: true},
		{name: "last CPU busy with a thread in Go code: preempts it at once, it goes first in line", preempt: 1,
			setup: func(g *GoRuntime) {
				g.gs[wakee].cpu = 1
				g.m.cores[0].cur, g.m.cores[1].cur = waker, other
				g.m.cores[1].runq = []int32{3}
				g.gs[other].cpu = 1
				g.Compute(other, 500)
			},
			wantCPU: 1, wantCur: true, wantQueue: []int32{other, 3}, wantPre: -1, remote: true, wantResume: 500},
		{name: "last CPU busy with a thread in Go code holding a mutex: first in line there", preempt: 1,
			setup: func(g *GoRuntime) {
				g.gs[wakee].cpu = 1
				g.m.cores[0].cur, g.m.cores[1].cur = waker, other
				g.m.cores[1].runq = []int32{3}
				g.gs[other].cpu = 1
				require.True(t, g.Lock(other, 0))
				g.Compute(other, 500)
			},
			wantCPU: 1, wantQueue: []int32{wakee, 3}, wantPre: -1, remote: true},
		{name: "last CPU is the waker's: preempts the waker", preempt: 1,
			setup:   func(g *GoRuntime) { g.m.cores[0].cur = waker },
			wantCPU: 0, wantPre: waker},
		{name: "woken by the runtime, last CPU busy, another idle: moves there", preempt: 1, byRuntime: true,
			setup:   func(g *GoRuntime) { g.m.cores[0].cur = other },
			wantCPU: 1, wantCur: true, wantPre: -1, remote: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newIdleRuntime(t, tt.preempt)
			g.gs[waker].blocked, g.gs[other].blocked = false, false
			tt.setup(g)
			from := int32(waker)
			if tt.byRuntime {
				from = -1
			}
			d := g.Wake(wakee, from)
			th := g.gs[wakee]
			assert.False(t, th.blocked)
			assert.Equal(t, tt.wantCPU, th.cpu, "CPU")
			assert.Equal(t, tt.wantCur, g.m.cores[tt.wantCPU].cur == wakee, "current thread of its CPU")
			assert.Equal(t, tt.wantQueue, g.m.cores[tt.wantCPU].runq, "run queue of its CPU")
			pre := int32(-1)
			for id := range g.gs {
				if g.gs[id].preempt == wakee {
					pre = int32(id)
				}
			}
			assert.Equal(t, tt.wantPre, pre, "preempted thread")
			o := g.gs[other]
			assert.Equal(t, tt.wantResume > 0, o.resume, "the thread there was preempted in Go code")
			if tt.wantResume > 0 {
				assert.Equal(t, tt.wantResume, o.remain, "its work left")
				assert.False(t, o.stepping, "its pending step is void")
			}
			if tt.remote && !tt.byRuntime {
				assert.GreaterOrEqual(t, d, int64(g.m.cfg.Costs.FutexWakeCall)/2, "an interrupt's cost")
			} else if !tt.byRuntime {
				assert.Equal(t, int64(g.m.cfg.Costs.Syscall), d, "a bare system call")
			}
		})
	}
}

// A CPU going idle runs the next thread ready on it, and with none stays idle
// even while another CPU has threads waiting: this kernel's newly idle CPUs do
// not pull.
func TestDispatchDoesNotPullFromABusyCPU(t *testing.T) {
	g := newIdleRuntime(t, 0)
	g.m.cores[1].cur, g.m.cores[1].runq = 2, []int32{3, 4}
	g.dispatch(0)
	assert.Equal(t, int32(-1), g.m.cores[0].cur)
	assert.Equal(t, []int32{3, 4}, g.m.cores[1].runq)
	g.m.cores[0].runq = []int32{5}
	g.dispatch(0)
	assert.Equal(t, int32(5), g.m.cores[0].cur)
	assert.Empty(t, g.m.cores[0].runq)
}

// A thread preempted in Go code keeps its P, which Go still sees running (a
// woken thread whose old P it is cannot take it), and when its CPU comes back
// it finishes the work it was doing, no more.
func TestPreemptUserKeepsThePAndResumesTheWork(t *testing.T) {
	const wakee, waker, other = 0, 1, 2
	g := newIdleRuntime(t, 1)
	g.gs[waker].blocked, g.gs[other].blocked = false, false
	g.gs[wakee].cpu, g.gs[other].cpu = 1, 1
	g.m.cores[0].cur, g.m.cores[1].cur = waker, other
	g.setP(0, pRunning, other)
	g.gs[other].p = 0
	g.Compute(other, 500)
	g.Wake(wakee, waker)
	require.True(t, g.gs[other].resume)
	assert.Equal(t, pRunning, g.ps[0].state, "its P, as Go sees it")
	assert.Equal(t, int32(other), g.ps[0].thread)
	g.exitsyscall(g.m.e.Now(), other, g.m.threads[other].gen)
	o := g.gs[other]
	assert.False(t, o.resume)
	assert.True(t, o.stepping)
	assert.Equal(t, g.m.e.Now()+500, o.due, "the rest of its work")
	assert.Equal(t, 0, o.p, "on the P it kept")
}

// A P that sysmon retakes with nobody queued goes idle keeping the time the
// scheduler last gave it a goroutine: handoffp and pidleput leave schedtick
// alone, so a thread that takes it from the idle list in exitsyscall finds it
// as old as it was, for forcePreempt.
func TestHandoffToNobodyKeepsTheSchedTime(t *testing.T) {
	g := newIdleRuntime(t, 0)
	g.runq = nil
	g.ps[0] = goP{state: pSyscall, thread: 3, sched: 12345}
	g.handoffp(0)
	assert.Equal(t, goP{state: pIdle, sched: 12345}, g.ps[0])
}

// SetGoRuntime takes a bare CFS machine and a driver's step, with sysmon's
// real sleep within what it can ask for; a machine with the layer takes no interpreted
// threads.
func TestSetGoRuntimeRejectsWhatTheLayerCannotRun(t *testing.T) {
	step := func(int32) {}
	tests := []struct {
		name  string
		cfg   Config
		procs int
		prep  func(m *Machine)
		step  func(int32)
		want  string
	}{
		{"no Ps", Config{CPUs: 2}, 0, nil, step, "procs = 0, want 1..1024"},
		{"too many Ps", Config{CPUs: 2}, 1025, nil, step, "procs = 1025, want 1..1024"},
		{"no driver", Config{CPUs: 2}, 2, nil, nil, "step is nil"},
		{"solaris TS", Config{CPUs: 2, Scheduler: TS}, 2, nil, step, "want cfs"},
		{"a machine with threads", Config{CPUs: 2}, 2, func(m *Machine) {
			require.NoError(t, m.AddThread([]Op{cpu(time.Microsecond)}, 0))
		}, step, "want a bare machine"},
		{"sysmon tick shorter than its request", Config{CPUs: 2, Costs: func() CostProfile { c := calibratedCosts(); c.SysmonTick = 10 * time.Microsecond; return c }()}, 2, nil, step, "sysmon_tick = 10µs, want 20µs..10ms"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := New(tt.cfg)
			require.NoError(t, err)
			if tt.prep != nil {
				tt.prep(m)
			}
			_, err = m.SetGoRuntime(tt.procs, tt.step)
			require.ErrorIs(t, err, ErrInvalidConfig)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
	t.Run("then no interpreted thread", func(t *testing.T) {
		m, err := New(Config{CPUs: 2, Costs: calibratedCosts()})
		require.NoError(t, err)
		_, err = m.SetGoRuntime(2, step)
		require.NoError(t, err)
		err = m.AddThread([]Op{cpu(time.Microsecond)}, 0)
		require.ErrorIs(t, err, ErrInvalidConfig)
		assert.Contains(t, err.Error(), "GoRuntime.AddThread")
	})
}

// A mutex taken through the layer goes to its spinners in arrival order, each
// continuing MutexHandoff after the release, and its holder is not preempted
// in user mode: a wake that would preempt it waits first in line instead.
func TestGoRuntimeLockHandsTheMutexOverInOrder(t *testing.T) {
	g := newIdleRuntime(t, 1)
	require.True(t, g.Lock(1, 0))
	assert.False(t, g.Lock(2, 0))
	assert.False(t, g.Lock(3, 0))
	g.Unlock(0)
	mu := g.m.sy.mutexes[0]
	assert.Equal(t, int32(2), mu.holder, "the first spinner holds it")
	assert.Equal(t, []int32{3}, mu.spinners)
	assert.Equal(t, g.m.e.Now()+int64(g.m.cfg.Costs.MutexHandoff), g.gs[2].due, "it goes on MutexHandoff later")
	g.Unlock(0)
	g.Unlock(0)
	assert.Equal(t, int32(-1), g.m.sy.mutexes[0].holder, "free once nobody spins")
	assert.Equal(t, uint64(3), g.m.sy.mutexes[0].Acquisitions)
	assert.Equal(t, uint64(2), g.m.sy.mutexes[0].SpinAcquired)
}
