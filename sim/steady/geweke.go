package steady

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Geweke's parts of a series: its first tenth against its last half, the
// fractions J. Geweke proposed ("Evaluating the accuracy of sampling-based
// approaches to the calculation of posterior moments", in Bayesian
// Statistics 4, Oxford University Press, 1992, 169–193).
const (
	gewekeFirst = 0.1
	gewekeLast  = 0.5
	// gewekeGroups is how many groups the first part is cut into: the
	// standard errors are batch means of groups of consecutive values.
	gewekeGroups = 5
	// GewekeLevel is the two-sided significance level of Geweke's test.
	GewekeLevel = 0.05
)

// Stationarity is Geweke's verdict on a series.
type Stationarity struct {
	// Early and Late are the means of the series' first tenth and last
	// half.
	Early, Late float64
	// Z is (Early − Late) over the standard error of that difference.
	Z float64
	// Critical is the two-sided GewekeLevel quantile of Student's t with
	// DF degrees of freedom: |Z| above it rejects a constant level.
	Critical float64
	// DF is the degrees of freedom of the pooled variance of the groups.
	DF int
	// Stationary reports |Z| ≤ Critical: the series' early and late levels
	// agree within their noise.
	Stationary bool
}

// Geweke compares the mean of the first tenth of z with that of its last
// half (Geweke 1992). Each part is cut into groups of g consecutive values,
// g = max(1, len(first)/5), and the variance of a group's mean is pooled
// over both parts around each part's own mean (so that a shift of level
// between the parts does not inflate it): a batch-means estimate of the
// series' variance at lag zero in place of Geweke's spectral estimate, which
// holds for correlated values once a group spans their correlation. The
// standard error of each part's mean is that variance over its number of
// groups, and Z is compared with Student's t of the pooled degrees of
// freedom at GewekeLevel. A series is judged after MSER's truncation: its
// kept part, whose level must not move.
//
// It wraps ErrShortSeries for fewer than MinBatches / 2 values (the least
// MSER keeps of a steady series) and ErrInvalidSeries for a NaN or infinite
// value. A constant series is stationary (Z = 0).
func Geweke(z []float64) (Stationarity, error) {
	n := len(z)
	if n < MinBatches/2 {
		return Stationarity{}, fmt.Errorf("steady: %d values, want at least %d for Geweke's test: %w", n, MinBatches/2, ErrShortSeries)
	}
	for i, v := range z {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return Stationarity{}, fmt.Errorf("steady: value %d is %v, want a finite number: %w", i, v, ErrInvalidSeries)
		}
	}
	nA := int(float64(n) * gewekeFirst)
	nB := int(float64(n) * gewekeLast)
	g := max(1, nA/gewekeGroups)
	a, _ := BatchMeans(z[:nA], g)
	b, _ := BatchMeans(z[n-nB:], g)
	meanA, meanB := stat.Mean(a, nil), stat.Mean(b, nil)
	var ss float64
	for _, v := range a {
		ss += (v - meanA) * (v - meanA)
	}
	for _, v := range b {
		ss += (v - meanB) * (v - meanB)
	}
	df := len(a) + len(b) - 2
	pooled := ss / float64(df)
	se := math.Sqrt(pooled/float64(len(a)) + pooled/float64(len(b)))
	crit := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(df)}.Quantile(1 - GewekeLevel/2)
	var zs float64
	switch {
	case se > 0:
		zs = (meanA - meanB) / se
	case meanA != meanB: // no noise, different levels
		zs = math.Inf(1)
	}
	return Stationarity{Early: meanA, Late: meanB, Z: zs, Critical: crit, DF: df, Stationary: math.Abs(zs) <= crit}, nil
}
