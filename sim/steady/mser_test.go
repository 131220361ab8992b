package steady

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// noise returns n draws of AR(1) noise of coefficient phi and innovation
// sd sigma from a seeded source: phi 0 is white noise.
func noise(seed uint64, n int, phi, sigma float64) []float64 {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	out := make([]float64, n)
	x := 0.0
	for i := range out {
		x = phi*x + sigma*r.NormFloat64()
		out[i] = x
	}
	return out
}

// shape returns level(i) + noise for i = 0..n-1.
func shape(seed uint64, n int, sigma float64, level func(i int) float64) []float64 {
	z := noise(seed, n, 0, sigma)
	for i := range z {
		z[i] += level(i)
	}
	return z
}

func TestMSERFindsTheEndOfKnownTransients(t *testing.T) {
	const m = 200
	for _, tc := range []struct {
		name   string
		series []float64
		// the truncation must fall in [lo, hi]
		lo, hi int
	}{
		{
			// never before the step (50 noise sds), and a few batches after
			// it at most, where dropping steady batches happened to lower
			// the variance more than it cost
			name: "a step from 50 to 100 at batch 40 is cut at or just after the step",
			series: shape(1, m, 1, func(i int) float64 {
				if i < 40 {
					return 50
				}
				return 100
			}),
			lo: 40, hi: 55,
		},
		{
			name: "a linear ramp over the first 60 batches, then flat, is cut near its end",
			series: shape(2, m, 1, func(i int) float64 {
				return 100 * min(float64(i), 60) / 60
			}),
			lo: 50, hi: 64,
		},
		{
			// the bias left at batch d is 100·e^(−d/15): below the noise's
			// 1 by d ≈ 70, and not worth dropping beyond
			name: "an exponential approach of time constant 15 batches is cut after a few time constants",
			series: shape(3, m, 1, func(i int) float64 {
				return 100 * (1 - math.Exp(-float64(i)/15))
			}),
			lo: 40, hi: 100,
		},
		{
			name:   "white noise around a level needs no truncation",
			series: shape(4, m, 1, func(int) float64 { return 100 }),
			lo:     0, hi: 30,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := MSER(tc.series)
			require.NoError(t, err)
			assert.True(t, tr.Steady, "truncation %d, bound %d", tr.Point, tr.Bound)
			assert.GreaterOrEqual(t, tr.Point, tc.lo)
			assert.LessOrEqual(t, tr.Point, tc.hi)
			assert.Equal(t, m/2, tr.Bound)
			assert.Equal(t, m, tr.Batches)
			assert.Equal(t, 1, tr.Batch)
			// the kept part's mean is its own: recompute it
			var s float64
			for _, v := range tc.series[tr.Point:] {
				s += v
			}
			assert.InDelta(t, s/float64(m-tr.Point), tr.Mean, 1e-9)
		})
	}
}

func TestMSERSaysNotSteadyForSeriesThatNeverSettle(t *testing.T) {
	const m = 200
	for _, tc := range []struct {
		name   string
		series []float64
	}{
		{"a ramp to the end", shape(5, m, 1, func(i int) float64 { return float64(i) })},
		{"a transient longer than half the series", shape(6, m, 1, func(i int) float64 {
			return 100 * min(float64(i), 150) / 150
		})},
		{"a level that falls again in the last tenth", shape(7, m, 1, func(i int) float64 {
			if i >= 180 {
				return 20
			}
			return 100
		})},
		{"an exponential approach too slow for the series", shape(8, m, 1, func(i int) float64 {
			return 100 * (1 - math.Exp(-float64(i)/200))
		})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := MSER(tc.series)
			require.NoError(t, err)
			assert.False(t, tr.Steady, "truncation %d, bound %d", tr.Point, tr.Bound)
			assert.Greater(t, tr.Point, tr.Bound)
			assert.LessOrEqual(t, tr.Point, m-MinKept(m), "never truncates into the kept tail")
		})
	}
}

// TestMSERRarelyCallsSteadyNoiseUnsettled holds the rate at which a steady
// series of the shortest length judged reads as not settled: MinBatches and
// MinKept are chosen for it.
func TestMSERRarelyCallsSteadyNoiseUnsettled(t *testing.T) {
	const runs = 2000
	for _, tc := range []struct {
		name    string
		phi     float64
		maxRate float64
	}{
		{"white noise", 0, 0.005},
		{"AR(1) noise of coefficient 0.5", 0.5, 0.015},
	} {
		t.Run(tc.name, func(t *testing.T) {
			unsettled := 0
			for seed := range uint64(runs) {
				z := noise(seed, MinBatches, tc.phi, 1)
				tr, err := MSER(z)
				require.NoError(t, err)
				if !tr.Steady {
					unsettled++
				}
			}
			assert.LessOrEqual(t, float64(unsettled)/runs, tc.maxRate, "%d of %d steady series read as not settled", unsettled, runs)
		})
	}
}

func TestMSERKeepsTheSmallestTruncationOnATie(t *testing.T) {
	z := make([]float64, MinBatches)
	for i := range z {
		z[i] = 7
	}
	tr, err := MSER(z)
	require.NoError(t, err)
	assert.Equal(t, Truncation{Point: 0, Steady: true, Bound: MinBatches / 2, Batches: MinBatches, Batch: 1, Mean: 7, StdErr: 0}, tr)
}

// TestMSERIsExactOnLargeLevels holds MSER to its definition, computed the
// slow way, on a series far from zero, where a sum of squares less the
// square of the sum loses every digit of the variance.
func TestMSERIsExactOnLargeLevels(t *testing.T) {
	z := shape(9, 150, 0.01, func(i int) float64 {
		if i < 30 {
			return 1e9 - 1
		}
		return 1e9
	})
	tr, err := MSER(z)
	require.NoError(t, err)
	best, bestD := math.Inf(1), -1
	for d := 0; d <= len(z)-MinKept(len(z)); d++ {
		var mean float64
		for _, v := range z[d:] {
			mean += v
		}
		mean /= float64(len(z) - d)
		var ss float64
		for _, v := range z[d:] {
			ss += (v - mean) * (v - mean)
		}
		k := float64(len(z) - d)
		if s := ss / (k * k); s < best {
			best, bestD = s, d
		}
	}
	assert.GreaterOrEqual(t, bestD, 30, "the slow way cuts at or after the step")
	assert.LessOrEqual(t, bestD, 45)
	assert.Equal(t, bestD, tr.Point)
	assert.InEpsilon(t, math.Sqrt(best), tr.StdErr, 1e-6)
}

func TestMSER5CountsInObservations(t *testing.T) {
	// 600 observations: flat after the first 100 (20 batches of 5)
	obs := shape(10, 600, 1, func(i int) float64 {
		if i < 100 {
			return 0
		}
		return 50
	})
	tr, err := MSER5(obs)
	require.NoError(t, err)
	assert.True(t, tr.Steady)
	assert.Equal(t, 100, tr.Point)
	assert.Equal(t, 5, tr.Batch)
	assert.Equal(t, 120, tr.Batches)
	assert.Equal(t, 300, tr.Bound)
}

func TestMSERBatchLeavesAPartialLastBatchOut(t *testing.T) {
	z, err := BatchMeans([]float64{1, 2, 3, 4, 5, 6, 7}, 3)
	require.NoError(t, err)
	assert.Equal(t, []float64{2, 5}, z)
}

func TestMSERRefusesWhatItCannotJudge(t *testing.T) {
	short := make([]float64, MinBatches-1)
	bad := make([]float64, MinBatches)
	bad[17] = math.NaN()
	inf := make([]float64, MinBatches)
	inf[3] = math.Inf(-1)
	for _, tc := range []struct {
		name string
		run  func() (Truncation, error)
		want error
		msg  string
	}{
		{"fewer batch means than MinBatches", func() (Truncation, error) { return MSER(short) }, ErrShortSeries, "99 batch means, want at least 100"},
		{"too few observations for MSER-5", func() (Truncation, error) { return MSER5(make([]float64, 499)) }, ErrShortSeries, "499 observations make 99 batches of 5, want at least 100 batches (500 observations)"},
		{"a NaN", func() (Truncation, error) { return MSER(bad) }, ErrInvalidSeries, "batch mean 17 is NaN"},
		{"an infinity", func() (Truncation, error) { return MSER(inf) }, ErrInvalidSeries, "batch mean 3 is -Inf"},
		{"a batch size of 0", func() (Truncation, error) { return MSERBatch(bad, 0) }, ErrInvalidSeries, "batch size 0, want at least 1"},
		{"a NaN inside a batch", func() (Truncation, error) { return MSER5(append(make([]float64, 499), math.NaN())) }, ErrInvalidSeries, "batch mean 99 is NaN"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.run()
			require.Error(t, err)
			assert.True(t, errors.Is(err, tc.want), "%v", err)
			assert.Contains(t, err.Error(), tc.msg)
		})
	}
}
