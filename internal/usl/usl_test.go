package usl

import (
	"context"
	"encoding/csv"
	"math"
	"os"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func readPoints(t *testing.T, path string) (n, x []float64) {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	r := csv.NewReader(f)
	r.Comment = '#'
	recs, err := r.ReadAll()
	require.NoError(t, err)
	for _, rec := range recs {
		a, err := strconv.ParseFloat(rec[0], 64)
		require.NoError(t, err)
		b, err := strconv.ParseFloat(rec[1], 64)
		require.NoError(t, err)
		n, x = append(n, a), append(x, b)
	}
	return n, x
}

// TestFitCodahale fits the 32-point dataset of codahale/usl's model_test.go
// (kept in testdata with its source) and compares with that library's results.
func TestFitCodahale(t *testing.T) {
	n, x := readPoints(t, "testdata/codahale.csv")
	require.Len(t, n, 32)
	u, err := Fit(context.Background(), n, x)
	require.NoError(t, err)
	assert.InEpsilon(t, 0.02671591, u.Sigma, 0.01, "σ")
	assert.InEpsilon(t, 7.690945e-4, u.Kappa, 0.01, "κ")
	assert.InEpsilon(t, 995.6486, u.Lambda, 0.01, "λ")
	assert.InDelta(t, 35.0, u.Peak(), 1.0, "peak concurrency")
}

func TestFitRecoversModel(t *testing.T) {
	tests := []struct {
		name string
		want Model
	}{
		{"contention only", Model{Sigma: 0.05, Kappa: 0, Lambda: 100}},
		{"retrograde", Model{Sigma: 0.1, Kappa: 0.001, Lambda: 5000}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var n, x []float64
			for i := 1; i <= 64; i *= 2 {
				n = append(n, float64(i))
				x = append(x, tt.want.Throughput(float64(i)))
			}
			u, err := Fit(context.Background(), n, x)
			require.NoError(t, err)
			assert.InDelta(t, tt.want.Sigma, u.Sigma, 1e-3)
			assert.InDelta(t, tt.want.Kappa, u.Kappa, 1e-4)
			assert.InEpsilon(t, tt.want.Lambda, u.Lambda, 1e-3)
		})
	}
}

// A peak is reported only near the measured range: nearly linear data put the
// model's peak far beyond it (run --threads 1,2,4 printed "usl peak
// 548637818.9").
func TestPeakNear(t *testing.T) {
	n := []float64{1, 2, 4, 8}
	x := []float64{100, 199.9, 399.5, 798}
	u, err := Fit(context.Background(), n, x)
	require.NoError(t, err)
	p, ok := u.PeakNear(1, 8)
	assert.False(t, ok, "peak %v from nearly linear data", p)
	assert.Greater(t, p, 16.0)

	codahale := Model{Sigma: 0.02671591, Kappa: 7.690945e-4, Lambda: 995.6486} // peak ≈ 35.6
	for _, tt := range []struct {
		minN, maxN float64
		ok         bool
	}{{1, 32, true}, {1, 17.8, true}, {1, 17, false}, {71, 128, true}, {72, 128, false}} {
		_, ok := codahale.PeakNear(tt.minN, tt.maxN)
		assert.Equal(t, tt.ok, ok, "measured %v..%v", tt.minN, tt.maxN)
	}
	_, ok = Model{Sigma: 1, Kappa: 0.01, Lambda: 1}.PeakNear(1, 100)
	assert.False(t, ok, "σ = 1 has no peak")
	_, ok = Model{Sigma: 0.1, Lambda: 1}.PeakNear(1, 100)
	assert.False(t, ok, "κ = 0 has no peak")
}

func TestFitRejectsBadInput(t *testing.T) {
	tests := []struct {
		name string
		n, x []float64
	}{
		{"too few points", []float64{1, 2}, []float64{1, 2}},
		{"lengths differ", []float64{1, 2, 3}, []float64{1, 2}},
		{"zero throughput", []float64{1, 2, 3}, []float64{1, 0, 3}},
		{"concurrency below one", []float64{0, 2, 3, 4}, []float64{1, 2, 3, 4}},
		// these used to give σ, κ and a peak
		{"three identical points", []float64{8, 8, 8}, []float64{100, 100, 100}},
		{"two distinct concurrencies", []float64{1, 1, 1, 4, 4, 4}, []float64{10, 11, 10, 30, 31, 29}},
		{"three distinct concurrencies, an exact interpolation", []float64{1, 2, 4}, []float64{100, 190, 340}},
		{"NaN concurrency", []float64{1, math.NaN(), 4, 8}, []float64{1, 2, 3, 4}},
		{"infinite concurrency", []float64{1, 2, math.Inf(1), 8}, []float64{1, 2, 3, 4}},
		{"NaN throughput", []float64{1, 2, 4, 8}, []float64{1, math.NaN(), 3, 4}},
		{"infinite throughput", []float64{1, 2, 4, 8}, []float64{1, 2, math.Inf(1), 4}},
		{"flat throughput", []float64{1, 2, 4, 8, 16}, []float64{500, 500, 500, 500, 500}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Fit(context.Background(), tt.n, tt.x)
			assert.ErrorIs(t, err, ErrInvalidData)
		})
	}
}
