package spec

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const ms = time.Millisecond

func TestParseKernelReadsUnameReleases(t *testing.T) {
	for in, want := range map[string]Kernel{
		"2.6.32":                    {2, 6, 32},
		"2.6.32-642.6.2.el6.x86_64": {2, 6, 32},
		"6.8.0-60-generic":          {6, 8, 0},
		"6.8":                       {6, 8, 0},
		"6.18.44-fc-v1272":          {6, 18, 44},
		"3.2.71+":                   {3, 2, 71},
	} {
		got, err := ParseKernel(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, bad := range []string{"", "6", "six.8", "6.8.1.2", "6.-1", "-generic", "6..8"} {
		_, err := ParseKernel(bad)
		assert.ErrorIs(t, err, ErrInvalidConfig, "%q", bad)
	}
}

func TestKernelBeforeOrdersReleases(t *testing.T) {
	assert.True(t, Kernel{2, 6, 32}.Before(Kernel{3, 2, 0}))
	assert.True(t, Kernel{6, 5, 99}.Before(Kernel{6, 6, 0}))
	assert.True(t, Kernel{6, 6, 0}.Before(Kernel{6, 6, 1}))
	assert.False(t, Kernel{6, 6, 0}.Before(Kernel{6, 6, 0}))
	assert.False(t, Kernel{10, 0, 0}.Before(Kernel{9, 99, 99}))
}

func TestTunableFactorIsOnePlusLog2OfTheCPUsCappedAtEight(t *testing.T) {
	for cpus, want := range map[int]int{1: 1, 2: 2, 3: 2, 4: 3, 7: 3, 8: 4, 12: 4, 80: 4, 1024: 4} {
		assert.Equal(t, want, TunableFactor(cpus), "%d CPUs", cpus)
	}
}

func TestSchedOfFollowsTheReleasesRead(t *testing.T) {
	for _, tc := range []struct {
		name   string
		kernel Kernel
		cpus   int
		want   Sched
	}{
		{
			// kernel/sched_fair.c of 2.6.32: 5 ms, 1 ms, 1 ms, nr_latency 5,
			// scaled by 4 from 8 CPUs on
			name: "2.6.32 on 24 CPUs", kernel: Kernel{2, 6, 32}, cpus: 24,
			want: Sched{Policy: CFS, Factor: 4, Latency: 20 * ms, MinGranularity: 4 * ms, WakeupGranularity: 4 * ms, NrLatency: 5, SleeperCredit: 10 * ms},
		},
		{
			// 6 ms, 0.75 ms, 1 ms: the 24 ms, 3 ms and 4 ms the simulator's
			// CFS model has used for 8 CPUs and more
			name: "3.2 on 16 CPUs", kernel: Kernel{3, 2, 71}, cpus: 16,
			want: Sched{Policy: CFS, Factor: 4, Latency: 24 * ms, MinGranularity: 3 * ms, WakeupGranularity: 4 * ms, NrLatency: 8, SleeperCredit: 12 * ms},
		},
		{
			name: "5.15 on 2 CPUs", kernel: Kernel{5, 15, 0}, cpus: 2,
			want: Sched{Policy: CFS, Factor: 2, Latency: 12 * ms, MinGranularity: 1500 * time.Microsecond, WakeupGranularity: 2 * ms, NrLatency: 8, SleeperCredit: 6 * ms},
		},
		{
			name: "6.5 is still CFS", kernel: Kernel{6, 5, 13}, cpus: 1,
			want: Sched{Policy: CFS, Factor: 1, Latency: 6 * ms, MinGranularity: 750 * time.Microsecond, WakeupGranularity: ms, NrLatency: 8, SleeperCredit: 3 * ms},
		},
		{
			name: "6.8 on 80 CPUs is EEVDF with a 3 ms base slice", kernel: Kernel{6, 8, 0}, cpus: 80,
			want: Sched{Policy: EEVDF, Factor: 4, BaseSlice: 3 * ms},
		},
		{
			name: "6.14 on 1 CPU", kernel: Kernel{6, 14, 0}, cpus: 1,
			want: Sched{Policy: EEVDF, Factor: 1, BaseSlice: 750 * time.Microsecond},
		},
		{
			name: "6.15 shortens the base slice to 0.70 ms", kernel: Kernel{6, 15, 0}, cpus: 2,
			want: Sched{Policy: EEVDF, Factor: 2, BaseSlice: 1400 * time.Microsecond},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := SchedOf(tc.kernel, tc.cpus)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestSchedOfRefusesReleasesNotRead(t *testing.T) {
	for _, tc := range []struct {
		kernel Kernel
		cpus   int
		msg    string
	}{
		{Kernel{2, 6, 31}, 8, "releases before 2.6.32 are not modelled"},
		{Kernel{2, 6, 35}, 8, "give sched_latency, sched_min_granularity and sched_wakeup_granularity"},
		{Kernel{3, 1, 0}, 8, "2.6.33 to 3.1 were not read"},
		{Kernel{6, 8, 0}, 0, "0 CPUs, want 1..1024"},
		{Kernel{6, 8, 0}, 1025, "1025 CPUs, want 1..1024"},
	} {
		_, err := SchedOf(tc.kernel, tc.cpus)
		require.Error(t, err, "%v", tc.kernel)
		assert.True(t, errors.Is(err, ErrInvalidConfig))
		assert.Contains(t, err.Error(), tc.msg)
	}
}

func TestSliceShrinksToTheMinimumGranularityAsTheRunQueueGrows(t *testing.T) {
	old, err := SchedOf(Kernel{2, 6, 32}, 24) // 20 ms latency, 4 ms granularity, nr_latency 5
	require.NoError(t, err)
	for _, tc := range []struct {
		nr            int
		period, slice time.Duration
	}{
		{0, 20 * ms, 20 * ms}, // a lone thread, counted as one
		{1, 20 * ms, 20 * ms},
		{2, 20 * ms, 10 * ms},
		{5, 20 * ms, 4 * ms},
		{6, 24 * ms, 4 * ms}, // past nr_latency the period stretches
		{341, 1364 * ms, 4 * ms},
	} {
		assert.Equal(t, tc.period, old.Period(tc.nr), "period of %d", tc.nr)
		assert.Equal(t, tc.slice, old.Slice(tc.nr), "slice of %d", tc.nr)
	}
	eevdf, err := SchedOf(Kernel{6, 8, 0}, 80)
	require.NoError(t, err)
	assert.Equal(t, 3*ms, eevdf.Slice(1))
	assert.Equal(t, 3*ms, eevdf.Slice(1000), "every thread asks for the base slice")
	assert.Equal(t, 3000*ms, eevdf.Period(1000))
}

func TestTickSliceRoundsUpToTheTick(t *testing.T) {
	s := Sched{Policy: EEVDF, BaseSlice: 3 * ms}
	assert.Equal(t, 3*ms, s.TickSlice(4), "tick unknown")
	s.Tick = 4 * ms // HZ=250
	assert.Equal(t, 4*ms, s.TickSlice(4))
	s.Tick = ms // HZ=1000
	assert.Equal(t, 3*ms, s.TickSlice(4))
	s.BaseSlice = 2800 * time.Microsecond
	assert.Equal(t, 3*ms, s.TickSlice(4))
}
