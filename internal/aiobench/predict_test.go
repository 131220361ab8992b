package aiobench

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/innosim/innosim/aio"
	"github.com/innosim/innosim/sim"
)

// benchCosts is a cost profile of the shape innosim calibrate writes on a 2-core
// VM.
func benchCosts() sim.CostProfile {
	p := sim.OldKernel()
	p.Syscall = 200 * time.Nanosecond
	p.ContextSwitch = 3500 * time.Nanosecond
	p.FutexWakeCall = 9 * time.Microsecond
	p.FutexWake = 20 * time.Microsecond
	p.ThreadHandoff = 20 * time.Microsecond
	p.MutexHandoff = 10 * time.Nanosecond
	p.WakePreempt = 0.75
	p.SysmonTick = 110 * time.Microsecond
	return p
}

func predict(t *testing.T, wake aio.WakePolicy, handlers int, c sim.CostProfile) Prediction {
	t.Helper()
	return predictOn(t, wake, handlers, 2, c)
}

func predictOn(t *testing.T, wake aio.WakePolicy, handlers, cpus int, c sim.CostProfile) Prediction {
	t.Helper()
	p, err := Predict(Config{Wake: wake, Handlers: handlers, CPUs: cpus, Costs: c, Ops: 2000, Runs: 4})
	require.NoError(t, err)
	return p
}

func TestPredictAIOWakeRejectsBadConfig(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"no handlers", Config{CPUs: 2}, "Handlers = 0, want 1..64"},
		{"too many handlers", Config{Handlers: 65, CPUs: 2}, "Handlers = 65, want 1..64"},
		{"no cpus", Config{Handlers: 4}, "CPUs = 0, want 1..1024"},
		{"negative submitters", Config{Handlers: 4, CPUs: 2, Submitters: -1}, "Submitters = -1, want 1..64"},
		{"too many ops", Config{Handlers: 4, CPUs: 2, Ops: 20_000_000}, "Ops = 20000000, want 1..10000000"},
		{"negative runs", Config{Handlers: 4, CPUs: 2, Runs: -1}, "Runs = -1, want 1..64 (0 for 16)"},
		{"negative futex wake", Config{Handlers: 4, CPUs: 2, Costs: sim.CostProfile{IOService: 1, FutexWake: -1}}, "futex_wake = -1ns"},
		{"preempt share over 1", Config{Handlers: 4, CPUs: 2, Costs: sim.CostProfile{IOService: 1, WakePreempt: 1.5}}, "wake_preempt = 1.5, want 0..1"},
		{"sysmon tick shorter than its request", Config{Handlers: 4, CPUs: 2, Costs: sim.CostProfile{IOService: 1, SysmonTick: 10 * time.Microsecond}}, "sysmon_tick = 10µs, want 20µs..10ms"},
		{"sysmon tick past sysmon's longest sleep", Config{Handlers: 4, CPUs: 2, Costs: sim.CostProfile{IOService: 1, SysmonTick: 20 * time.Millisecond}}, "sysmon_tick = 20ms, want 20µs..10ms"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Predict(tt.cfg)
			require.ErrorIs(t, err, sim.ErrInvalidConfig)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestPredictAIOWakeCountsTheWakePath(t *testing.T) {
	tests := []struct {
		name       string
		wake       aio.WakePolicy
		handlers   int
		minWakeups float64
		maxWakeups float64
	}{
		// targeted: exactly the request's handler, which always finds it
		{"targeted wakes one handler per request", aio.WakeTargeted, 4, 1, 1},
		{"targeted at 32 handlers still wakes one", aio.WakeTargeted, 32, 1, 1},
		// wake-all: more than one, at most every one of the 2 + 2×handlers
		{"wake-all wakes more than one at 4 handlers", aio.WakeAll, 4, 1.1, 10},
		{"wake-all wakes many at 32 handlers", aio.WakeAll, 32, 8, 66},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := predict(t, tt.wake, tt.handlers, benchCosts())
			assert.Positive(t, p.NsPerOp)
			assert.GreaterOrEqual(t, p.WakeupsPerOp, tt.minWakeups)
			assert.LessOrEqual(t, p.WakeupsPerOp, tt.maxWakeups)
			assert.InDelta(t, p.WakeupsPerOp-1, p.WastedPerOp, 0.01, "every wakeup but the one with the request is wasted")
			// a wait and a wake per wakeup, and now and then a wake that finds
			// its waiter not yet asleep
			assert.LessOrEqual(t, p.FutexPerOp, 2.1*p.WakeupsPerOp)
			assert.GreaterOrEqual(t, p.FutexPerOp, 0.5*p.WakeupsPerOp)
		})
	}
}

func TestPredictAIOWakeIsDeterministic(t *testing.T) {
	a := predict(t, aio.WakeAll, 8, benchCosts())
	b := predict(t, aio.WakeAll, 8, benchCosts())
	assert.Equal(t, a, b)
}

// Dearer futex calls (FUTEX_WAKE that wakes a thread, and the bare system call)
// must slow wake-all, which makes several per request, by more than targeted,
// which makes about two. (At 4 handlers targeted may even gain: a longer
// FUTEX_WAKE to the submitter keeps its handler awake until the next request.)
func TestPredictAIOWakeRespondsToFutexCosts(t *testing.T) {
	base := benchCosts()
	dear := base
	dear.Syscall *= 3
	dear.FutexWakeCall *= 3
	for _, h := range []int{4, 32} {
		all0, all1 := predict(t, aio.WakeAll, h, base), predict(t, aio.WakeAll, h, dear)
		tg0, tg1 := predict(t, aio.WakeTargeted, h, base), predict(t, aio.WakeTargeted, h, dear)
		dAll, dTg := all1.NsPerOp-all0.NsPerOp, tg1.NsPerOp-tg0.NsPerOp
		assert.Positive(t, dAll, "handlers=%d: wake-all %v → %v ns/op", h, all0.NsPerOp, all1.NsPerOp)
		assert.Greater(t, dAll, dTg, "handlers=%d: wake-all +%v ns/op vs targeted +%v", h, dAll, dTg)
	}
}

func TestPredictAIOWakeWakeAllCostsMoreWithMoreHandlers(t *testing.T) {
	c := benchCosts()
	all4, all32 := predict(t, aio.WakeAll, 4, c), predict(t, aio.WakeAll, 32, c)
	tg4 := predict(t, aio.WakeTargeted, 4, c)
	assert.Greater(t, all4.NsPerOp, tg4.NsPerOp, "wake-all vs targeted at 4 handlers")
	assert.Greater(t, all32.NsPerOp, 2*all4.NsPerOp, "wake-all at 32 vs 4 handlers")
}

// Each cost moves the prediction the way it should: dearer is never faster
// where the cost is paid, and strictly slower in a case that pays it often. On
// one CPU every wake is local; on two, wake-all at 32 handlers wakes many
// threads onto the other CPU.
func TestPredictAIOWakeMovesWithEachCost(t *testing.T) {
	tests := []struct {
		name     string
		dearer   func(*sim.CostProfile)
		wake     aio.WakePolicy
		handlers int
		cpus     int
	}{
		{"context switch, targeted on one CPU", func(c *sim.CostProfile) { c.ContextSwitch *= 3 }, aio.WakeTargeted, 4, 1},
		{"context switch, wake-all on one CPU", func(c *sim.CostProfile) { c.ContextSwitch *= 3 }, aio.WakeAll, 32, 1},
		{"system call, wake-all on one CPU", func(c *sim.CostProfile) { c.Syscall *= 10 }, aio.WakeAll, 32, 1},
		{"remote wake call, wake-all on two CPUs", func(c *sim.CostProfile) { c.FutexWakeCall *= 3 }, aio.WakeAll, 32, 2},
		{"remote wake latency, wake-all on two CPUs", func(c *sim.CostProfile) { c.FutexWake *= 3 }, aio.WakeAll, 32, 2},
		{"thread handoff, wake-all on two CPUs", func(c *sim.CostProfile) { c.ThreadHandoff *= 5 }, aio.WakeAll, 32, 2},
		{"sysmon tick, targeted at 32 handlers on two CPUs", func(c *sim.CostProfile) { c.SysmonTick *= 5 }, aio.WakeTargeted, 32, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel() // each case is two predictions of seconds under -race
			base := benchCosts()
			dear := base
			tt.dearer(&dear)
			p0 := predictOn(t, tt.wake, tt.handlers, tt.cpus, base)
			p1 := predictOn(t, tt.wake, tt.handlers, tt.cpus, dear)
			assert.Greater(t, p1.NsPerOp, p0.NsPerOp)
		})
	}
}

// A wake onto an idle CPU needs one: on one CPU, which a running waker keeps
// busy, it happens only when every thread sleeps and the runtime hands a P to
// a queued one (and as the threads start); on two, wake-all wakes handlers
// onto the other CPU on every request.
func TestPredictAIOWakeRemoteWakesNeedAnIdleCPU(t *testing.T) {
	for _, wake := range []aio.WakePolicy{aio.WakeAll, aio.WakeTargeted} {
		p := predictOn(t, wake, 4, 1, benchCosts())
		assert.Less(t, p.RemoteWakesPerOp, 0.05*p.LocalWakesPerOp, "%s", wake)
		assert.Greater(t, p.LocalWakesPerOp, 1.0, "%s", wake)
	}
	assert.Greater(t, predictOn(t, aio.WakeAll, 32, 2, benchCosts()).RemoteWakesPerOp, 1.0)
}

// The mechanism behind targeted's futex/op at 4 handlers: submitter j's
// requests all go to handler j, and when the submitter, woken onto the
// handler's CPU by the completion, preempts the handler before it sleeps, it
// finds the handler still awake: its Set needs no FUTEX_WAKE and the handler's
// Wait no FUTEX_WAIT. Without wakeup preemption the handler always sleeps
// first: a FUTEX_WAIT and a FUTEX_WAKE per request.
func TestPredictAIOWakePreemptionLetsTheHandlerCatchTheNextRequest(t *testing.T) {
	tests := []struct {
		name     string
		preempt  float64
		min, max float64
	}{
		{"never preempts: the handler always sleeps", 0, 1.95, 2.05},
		{"calibrated share", 0.75, 0.5, 1.6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := benchCosts()
			c.WakePreempt = tt.preempt
			p := predictOn(t, aio.WakeTargeted, 4, 1, c)
			assert.GreaterOrEqual(t, p.FutexPerOp, tt.min)
			assert.LessOrEqual(t, p.FutexPerOp, tt.max)
		})
	}
}

// Threads that pass Ps to each other in exitsyscall never go through Go's
// scheduler, so without sysmon's forced retake (a P whose schedtick has not
// moved for 10 ms is taken from whatever system call holds it) two submitters
// could keep both Ps and starve the other two until they finish. With it a
// starved submitter waits about 10 ms at most: by 30 ms of simulated time
// every submitter has done some of its requests.
func TestPredictAIOWakeNoSubmitterStarves(t *testing.T) {
	cfg := Config{Wake: aio.WakeTargeted, Handlers: 4, CPUs: 2, Costs: benchCosts(), Ops: 1_000_000, Submitters: 4, Runs: 1}
	acfg := aio.DefaultConfig()
	acfg.ReadSegments, acfg.WriteSegments = 4, 4
	acfg.Wake, acfg.Handlers = aio.WakeTargeted, aio.HandlerFutex
	for seed := uint64(1); seed <= 8; seed++ {
		core, err := aio.NewCore(acfg)
		require.NoError(t, err)
		d, err := newDriver(cfg, core, seed)
		require.NoError(t, err)
		for d.e.Now() < int64(30*time.Millisecond) && d.e.Step() {
		}
		for _, s := range d.sub {
			assert.Positive(t, s.i, "seed %d: submitter %d did %d requests of %d", seed, s.j, s.i, d.ops)
		}
	}
}
