package sim

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/optimize"
)

// USL is a fitted Universal Scalability Law (Gunther):
//
//	X(N) = λN / (1 + σ(N−1) + κN(N−1))
//
// where N is the concurrency, X the throughput, λ the throughput of one unit of
// concurrency, σ the contention (serial fraction) and κ the coherency (crosstalk)
// penalty.
type USL struct {
	Sigma, Kappa, Lambda float64
}

// Throughput returns X(n).
func (u USL) Throughput(n float64) float64 {
	return u.Lambda * n / (1 + u.Sigma*(n-1) + u.Kappa*n*(n-1))
}

// Peak returns the concurrency of maximum throughput, √((1−σ)/κ), or +Inf when κ
// is 0 (no retrograde region) or σ ≥ 1 (no gain from concurrency at all). It
// is the model's, wherever it lies: PeakNear says whether the data can show it.
func (u USL) Peak() float64 {
	if u.Kappa <= 0 || u.Sigma >= 1 {
		return math.Inf(1)
	}
	return math.Sqrt((1 - u.Sigma) / u.Kappa)
}

// PeakReach is how far beyond the measured concurrencies PeakNear reports a
// peak: up to PeakReach times the largest measured N (and down to the
// smallest divided by it). Further out the peak is an extrapolation of a
// curvature the data barely show (three points at 1, 2, 4 threads put it at
// half a billion), not a prediction.
const PeakReach = 2

// PeakNear returns Peak and true when the peak lies within the measured
// concurrencies minN..maxN widened by PeakReach (minN/PeakReach ..
// maxN×PeakReach); else the peak and false, meaning the data do not locate it.
func (u USL) PeakNear(minN, maxN float64) (float64, bool) {
	p := u.Peak()
	return p, !math.IsInf(p, 0) && !math.IsNaN(p) && p >= minN/PeakReach && p <= maxN*PeakReach
}

// String returns "σ=… κ=… λ=… peak N=…".
func (u USL) String() string {
	return fmt.Sprintf("σ=%.5g κ=%.5g λ=%.5g peak N=%.1f", u.Sigma, u.Kappa, u.Lambda, u.Peak())
}

// ErrFit is returned by FitUSL when the data cannot be fitted.
var ErrFit = errors.New("sim: USL fit failed")

// MinUSLConcurrencies is the fewest distinct concurrencies FitUSL fits: one
// more than the model's three parameters, so that the fit is not an exact
// interpolation of whatever the points are.
const MinUSLConcurrencies = 4

// FitUSL fits σ, κ and λ to throughput-versus-concurrency points by least
// squares on the throughput, with gonum's Nelder-Mead over (σ, κ, λ) kept
// non-negative, started from λ = the best X(N)/N. It refuses, with an error
// wrapping ErrInvalidConfig that says why, data that cannot determine the
// model: slices of different lengths, a point with N or X not finite, N < 1 or
// X ≤ 0, fewer than MinUSLConcurrencies distinct N (repeated points at one N
// are fine, and averaged by the least squares), or one throughput at every N
// (flat data have no curve: σ = 1 fits them, for any κ).
func FitUSL(n, x []float64) (USL, error) {
	if len(n) != len(x) {
		return USL{}, fmt.Errorf("sim: USL fit: %d concurrencies but %d throughputs: %w", len(n), len(x), ErrInvalidConfig)
	}
	lambda0 := 0.0
	distinct := map[float64]bool{}
	flat := true
	for i := range n {
		if math.IsNaN(n[i]) || math.IsInf(n[i], 0) || n[i] < 1 || math.IsNaN(x[i]) || math.IsInf(x[i], 0) || x[i] <= 0 {
			return USL{}, fmt.Errorf("sim: USL point %d (N=%v, X=%v), want finite N ≥ 1 and X > 0: %w", i+1, n[i], x[i], ErrInvalidConfig)
		}
		lambda0 = max(lambda0, x[i]/n[i])
		distinct[n[i]] = true
		flat = flat && x[i] == x[0]
	}
	if len(distinct) < MinUSLConcurrencies {
		return USL{}, fmt.Errorf("sim: USL fit needs throughput at ≥ %d distinct concurrencies (one more than its 3 parameters), got %d: %w",
			MinUSLConcurrencies, len(distinct), ErrInvalidConfig)
	}
	if flat {
		return USL{}, fmt.Errorf("sim: USL fit: throughput is %v at every concurrency, so there is no curve to fit: %w", x[0], ErrInvalidConfig)
	}
	// Parameters are optimised in a scaled space so that all three have a
	// similar magnitude: p = (σ, κ×1e3, λ/λ0).
	model := func(p []float64) USL {
		return USL{Sigma: math.Abs(p[0]), Kappa: math.Abs(p[1]) / 1e3, Lambda: math.Abs(p[2]) * lambda0}
	}
	sse := func(p []float64) float64 {
		u := model(p)
		s := 0.0
		for i := range n {
			d := (u.Throughput(n[i]) - x[i]) / lambda0
			s += d * d
		}
		return s
	}
	best := USL{}
	bestF := math.Inf(1)
	for _, start := range [][]float64{{0.01, 0.01, 1}, {0.1, 0.1, 1}, {0.001, 1, 0.9}} {
		res, err := optimize.Minimize(optimize.Problem{Func: sse}, start,
			&optimize.Settings{Converger: &optimize.FunctionConverge{Absolute: 1e-14, Iterations: 200}, MajorIterations: 20000},
			&optimize.NelderMead{})
		if err != nil && res == nil {
			continue
		}
		// polish from the best point
		res2, err2 := optimize.Minimize(optimize.Problem{Func: sse}, res.X,
			&optimize.Settings{Converger: &optimize.FunctionConverge{Absolute: 1e-16, Iterations: 200}, MajorIterations: 20000},
			&optimize.NelderMead{})
		if err2 == nil || res2 != nil {
			res = res2
		}
		if res.F < bestF {
			bestF, best = res.F, model(res.X)
		}
	}
	if math.IsInf(bestF, 1) || math.IsNaN(bestF) {
		return USL{}, ErrFit
	}
	return best, nil
}
