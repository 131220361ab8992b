package sim

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rampCell is a closed system whose first round outlasts a fixed warm-up:
// 256 connect connections with their client on 2 cores, every switch 40 µs.
// All start at time 0, so none completes before every connection has had
// its turns, and then they complete in waves, one a round.
func rampCell() Cell {
	costs := NewKernel()
	costs.ContextSwitch = 40 * time.Microsecond
	return Cell{Workload: "connect", Threads: 256, Warmup: 20 * time.Millisecond, Measure: 50 * time.Millisecond,
		Machine: MachineConfig{CPUs: 2, Costs: costs, SpinLoops: DefaultSpinLoops, Seed: 1},
		Client:  &ClientConfig{Event: 150 * time.Microsecond}}
}

// A cell whose ramp is longer than its fixed warm-up measures the ramp or a
// wave's crest; with Steady it reads its long-run throughput. The long run
// is the same cell warmed up for 4 s (past its 3.1 s of sleeper credit) and
// measured for 1 s.
func TestSteadyWarmupReadsTheSteadyValue(t *testing.T) {
	long := rampCell()
	long.Warmup, long.Measure = 4*time.Second, time.Second
	ref, err := long.Run(t.Context())
	require.NoError(t, err)
	require.Positive(t, ref.Throughput)

	fixed, err := rampCell().Run(t.Context())
	require.NoError(t, err)
	assert.Less(t, fixed.Throughput, 0.5*ref.Throughput, "the fixed 20 ms warm-up measures the first round, before the connections complete")

	c := rampCell()
	c.Steady = &SteadyWarmup{Max: 20 * time.Second}
	r, err := c.Run(t.Context())
	require.NoError(t, err)
	assert.False(t, r.NotSteady)
	assert.InEpsilon(t, ref.Throughput, r.Throughput, 0.1, "steady %v/s, long run %v/s", r.Throughput, ref.Throughput)
	assert.GreaterOrEqual(t, r.Elapsed, c.Measure, "the measured window is at least Measure")
}

// A steady figure does not depend on the window: doubling Measure moves it
// by less than 5%.
func TestSteadyWarmupDoublingMeasure(t *testing.T) {
	c := rampCell()
	c.Steady = &SteadyWarmup{Max: 20 * time.Second}
	a, err := c.Run(t.Context())
	require.NoError(t, err)
	c.Measure *= 2
	b, err := c.Run(t.Context())
	require.NoError(t, err)
	require.False(t, a.NotSteady || b.NotSteady)
	assert.InEpsilon(t, a.Throughput, b.Throughput, 0.05, "%v over %v, %v over %v", a.Throughput, a.Elapsed, b.Throughput, b.Elapsed)
}

// A cell still in its transient at its bound is no error: its Result says
// NotSteady, so that a sweep goes on and the cell prints as not steady.
func TestSteadyWarmupNotSteadyAtItsBound(t *testing.T) {
	c := rampCell()
	c.Machine.Scheduler = TS // no CFS start: the series begins at Warmup
	c.Warmup, c.Measure = time.Millisecond, 5*time.Millisecond
	c.Steady = &SteadyWarmup{Max: 40 * time.Millisecond}
	r, err := c.Run(t.Context())
	require.NoError(t, err)
	assert.True(t, r.NotSteady, "no connection completes in the first 40 ms")
	assert.LessOrEqual(t, r.Start+r.Elapsed, 40*time.Millisecond, "the run stops at its bound")
}

func TestSteadyWarmupErrors(t *testing.T) {
	for name, s := range map[string]SteadyWarmup{
		"max 0":                             {Max: 0},
		"max below warm-up":                 {Max: 19 * time.Millisecond},
		"max below warm-up and two windows": {Max: 119 * time.Millisecond},
	} {
		c := rampCell()
		c.Measure = 50 * time.Millisecond
		c.Steady = &s
		assert.ErrorIs(t, c.Validate(), ErrInvalidConfig, name)
	}
	c := rampCell()
	c.Warmup, c.Measure = time.Millisecond, math.MaxInt64/2
	c.Steady = &SteadyWarmup{Max: math.MaxInt64}
	assert.ErrorIs(t, c.Validate(), ErrInvalidConfig, "2 × Measure past the clock")
}

// TestCellRefusesDurationsPastTheVirtualClock: Warmup + Measure past
// math.MaxInt64 ns overflowed the end of the run, which then measured
// nothing and returned a Result of 0 units for a window of 292 years.
func TestCellRefusesDurationsPastTheVirtualClock(t *testing.T) {
	c := rampCell()
	c.Warmup, c.Measure = time.Millisecond, math.MaxInt64
	err := c.Validate()
	require.ErrorIs(t, err, ErrInvalidConfig)
	assert.ErrorContains(t, err, "Warmup + Measure")
}

// sleeperCell is oltp_read_only (MySQL 5.1's statement) with 256 connections
// and their clients on 2 CPUs: its throughput holds about 44,000 queries/s
// for a second, while the clients' vruntime lags grow from 0, and falls to
// about 12,000 once their wakes start to preempt the server threads.
func sleeperCell() Cell {
	return Cell{Workload: "oltp_read_only", Threads: 256,
		Machine: MachineConfig{CPUs: 2, SpinLoops: DefaultSpinLoops, Seed: 1},
		Client:  &ClientConfig{Event: 5 * time.Microsecond}, RemoteWake: true}
}

// A series that holds a rate for a second before the sleepers' lags turn
// it measured 3.6 times its long run (a new user's report: 43,780 over the
// default window, 13,573 over a minute). The long run here is the cell
// warmed up 6 s and measured 2 s.
func TestSteadyWarmupWaitsForTheSleepersCredit(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates 512 threads for 14 s of virtual time")
	}
	long := sleeperCell()
	long.Warmup, long.Measure = 6*time.Second, 2*time.Second
	ref, err := long.Run(t.Context())
	require.NoError(t, err)

	c := sleeperCell()
	c.Warmup = 100 * time.Millisecond
	c.Steady = &SteadyWarmup{Max: 120 * time.Second}
	r, err := c.Run(t.Context())
	require.NoError(t, err)
	require.False(t, r.NotSteady)
	assert.InEpsilon(t, ref.Throughput, r.Throughput, 0.15, "steady %.0f/s, long run %.0f/s", r.Throughput, ref.Throughput)

	m, err := c.build()
	require.NoError(t, err)
	assert.Equal(t, 512*12*time.Millisecond/2, m.m.SleeperCreditWarmup(), "256 connections and their clients on 2 CPUs, 12 ms each")
	c.Machine.Scheduler = TS
	m, err = c.build()
	require.NoError(t, err)
	assert.Zero(t, m.m.SleeperCreditWarmup(), "TS has no vruntime")
}

// A CFS start past Steady.Max is refused before the cell runs, saying why:
// Validate finds it, and Run fails at once rather than after the warm-up.
func TestSteadyWarmupStartPastItsBound(t *testing.T) {
	c := sleeperCell()
	c.Steady = &SteadyWarmup{Max: time.Second}
	for _, err := range []error{c.Validate(), func() error { _, err := c.Run(t.Context()); return err }()} {
		require.ErrorIs(t, err, ErrInvalidConfig)
		require.ErrorIs(t, err, ErrNotSteady)
		assert.ErrorContains(t, err, "Steady.Max = 1s leaves no room for a series of 2 × Measure (200ms) after the scheduler's sleepers have had their credit, at 3.072s (512 threads × 12ms of CPU each on 2 CPUs): want Steady.Max at least 3.272s")
	}
	c.Threads, c.Machine.CPUs = 100, 1
	assert.ErrorContains(t, c.Validate(), "on 1 CPU)")
}

// The measured window is the series from MSER-5's truncation to its end:
// the same cell run with a fixed warm-up to that truncation and measured
// to that end counts the same units.
func TestSteadyWarmupMeasuresFromTheTruncation(t *testing.T) {
	c := rampCell()
	c.Steady = &SteadyWarmup{Max: 20 * time.Second}
	got, err := c.Run(t.Context())
	require.NoError(t, err)
	require.False(t, got.NotSteady)
	fixed := c
	fixed.Steady, fixed.Warmup, fixed.Measure = nil, got.Start, got.Elapsed
	want, err := fixed.Run(t.Context())
	require.NoError(t, err)
	assert.Equal(t, want.Units, got.Units, "the steady cell measures [%v, %v)", got.Start, got.Start+got.Elapsed)
	assert.Equal(t, want.Events, got.Events, "and runs no further")
}

// A canceled steady warm-up returns ctx's error promptly, whether the
// cancellation comes in its warm-up, its series or between two series: the
// engine's poll stops each Run, and the loop that records and doubles the
// series looks at it after every bin.
func TestSteadyWarmupStopsWhenCanceled(t *testing.T) {
	for _, after := range []time.Duration{time.Millisecond, 50 * time.Millisecond, 300 * time.Millisecond} {
		c := Cell{Workload: "oltp_read_only", Threads: 64, Warmup: 100 * time.Millisecond, Measure: 10 * time.Second,
			Machine: MachineConfig{CPUs: 16, Scheduler: CFS, SpinLoops: DefaultSpinLoops, Seed: 1},
			Steady:  &SteadyWarmup{Max: 10 * time.Minute}}
		ctx, cancel := context.WithTimeout(t.Context(), after)
		start := time.Now()
		r, err := c.Run(ctx)
		cancel()
		assert.ErrorIs(t, err, context.DeadlineExceeded, after)
		assert.Zero(t, r, after)
		assert.Less(t, time.Since(start), after+5*time.Second, "canceled after %v", after)
	}
}
