package usl

import (
	"fmt"
	"math"
)

// Model is the Universal Scalability Law with its three parameters: Sigma (σ,
// contention), Kappa (κ, coherency) and Lambda (λ, the throughput of one unit
// of concurrency, in the throughput's unit).
type Model struct {
	Sigma, Kappa, Lambda float64
}

// Throughput returns X(n).
func (m Model) Throughput(n float64) float64 {
	return m.Lambda * n / (1 + m.Sigma*(n-1) + m.Kappa*n*(n-1))
}

// Peak returns the concurrency of maximum throughput, √((1−σ)/κ), or +Inf when κ
// is 0 (no retrograde region) or σ ≥ 1 (no gain from concurrency at all). It
// is the model's, wherever it lies: PeakNear says whether the data can show it.
func (m Model) Peak() float64 {
	if m.Kappa <= 0 || m.Sigma >= 1 {
		return math.Inf(1)
	}
	return math.Sqrt((1 - m.Sigma) / m.Kappa)
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
func (m Model) PeakNear(minN, maxN float64) (float64, bool) {
	p := m.Peak()
	return p, !math.IsInf(p, 0) && !math.IsNaN(p) && p >= minN/PeakReach && p <= maxN*PeakReach
}

// String returns "σ=… κ=… λ=… peak N=…".
func (m Model) String() string {
	return fmt.Sprintf("σ=%.5g κ=%.5g λ=%.5g peak N=%.1f", m.Sigma, m.Kappa, m.Lambda, m.Peak())
}
