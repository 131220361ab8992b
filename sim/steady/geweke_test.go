package steady

import (
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A steady series passes Geweke's test about as often as its level says:
// white noise and mildly correlated noise are rejected near 5% of the time,
// not never (a test that cannot fail) and not often (a steady cell run to its
// bound).
func TestGewekeRejectsSteadyNoiseAtItsLevel(t *testing.T) {
	for _, tc := range []struct {
		name string
		phi  float64
		hi   float64
	}{
		{"white noise", 0, 0.08},
		// batch means of five observations of a wave-correlated series
		{"AR(1) of 0.3", 0.3, 0.12},
	} {
		const runs = 2000
		rejected := 0
		for seed := range uint64(runs) {
			s, err := Geweke(noise(seed, 200, tc.phi, 1))
			require.NoError(t, err)
			if !s.Stationary {
				rejected++
			}
		}
		rate := float64(rejected) / runs
		assert.Greater(t, rate, 0.02, tc.name)
		assert.Less(t, rate, tc.hi, tc.name)
	}
}

// What MSER keeps can still move: a level that steps or drifts inside the
// kept part is rejected, a step of a fifth of the noise too small to see is
// not.
func TestGewekeCatchesALevelThatMoves(t *testing.T) {
	for _, tc := range []struct {
		name       string
		level      func(i int) float64
		stationary bool
	}{
		{"a step of 3 sds at the middle", func(i int) float64 { return 3 * float64(i/100) }, false},
		{"a drift of 2 sds over the series", func(i int) float64 { return 2 * float64(i) / 200 }, false},
		{"an early level 3 sds higher for the first tenth", func(i int) float64 {
			if i < 20 {
				return 3
			}
			return 0
		}, false},
		{"flat", func(int) float64 { return 0 }, true},
	} {
		s, err := Geweke(shape(7, 200, 1, tc.level))
		require.NoError(t, err)
		assert.Equal(t, tc.stationary, s.Stationary, "%s: %+v", tc.name, s)
	}
	// a bistable series: two levels a factor three apart, switching once,
	// late in the kept part
	s, err := Geweke(shape(3, 120, 500, func(i int) float64 {
		if i < 90 {
			return 30000
		}
		return 95000
	}))
	require.NoError(t, err)
	assert.False(t, s.Stationary, "%+v", s)
	assert.InDelta(t, 30000, s.Early, 500)
}

func TestGewekeRefusesWhatItCannotJudge(t *testing.T) {
	_, err := Geweke(make([]float64, MinBatches/2-1))
	assert.ErrorIs(t, err, ErrShortSeries)
	z := make([]float64, 60)
	z[7] = math.NaN()
	_, err = Geweke(z)
	assert.ErrorIs(t, err, ErrInvalidSeries)
	assert.Contains(t, err.Error(), "value 7")
	s, err := Geweke(make([]float64, 60))
	require.NoError(t, err)
	assert.True(t, s.Stationary, "a constant series")
	assert.Zero(t, s.Z)
	step := make([]float64, 60)
	for i := 30; i < 60; i++ {
		step[i] = 1
	}
	s, err = Geweke(step)
	require.NoError(t, err)
	assert.False(t, s.Stationary, "two noiseless levels")
	assert.False(t, errors.Is(err, ErrShortSeries))
}
