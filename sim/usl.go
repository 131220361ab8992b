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
// is 0 (no retrograde region).
func (u USL) Peak() float64 {
	if u.Kappa <= 0 {
		return math.Inf(1)
	}
	return math.Sqrt((1 - u.Sigma) / u.Kappa)
}

// String returns "σ=… κ=… λ=… peak N=…".
func (u USL) String() string {
	return fmt.Sprintf("σ=%.5g κ=%.5g λ=%.5g peak N=%.1f", u.Sigma, u.Kappa, u.Lambda, u.Peak())
}

// ErrFit is returned by FitUSL when the data cannot be fitted.
var ErrFit = errors.New("sim: USL fit failed")

// FitUSL fits σ, κ and λ to throughput-versus-concurrency points by least
// squares on the throughput, with gonum's Nelder-Mead over (σ, κ, λ) kept
// non-negative, started from λ = the best X(N)/N. It needs at least 3 points with
// N ≥ 1 and X > 0, else an error wrapping ErrInvalidConfig.
func FitUSL(n, x []float64) (USL, error) {
	if len(n) != len(x) || len(n) < 3 {
		return USL{}, fmt.Errorf("sim: USL fit needs ≥ 3 (N, X) points, got %d and %d: %w", len(n), len(x), ErrInvalidConfig)
	}
	lambda0 := 0.0
	for i := range n {
		if n[i] < 1 || x[i] <= 0 || math.IsNaN(x[i]) || math.IsInf(x[i], 0) {
			return USL{}, fmt.Errorf("sim: USL point %d (N=%v, X=%v), want N ≥ 1 and X > 0: %w", i, n[i], x[i], ErrInvalidConfig)
		}
		lambda0 = max(lambda0, x[i]/n[i])
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
	if math.IsInf(bestF, 1) {
		return USL{}, ErrFit
	}
	return best, nil
}
