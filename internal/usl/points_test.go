package usl

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// retrograde is a curve with a peak at 30 threads.
var retrograde = Model{Sigma: 0.1, Kappa: 0.001, Lambda: 5000}

// Measurements repeated at a concurrency combine into one point each: a
// million rows at eight thread counts hold eight points, and fit as those
// eight do. fit scanned every row in every iteration of six Nelder-Mead
// passes: 1.4 million rows took minutes.
func TestPointsCombineMeasurementsAtOneConcurrency(t *testing.T) {
	threads := []float64{1, 2, 4, 8, 16, 32, 64, 128}
	var once, many Points
	for _, n := range threads {
		require.NoError(t, once.Add(n, retrograde.Throughput(n)))
	}
	for r := range 1_000_000 / len(threads) {
		for _, n := range threads {
			// ±1% about the curve, the mean exactly on it
			x := retrograde.Throughput(n) * (1 + 0.01*float64(r%2*2-1))
			require.NoError(t, many.Add(n, x))
		}
	}
	assert.Equal(t, 1_000_000, many.Len())
	assert.Equal(t, len(threads), many.Concurrencies())
	lo, hi := many.Range()
	assert.Equal(t, [2]float64{1, 128}, [2]float64{lo, hi})

	a, err := once.Fit(context.Background())
	require.NoError(t, err)
	b, err := many.Fit(context.Background())
	require.NoError(t, err)
	assert.InDelta(t, a.Sigma, b.Sigma, 1e-4)
	assert.InDelta(t, a.Kappa, b.Kappa, 1e-6)
	assert.InEpsilon(t, a.Lambda, b.Lambda, 1e-3)
	assert.InDelta(t, 30, b.Peak(), 0.5)
}

// A fit of points at one concurrency each is the fit of the slices given
// to Fit, whatever their order, as run's peak column reads it.
func TestFitOfSlicesIsTheFitOfThePoints(t *testing.T) {
	n := []float64{64, 1, 16, 2, 8, 4, 32}
	x := make([]float64, len(n))
	var p Points
	for i := range n {
		x[i] = retrograde.Throughput(n[i])
		require.NoError(t, p.Add(n[i], x[i]))
	}
	a, err := Fit(context.Background(), n, x)
	require.NoError(t, err)
	b, err := p.Fit(context.Background())
	require.NoError(t, err)
	assert.Equal(t, a, b)
}

// A canceled context stops the fit: fit ignored Ctrl-C for minutes.
func TestFitStopsWhenTheContextIsDone(t *testing.T) {
	var p Points
	for n := 1; n <= 100_000; n++ { // every row its own concurrency
		require.NoError(t, p.Add(float64(n), retrograde.Throughput(float64(n))))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := p.Fit(ctx)
	assert.ErrorIs(t, err, context.Canceled)
}

// A refusal says what the data lack and nothing else: fit printed
// "...got 2: invalid config".
func TestRefusalsSayWhatIsWrongAndMatchErrInvalidData(t *testing.T) {
	var p Points
	require.NoError(t, p.Add(1, 10))
	require.NoError(t, p.Add(2, 20))
	_, err := p.Fit(context.Background())
	require.ErrorIs(t, err, ErrInvalidData)
	assert.EqualError(t, err, "want throughput at ≥ 4 distinct concurrencies (one more than the model's 3 parameters), got 2")

	err = p.Add(0, 5)
	require.ErrorIs(t, err, ErrInvalidData)
	assert.EqualError(t, err, "N = 0, X = 5: want a finite concurrency N ≥ 1 and throughput X > 0")
	assert.Equal(t, 2, p.Len(), "a refused measurement is not added")

	_, err = Fit(context.Background(), []float64{1, 2, 3, 4}, []float64{1, 2, -3, 4})
	require.ErrorIs(t, err, ErrInvalidData)
	assert.EqualError(t, err, "point 3: N = 3, X = -3: want a finite concurrency N ≥ 1 and throughput X > 0")
	assert.False(t, errors.Is(ErrFit, ErrInvalidData))
}

// The fit's cost grows with the distinct concurrencies, not the rows:
// rows=1000 and rows=1000000 at eight concurrencies run alike.
func BenchmarkFit(b *testing.B) {
	threads := []float64{1, 2, 4, 8, 16, 32, 64, 128}
	for _, rows := range []int{1000, 1_000_000} {
		var p Points
		for r := range rows {
			n := threads[r%len(threads)]
			_ = p.Add(n, retrograde.Throughput(n)*(1+0.01*float64(r%3-1)))
		}
		b.Run(fmt.Sprintf("rows=%d", rows), func(b *testing.B) {
			for b.Loop() {
				if _, err := p.Fit(context.Background()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
