package sim

import (
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
	c.Steady = &SteadyWarmup{Window: 50 * time.Millisecond, Tolerance: 0.1, PerThread: 4, Max: 10 * time.Second}
	r, err := c.Run(t.Context())
	require.NoError(t, err)
	assert.InEpsilon(t, ref.Throughput, r.Throughput, 0.15, "steady %v/s, long run %v/s", r.Throughput, ref.Throughput)
	assert.GreaterOrEqual(t, r.Elapsed, c.Measure, "the measured window is at least the steady windows' length")
}

func TestSteadyWarmupErrors(t *testing.T) {
	c := rampCell()
	c.Machine.Scheduler = TS // no CFS start: the pairs begin at Warmup
	c.Steady = &SteadyWarmup{Window: 10 * time.Millisecond, Tolerance: 0.1, PerThread: 1, Max: 40 * time.Millisecond}
	_, err := c.Run(t.Context())
	require.ErrorIs(t, err, ErrNotSteady, "no connection completes in the first 40 ms")
	assert.ErrorContains(t, err, "connect, 256 threads")

	for name, s := range map[string]SteadyWarmup{
		"window 0":          {Window: 0, Tolerance: 0.1, PerThread: 1, Max: time.Second},
		"window above max":  {Window: 2 * time.Second, Tolerance: 0.1, PerThread: 1, Max: time.Second},
		"tolerance 0":       {Window: time.Millisecond, Tolerance: 0, PerThread: 1, Max: time.Second},
		"tolerance 1":       {Window: time.Millisecond, Tolerance: 1, PerThread: 1, Max: time.Second},
		"tolerance NaN":     {Window: time.Millisecond, Tolerance: math.NaN(), PerThread: 1, Max: time.Second},
		"per thread 0":      {Window: time.Millisecond, Tolerance: 0.1, PerThread: 0, Max: time.Second},
		"max below warm-up": {Window: time.Millisecond, Tolerance: 0.1, PerThread: 1, Max: 21 * time.Millisecond},
		// Warmup + 2 × Window overflowed, passed the check, and the pairs of
		// windows of 2^62 ns ran without end
		"a window whose pair overflows the clock": {Window: 1 << 62, Tolerance: 0.1, PerThread: 1, Max: math.MaxInt64},
		"a max that leaves no room to measure":    {Window: time.Millisecond, Tolerance: 0.1, PerThread: 1, Max: math.MaxInt64},
	} {
		c := rampCell()
		c.Steady = &s
		assert.ErrorIs(t, c.Validate(), ErrInvalidConfig, name)
	}
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

// Two windows of the ramp agreed, and the cell measured 3.6 times its long
// run (a new user's report: 43,780 over the default window, 13,573 over a
// minute). The long run here is the cell warmed up 6 s and measured 2 s.
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
	c.Steady = &SteadyWarmup{Window: DefaultMeasure, Tolerance: 0.1, PerThread: 10, Max: 120 * time.Second}
	r, err := c.Run(t.Context())
	require.NoError(t, err)
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
	c.Steady = &SteadyWarmup{Window: DefaultMeasure, Tolerance: 0.1, PerThread: 10, Max: time.Second}
	for _, err := range []error{c.Validate(), func() error { _, err := c.Run(t.Context()); return err }()} {
		require.ErrorIs(t, err, ErrInvalidConfig)
		require.ErrorIs(t, err, ErrNotSteady)
		assert.ErrorContains(t, err, "Steady.Max = 1s leaves no room for two windows of 100ms after the scheduler's sleepers have had their credit, at 3.072s (512 threads × 12ms of CPU each on 2 CPUs): want Steady.Max at least 3.272s")
	}
	c.Threads, c.Machine.CPUs = 100, 1
	assert.ErrorContains(t, c.Validate(), "on 1 CPU)")
}

// The measured window starts where the steady pair ended. Cell.Run passed
// that end, a time on the machine's clock, to Machine.Run as a warm-up to
// run from there, so every steady cell warmed up twice as long as its test
// said and measured a later stretch than the one found steady.
func TestSteadyWarmupMeasuresFromThePairsEnd(t *testing.T) {
	c := rampCell()
	c.Steady = &SteadyWarmup{Window: 50 * time.Millisecond, Tolerance: 0.1, PerThread: 4, Max: 10 * time.Second}
	got, err := c.Run(t.Context())
	require.NoError(t, err)

	m, err := c.build()
	require.NoError(t, err)
	end, w, err := m.warmUntilSteady(c.Warmup, *c.Steady)
	require.NoError(t, err)
	fixed := c
	fixed.Steady, fixed.Warmup, fixed.Measure = nil, end, max(c.Measure, w)
	want, err := fixed.Run(t.Context())
	require.NoError(t, err)
	assert.Equal(t, want.Units, got.Units, "the steady cell measures [%v, %v)", end, end+max(c.Measure, w))
	assert.Equal(t, want.Events, got.Events, "and runs no further")
	assert.Equal(t, end, got.Start)
}
