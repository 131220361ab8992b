package calibrate

import (
	"fmt"
	"sort"
	"time"

	"gonum.org/v1/gonum/stat"
)

// Measurement is one calibrated cost: the median of Repeats measurements, each the
// mean cost of one operation over Options.Rounds operations, and its spread.
type Measurement struct {
	Median  time.Duration // the figure to use
	Q1, Q3  time.Duration // first and third quartiles of the measurements
	Min     time.Duration // fastest measurement
	Max     time.Duration // slowest measurement
	Repeats int           // measurements behind the figure
}

// String formats m as "1.234µs (IQR 1.2µs..1.3µs, n=15)".
func (m Measurement) String() string {
	return fmt.Sprintf("%v (IQR %v..%v, n=%d)", m.Median, m.Q1, m.Q3, m.Repeats)
}

// summarize turns per-operation costs in nanoseconds into a Measurement: the
// same quantiles as summarizeShare, rounded to whole nanoseconds.
func summarize(ns []float64) Measurement {
	s := summarizeShare(ns)
	d := func(v float64) time.Duration { return time.Duration(v + 0.5) }
	return Measurement{Median: d(s.Median), Q1: d(s.Q1), Q3: d(s.Q3), Min: d(s.Min), Max: d(s.Max), Repeats: s.Repeats}
}

// Share is a calibrated proportion in 0..1 (such as Costs.WakePreempt), summarized
// as a Measurement is: the median of Repeats measurements and their spread.
type Share struct {
	Median  float64 // the figure to use
	Q1, Q3  float64 // first and third quartiles of the measurements
	Min     float64 // lowest measurement
	Max     float64 // highest measurement
	Repeats int     // measurements behind the figure
}

// String formats s as "0.72 (IQR 0.70..0.75, n=15)".
func (s Share) String() string {
	return fmt.Sprintf("%.2f (IQR %.2f..%.2f, n=%d)", s.Median, s.Q1, s.Q3, s.Repeats)
}

// summarizeShare turns measured shares into a Share. The median is a measured
// value, the middle one (the lower middle one of an even count): LinInterp at
// 0.5 interpolates below it (the mean of the 2nd and 3rd of 5). The quartiles
// interpolate.
func summarizeShare(v []float64) Share {
	x := append([]float64(nil), v...)
	sort.Float64s(x)
	q := func(p float64) float64 { return stat.Quantile(p, stat.LinInterp, x, nil) }
	return Share{Median: stat.Quantile(0.5, stat.Empirical, x, nil), Q1: q(0.25), Q3: q(0.75),
		Min: x[0], Max: x[len(x)-1], Repeats: len(x)}
}
