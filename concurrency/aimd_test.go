package concurrency

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAIMDConfigValidation(t *testing.T) {
	tests := []struct {
		name string
		cfg  AIMDConfig
		want string
	}{
		{"max under min", AIMDConfig{Min: 10, Max: 5}, "AIMD Max = 5, want 10..1000"},
		{"initial outside bounds", AIMDConfig{Min: 2, Max: 8, Initial: 9}, "AIMD Initial = 9, want 2..8"},
		{"tolerance at 1", AIMDConfig{Tolerance: 1}, "AIMD Tolerance = 1, want (1, 10]"},
		{"backoff at 1", AIMDConfig{Backoff: 1}, "AIMD Backoff = 1, want (0, 1)"},
		{"negative window", AIMDConfig{Window: -1}, "AIMD Window = -1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewAIMD(tt.cfg)
			assert.ErrorIs(t, err, ErrInvalidConfig)
			assert.ErrorContains(t, err, tt.want)
		})
	}
}

// uslInside is the time one operation spends inside with n threads inside, by
// the Universal Scalability Law: X(n) = n / (1 + σ(n-1) + κn(n-1)) operations
// per time unit, so time inside = n / X(n). σ = 0.05, κ = 0.01 put the peak at
// n* = sqrt((1-σ)/κ) ≈ 9.7.
func uslInside(n int) time.Duration {
	const sigma, kappa = 0.05, 0.01
	f := float64(n)
	return time.Duration((1 + sigma*(f-1) + kappa*f*(f-1)) * float64(time.Microsecond))
}

func uslThroughput(n int) float64 { return float64(n) / uslInside(n).Seconds() }

// TestAIMDFindsAGoodLimit is the evidence that the online limit helps, in a
// model: 64 clients on an engine whose scaling follows the USL. Unlimited (all
// 64 inside) runs at about a third of the peak; the controller, started at 1,
// settles where throughput is within 20% of the peak.
func TestAIMDFindsAGoodLimit(t *testing.T) {
	const clients = 64
	a, err := NewAIMD(AIMDConfig{})
	require.NoError(t, err)
	peak := 0.0
	for n := 1; n <= clients; n++ {
		peak = math.Max(peak, uslThroughput(n))
	}
	var sum float64
	const windows, tail = 400, 100
	for w := 0; w < windows; w++ {
		n := min(a.Limit(), clients)
		a.ObserveWindow(uslInside(n))
		if w >= windows-tail {
			sum += uslThroughput(min(a.Limit(), clients))
		}
	}
	got := sum / tail
	unlimited := uslThroughput(clients)
	t.Logf("peak %.0f/s, unlimited %.0f/s, AIMD %.0f/s at limit %d", peak, unlimited, got, a.Limit())
	assert.GreaterOrEqual(t, got, 0.8*peak, "AIMD settles near the peak")
	assert.Greater(t, got, 2*unlimited, "and far above no limit")
}

func TestAIMDStepRules(t *testing.T) {
	a, err := NewAIMD(AIMDConfig{Min: 2, Max: 20, Initial: 10, Window: 2})
	require.NoError(t, err)
	steps := []struct {
		sample time.Duration
		want   int
	}{
		{100, 10}, {100, 11}, // first window sets the baseline; within tolerance: +1
		{140, 11}, {140, 12}, // 140 ≤ 1.5 × ~100: +1
		{400, 12}, {400, 10}, // far above: ×0.9 (10.8 → 10)
		{400, 10}, {400, 9}, // still above: 9
	}
	for i, s := range steps {
		lim, _ := a.Observe(s.sample)
		assert.Equal(t, s.want, lim, "sample %d", i)
	}
	lowest := a.Limit()
	for i := 0; i < 20; i++ {
		lim, _ := a.ObserveWindow(10 * time.Second)
		lowest = min(lowest, lim)
	}
	assert.Equal(t, 2, lowest, "the work got 100000 times slower: cut down to Min, never under")
	assert.Greater(t, a.Limit(), 2, "slow even at Min: re-baselined and growing again")
}
