package usl

import (
	"context"
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/optimize"
)

// ErrFit is returned by Fit when the optimiser finds no finite fit.
var ErrFit = errors.New("usl: fit failed")

// MinConcurrencies is the fewest distinct concurrencies Fit fits: one more
// than the model's three parameters, so that the fit is not an exact
// interpolation of whatever the points are.
const MinConcurrencies = 4

// Fit fits σ, κ and λ to throughput x measured at concurrency n (x[i] at
// n[i]), as Points.Fit; it refuses slices of different lengths and each
// measurement Points.Add refuses, naming its position (1-based), with an
// error matching ErrInvalidData.
func Fit(ctx context.Context, n, x []float64) (Model, error) {
	if len(n) != len(x) {
		return Model{}, dataError(fmt.Sprintf("%d concurrencies but %d throughputs: want one throughput a concurrency", len(n), len(x)))
	}
	var p Points
	for i := range n {
		if err := p.Add(n[i], x[i]); err != nil {
			return Model{}, fmt.Errorf("point %d: %w", i+1, err)
		}
	}
	return p.Fit(ctx)
}

// Fit fits σ, κ and λ to the points by least squares on the throughput, with
// gonum's Nelder-Mead over (σ, κ, λ) kept non-negative, started from λ = the
// largest X/N measured, from three starting points each polished once. It
// refuses, with an error matching ErrInvalidData that says why, points that
// cannot determine the model: fewer than MinConcurrencies distinct
// concurrencies, or one throughput in every measurement (flat data have no
// curve: σ = 1 fits them, for any κ). Measurements repeated at one
// concurrency are fine, and combine into their mean (see Points). A canceled
// ctx stops the optimiser at its next iteration, and Fit returns ctx.Err().
func (p *Points) Fit(ctx context.Context) (Model, error) {
	if len(p.n) < MinConcurrencies {
		return Model{}, dataError(fmt.Sprintf("want throughput at ≥ %d distinct concurrencies (one more than the model's 3 parameters), got %d",
			MinConcurrencies, len(p.n)))
	}
	if p.flat {
		return Model{}, dataError(fmt.Sprintf("throughput is %v at every concurrency: flat data have no curve to fit", p.first))
	}
	lambda0 := p.lambda0
	means := make([]float64, len(p.n))
	for i := range means {
		means[i] = p.mean(i)
	}
	// Parameters are optimised in a scaled space so that all three have a
	// similar magnitude: q = (σ, κ×1e3, λ/λ0).
	model := func(q []float64) Model {
		return Model{Sigma: math.Abs(q[0]), Kappa: math.Abs(q[1]) / 1e3, Lambda: math.Abs(q[2]) * lambda0}
	}
	sse := func(q []float64) float64 {
		m := model(q)
		s := 0.0
		for i, n := range p.n {
			d := (m.Throughput(n) - means[i]) / lambda0
			s += p.count[i] * d * d
		}
		return s
	}
	minimize := func(start []float64, absolute float64) (*optimize.Result, error) {
		return optimize.Minimize(optimize.Problem{Func: sse}, start,
			&optimize.Settings{Converger: &ctxConverge{ctx: ctx, Converger: &optimize.FunctionConverge{Absolute: absolute, Iterations: 200}},
				MajorIterations: 20000},
			&optimize.NelderMead{})
	}
	best := Model{}
	bestF := math.Inf(1)
	for _, start := range [][]float64{{0.01, 0.01, 1}, {0.1, 0.1, 1}, {0.001, 1, 0.9}} {
		res, err := minimize(start, 1e-14)
		if err := ctx.Err(); err != nil {
			return Model{}, err
		}
		if err != nil && res == nil {
			continue
		}
		// polish from the best point
		res2, err2 := minimize(res.X, 1e-16)
		if err := ctx.Err(); err != nil {
			return Model{}, err
		}
		if err2 == nil || res2 != nil {
			res = res2
		}
		if res.F < bestF {
			bestF, best = res.F, model(res.X)
		}
	}
	if math.IsInf(bestF, 1) || math.IsNaN(bestF) {
		return Model{}, ErrFit
	}
	return best, nil
}

// ctxConverge is a Converger that stops the optimiser, as a failure, once
// ctx is done, and otherwise asks the Converger it holds.
type ctxConverge struct {
	ctx context.Context
	optimize.Converger
}

// Converged returns optimize.Failure once ctx is done.
func (c *ctxConverge) Converged(loc *optimize.Location) optimize.Status {
	if c.ctx.Err() != nil {
		return optimize.Failure
	}
	return c.Converger.Converged(loc)
}
