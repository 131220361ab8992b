package steady

import (
	"errors"
	"fmt"
	"math"
)

// ErrShortSeries is wrapped by the error for a series too short to judge:
// fewer than MinBatches batch means.
var ErrShortSeries = errors.New("series too short for MSER")

// ErrInvalidSeries is wrapped by the error for a series MSER cannot be run
// on: a value that is NaN or infinite, or a batch size below 1.
var ErrInvalidSeries = errors.New("invalid series")

// MinBatches is the fewest batch means MSER judges (MSER-5: 500
// observations). MSER's minimizer is itself noisy: on a short steady series
// it lands in the second half often enough that a steady series reads as
// not settled (the decision record docs/decisions/mser-steady-state.md has
// the rates by length); from a hundred batch means on, that is rare for
// white noise and for noise as correlated as batch means of a closed
// system's completions.
const MinBatches = 100

// DefaultBatch is the batch size of MSER-5: five observations a batch.
const DefaultBatch = 5

// MinKept returns the fewest batches MSER keeps of a series of m batch
// means: max(5, m/10). MSER(d) of a short tail is the variance of a handful
// of batches over their count squared, which by chance is often far smaller
// than that of the whole steady series: left free, the minimizer falls on
// the last few batches and a steady series reads as not settled. Keeping at
// least a tenth of the series, and never fewer than five batches, removes
// that artefact, while a series that still moves in its last tenth keeps
// its minimizer past the half (m − MinKept(m) > m/2).
func MinKept(m int) int { return max(5, m/10) }

// Truncation is MSER's verdict on a series.
type Truncation struct {
	// Point is where the steady part starts, in the input's unit: the index
	// of the first kept batch for MSER, of the first kept observation for
	// MSERBatch and MSER5 (the first batch's first observation). Everything
	// before it is the transient.
	Point int
	// Steady reports whether Point is at most Bound: the series settled in
	// its first half. When false, the series is still in its transient (or
	// moves again at its end) and no figure should be taken from it; run
	// longer.
	Steady bool
	// Bound is the largest Point that counts as steady: half the batches,
	// rounded down, in the input's unit.
	Bound int
	// Batches is how many batch means were judged, Batch how many
	// observations each holds (1 for MSER). Observations after the last
	// whole batch are not judged.
	Batches, Batch int
	// Mean is the mean of the kept batch means (from Point on).
	Mean float64
	// StdErr is √MSER(Point): the standard error of Mean if the kept batch
	// means were independent. Batch means of a correlated series are less
	// correlated than its observations but not independent; StdErr is then
	// an underestimate.
	StdErr float64
}

// MSER runs the marginal standard error rule over batch means z: it returns
// the truncation d* that minimizes MSER(d) over d = 0..len(z) − MinKept(len(z))
// (the smallest such d on a tie), and whether d* ≤ len(z)/2. A constant
// series is steady from 0. It returns an error wrapping ErrShortSeries for
// fewer than MinBatches means and one wrapping ErrInvalidSeries for a NaN or
// infinite mean, naming its index. Time O(len(z)), memory O(1).
func MSER(z []float64) (Truncation, error) {
	m := len(z)
	if m < MinBatches {
		return Truncation{}, fmt.Errorf("steady: %d batch means, want at least %d: %w", m, MinBatches, ErrShortSeries)
	}
	for i, v := range z {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return Truncation{}, fmt.Errorf("steady: batch mean %d is %v, want a finite number: %w", i, v, ErrInvalidSeries)
		}
	}
	last := m - MinKept(m) // the largest truncation considered
	// Walk the series backwards, adding z[d] to the kept part with
	// Welford's update, so that the sum of squares of every tail is exact
	// to rounding whatever the level of the series (sum-of-squares minus
	// square-of-sum cancels on a series of large, close values).
	var (
		mean, ss float64
		best     = math.Inf(1)
		bestD    int
		bestMean float64
	)
	for d := m - 1; d >= 0; d-- {
		k := float64(m - d)
		delta := z[d] - mean
		mean += delta / k
		ss += delta * (z[d] - mean)
		if d > last {
			continue
		}
		// ≤ keeps the smallest d on a tie: walking backwards, a later
		// (smaller) d of the same value replaces an earlier one.
		if stat := ss / (k * k); stat <= best {
			best, bestD, bestMean = stat, d, mean
		}
	}
	return Truncation{
		Point:   bestD,
		Steady:  bestD <= m/2,
		Bound:   m / 2,
		Batches: m,
		Batch:   1,
		Mean:    bestMean,
		StdErr:  math.Sqrt(max(best, 0)),
	}, nil
}

// MSERBatch runs MSER over the means of consecutive batches of size
// observations of obs (a last, partial batch is left out) and returns the
// truncation in observations: Point and Bound are batch indices times size.
// It wraps ErrInvalidSeries for a size below 1 and ErrShortSeries for fewer
// than MinBatches whole batches.
func MSERBatch(obs []float64, size int) (Truncation, error) {
	z, err := BatchMeans(obs, size)
	if err != nil {
		return Truncation{}, err
	}
	if len(z) < MinBatches {
		return Truncation{}, fmt.Errorf("steady: %d observations make %d batches of %d, want at least %d batches (%d observations): %w",
			len(obs), len(z), size, MinBatches, MinBatches*size, ErrShortSeries)
	}
	t, err := MSER(z)
	if err != nil {
		return Truncation{}, err
	}
	t.Point *= size
	t.Bound *= size
	t.Batch = size
	return t, nil
}

// MSER5 is MSERBatch with batches of DefaultBatch (five) observations: at
// least MinBatches × 5 = 500 observations.
func MSER5(obs []float64) (Truncation, error) { return MSERBatch(obs, DefaultBatch) }

// BatchMeans returns the means of the consecutive batches of size
// observations of obs, leaving out a last, partial batch. A size below 1 is
// an error wrapping ErrInvalidSeries.
func BatchMeans(obs []float64, size int) ([]float64, error) {
	if size < 1 {
		return nil, fmt.Errorf("steady: batch size %d, want at least 1: %w", size, ErrInvalidSeries)
	}
	z := make([]float64, len(obs)/size)
	for b := range z {
		var s float64
		for _, v := range obs[b*size : (b+1)*size] {
			s += v
		}
		z[b] = s / float64(size)
	}
	return z, nil
}
