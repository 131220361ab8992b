package calibrate

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"runtime"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/innosim/innosim/aio"
	"github.com/innosim/innosim/internal/aiobench"
	"github.com/innosim/innosim/internal/futex"
)

// The bounds of the check: each predicted ns/op within ±35% of the
// measured one, and the predicted wake-all / targeted ratio within ±25% of the
// measured ratio.
const (
	CaseTolerance  = 0.35
	RatioTolerance = 0.25
)

// ErrNoFutex is returned by Check where futex events are not supported (not
// Linux): BenchmarkAIOWake has no futex mode there.
var ErrNoFutex = errors.New("calibrate: the check needs futex events (Linux)")

// CheckCase is one BenchmarkAIOWake case (futex mode) predicted and measured.
type CheckCase struct {
	Wake     aio.WakePolicy
	Handlers int
	// Predicted and Measured are ns/op; PredictedWakeups and MeasuredWakeups
	// are handler wakeups per op, PredictedFutex and MeasuredFutex the
	// FUTEX_WAIT + FUTEX_WAKE calls on the handlers' events per op. Each
	// measured figure is the median of the case's runs.
	Predicted, Measured               float64
	PredictedWakeups, MeasuredWakeups float64
	PredictedFutex, MeasuredFutex     float64
	// MeasuredMin and MeasuredMax are the fastest and slowest run's ns/op, and
	// Runs the number of runs behind the medians.
	MeasuredMin, MeasuredMax float64
	Runs                     int
}

// Name is the case's sub-benchmark name, "policy=all/handlers=4".
func (c CheckCase) Name() string {
	return fmt.Sprintf("policy=%s/handlers=%d", c.Wake, c.Handlers)
}

// Ratio is Predicted / Measured (NaN if Measured is not positive).
func (c CheckCase) Ratio() float64 { return ratio(c.Predicted, c.Measured) }

// Pass reports whether the prediction is within CaseTolerance of the measurement.
func (c CheckCase) Pass() bool { return within(c.Ratio(), CaseTolerance) }

// Spread is the half-width of the measured runs' range relative to their
// median, (MeasuredMax − MeasuredMin) / 2 / Measured: ±Spread is how far apart
// the machine put the runs of one case (0 with fewer than two runs).
func (c CheckCase) Spread() float64 {
	if c.Runs < 2 || c.Measured <= 0 || c.MeasuredMax < c.MeasuredMin {
		return 0
	}
	return (c.MeasuredMax - c.MeasuredMin) / 2 / c.Measured
}

// Inconclusive reports whether the case misses its bound while its own runs
// spread wider than the bound: the measurement is too noisy to say whether the
// prediction is wrong.
func (c CheckCase) Inconclusive() bool { return !c.Pass() && c.Spread() > CaseTolerance }

// CheckRatio is the wake-all / targeted ns/op ratio at one handler count,
// predicted and measured.
type CheckRatio struct {
	Handlers            int
	Predicted, Measured float64
	// Spread is the measured ratio's relative uncertainty: the sum of its two
	// cases' Spread (a ratio's relative errors add).
	Spread float64
}

// Ratio is Predicted / Measured.
func (r CheckRatio) Ratio() float64 { return ratio(r.Predicted, r.Measured) }

// Pass reports whether the predicted ratio is within RatioTolerance of the
// measured one.
func (r CheckRatio) Pass() bool { return within(r.Ratio(), RatioTolerance) }

// Inconclusive reports whether the ratio misses its bound while its
// measurement spreads wider than the bound.
func (r CheckRatio) Inconclusive() bool { return !r.Pass() && r.Spread > RatioTolerance }

// CheckReport is the outcome of the check: every case, and the wake-all /
// targeted ratio at every handler count that has both.
type CheckReport struct {
	Cases  []CheckCase
	Ratios []CheckRatio
}

// NewCheckReport returns the report of cases, with the ratios computed from
// them (in the order of the cases' handler counts).
func NewCheckReport(cases []CheckCase) CheckReport {
	r := CheckReport{Cases: cases}
	for _, all := range cases {
		if all.Wake != aio.WakeAll {
			continue
		}
		for _, tg := range cases {
			if tg.Wake == aio.WakeTargeted && tg.Handlers == all.Handlers {
				r.Ratios = append(r.Ratios, CheckRatio{Handlers: all.Handlers,
					Predicted: ratio(all.Predicted, tg.Predicted), Measured: ratio(all.Measured, tg.Measured),
					Spread: all.Spread() + tg.Spread()})
			}
		}
	}
	return r
}

// Pass reports whether every case and every ratio is within its bound (false for
// an empty report).
func (r CheckReport) Pass() bool {
	if len(r.Cases) == 0 {
		return false
	}
	for _, c := range r.Cases {
		if !c.Pass() {
			return false
		}
	}
	for _, q := range r.Ratios {
		if !q.Pass() {
			return false
		}
	}
	return true
}

// Inconclusive reports whether the report does not pass only by figures whose
// measurement spreads wider than their bound (CheckCase.Inconclusive,
// CheckRatio.Inconclusive): on a loaded machine, the check cannot tell.
func (r CheckReport) Inconclusive() bool {
	bad, noisy, _ := r.misses()
	return bad > 0 && bad == noisy
}

// misses counts the figures outside their bounds, those of them whose
// measurement spreads wider than the bound, and the widest such spread.
func (r CheckReport) misses() (bad, noisy int, widest float64) {
	for _, c := range r.Cases {
		if !c.Pass() {
			bad++
		}
		if c.Inconclusive() {
			noisy++
			widest = max(widest, c.Spread())
		}
	}
	for _, q := range r.Ratios {
		if !q.Pass() {
			bad++
		}
		if q.Inconclusive() {
			noisy++
			widest = max(widest, q.Spread)
		}
	}
	return bad, noisy, widest
}

// Verdict is the report's last line: "check: PASS"; "check: INCONCLUSIVE
// (…)" when every figure outside its bound was measured with a spread wider
// than the bound; else "check: FAIL (n of m outside the bounds)", which says
// how many of those were too noisy to count.
func (r CheckReport) Verdict() string {
	if r.Pass() {
		return "check: PASS"
	}
	all := len(r.Cases) + len(r.Ratios)
	bad, noisy, widest := r.misses()
	switch {
	case all == 0:
		return "check: FAIL (nothing measured)"
	case bad == noisy:
		return fmt.Sprintf("check: INCONCLUSIVE (%d of %d outside the bounds, but measured with a spread up to ±%.0f%%, wider than the bound: this machine is too noisy to tell; run the check on a quiet machine)", bad, all, 100*widest)
	case noisy > 0:
		return fmt.Sprintf("check: FAIL (%d of %d outside the bounds; %d of them too noisy to count)", bad, all, noisy)
	}
	return fmt.Sprintf("check: FAIL (%d of %d outside the bounds)", bad, all)
}

// Estimate is about how long Check's benchmark runs take with o (defaults
// applied): every case Count times, each about 1 to 2 × Benchtime as
// testing.Benchmark grows b.N towards it. The predictions add a few seconds.
func (o CheckOptions) Estimate() (lo, hi time.Duration) {
	h, b, n := len(o.Handlers), o.Benchtime, o.Count
	if o.Handlers == nil {
		h = 2
	}
	if b == 0 {
		b = time.Second
	}
	if n == 0 {
		n = 5
	}
	runs := time.Duration(2 * h * n) // wake-all and targeted at each handler count
	return runs * b, 2 * runs * b
}

// checkEstimate is what Run says before the check's benchmark runs: how
// long they take on a quiet machine (Estimate), and, honestly, that a loaded
// one takes longer, by how much it cannot tell; the progress lines that
// follow count the runs done.
func checkEstimate(o CheckOptions, load Load) string {
	lo, hi := o.Estimate()
	msg := fmt.Sprintf("innosim calibrate: check: the benchmark runs take %v to %v on a quiet machine; they need one (other load spreads the runs, and a spread wider than a bound makes the verdict inconclusive)", lo, hi)
	if load.Busy() {
		msg += fmt.Sprintf("; this one is busy (%s): expect them to take longer, by how much depends on the load, and follow the runs below", load)
	}
	return msg
}

// WriteTo writes the report: one row per case (predicted, measured, their ratio,
// the wakeups and futex calls per op of each), one per ratio, and the verdict.
func (r CheckReport) WriteTo(w io.Writer) (int64, error) {
	cw := &countWriter{w: w}
	tw := tabwriter.NewWriter(cw, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "BenchmarkAIOWake/mode=futex\tpredicted ns/op\tmeasured ns/op\t(min..max, n, spread)\tpred/meas\twakeups/op pred\tmeas\tfutex/op pred\tmeas\t(±%.0f%%)\t\n", 100*CaseTolerance)
	for _, c := range r.Cases {
		fmt.Fprintf(tw, "%s\t%.0f\t%.0f\t(%.0f..%.0f, %d, ±%.0f%%)\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%s\t\n", c.Name(), c.Predicted, c.Measured,
			c.MeasuredMin, c.MeasuredMax, c.Runs, 100*c.Spread(), c.Ratio(), c.PredictedWakeups, c.MeasuredWakeups, c.PredictedFutex, c.MeasuredFutex,
			mark(c.Pass(), c.Inconclusive()))
	}
	fmt.Fprintf(tw, "wake-all / targeted\tpredicted\tmeasured\t(spread)\tpred/meas\t\t\t\t\t(±%.0f%%)\t\n", 100*RatioTolerance)
	for _, q := range r.Ratios {
		fmt.Fprintf(tw, "handlers=%d\t%.2f\t%.2f\t(±%.0f%%)\t%.2f\t\t\t\t\t%s\t\n", q.Handlers, q.Predicted, q.Measured, 100*q.Spread, q.Ratio(),
			mark(q.Pass(), q.Inconclusive()))
	}
	if err := tw.Flush(); err != nil {
		return cw.n, fmt.Errorf("calibrate: write check: %w", err)
	}
	_, err := fmt.Fprintln(cw, r.Verdict())
	return cw.n, err
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

func mark(ok, noisy bool) string {
	switch {
	case ok:
		return "ok"
	case noisy:
		return "noisy"
	}
	return "FAIL"
}

func ratio(a, b float64) float64 {
	if b <= 0 {
		return math.NaN()
	}
	return a / b
}

// within reports whether r is within tol of 1 (false for NaN); the bound itself
// is in (1e-9 absorbs the rounding of 1.35 − 1).
func within(r, tol float64) bool { return math.Abs(r-1) <= tol+1e-9 }

// predictRuns is how many seeded runs each of Check's predictions averages: the
// most PredictAIOWake takes. Each run's thread placement is one draw of a
// bistable state, so the default 16 left the prediction itself ±10% apart from
// one calibration to the next at 4 handlers (targeted/4 from five profiles of
// one quiet morning: 7.2 to 9.2 µs with 16 runs, 7.8 and 8.0 µs with 64).
const predictRuns = 64

// CheckOptions says what Check runs.
type CheckOptions struct {
	// Costs is the calibration the prediction uses.
	Costs Costs
	// Handlers are the handler counts to run; nil means 4 and 32.
	Handlers []int
	// Benchtime is each benchmark case's run time; 0 means 1s, go test's
	// default. At most 1m.
	Benchtime time.Duration
	// Count is how many times each case runs, as go test -count: the rounds
	// are interleaved (every case once per round, so that a drift of the
	// machine touches each case alike) and the report uses each case's
	// median. 0 means 5; at most 20. One run is a draw: BenchmarkAIOWake's
	// wake-all/4 took 16 to 26 µs/op in eight one-run checks of one quiet
	// morning, as the handler threads happened to coalesce wakes or not.
	Count int
	// Progress, if not nil, is told before each run of a case its name and
	// round ("policy=all/handlers=4 (run 1 of 5)"), the runs done and their
	// total.
	Progress func(name string, done, total int)
}

// Check predicts BenchmarkAIOWake in futex mode (wake-all and targeted at each
// handler count) with aiobench.Predict on GOMAXPROCS cores and Costs' profile,
// runs the same cases for real Count times each through testing.Benchmark (the
// benchmark's own body, internal/aiobench.Wake), and returns the report against
// the medians. It returns ErrNoFutex off
// Linux, ErrInvalidConfig for bad options, ctx.Err() if ctx ends between cases,
// and a case's failure.
func Check(ctx context.Context, o CheckOptions) (CheckReport, error) {
	if !futex.Supported() {
		return CheckReport{}, ErrNoFutex
	}
	if o.Handlers == nil {
		o.Handlers = []int{4, 32}
	}
	for _, h := range o.Handlers {
		if h < 1 || h > 64 {
			return CheckReport{}, fmt.Errorf("calibrate: CheckOptions.Handlers %d, want 1..64: %w", h, ErrInvalidConfig)
		}
	}
	switch {
	case o.Benchtime == 0:
		o.Benchtime = time.Second
	case o.Benchtime < 0 || o.Benchtime > time.Minute:
		return CheckReport{}, fmt.Errorf("calibrate: CheckOptions.Benchtime = %v, want 0..1m (0 for 1s): %w", o.Benchtime, ErrInvalidConfig)
	}
	switch {
	case o.Count == 0:
		o.Count = 5
	case o.Count < 0 || o.Count > 20:
		return CheckReport{}, fmt.Errorf("calibrate: CheckOptions.Count = %d, want 0..20 (0 for 5): %w", o.Count, ErrInvalidConfig)
	}
	if err := setBenchtime(o.Benchtime); err != nil {
		return CheckReport{}, err
	}
	prof := o.Costs.Profile("calibrated")
	var cases []CheckCase
	for _, wake := range []aio.WakePolicy{aio.WakeAll, aio.WakeTargeted} {
		for _, h := range o.Handlers {
			c := CheckCase{Wake: wake, Handlers: h, Runs: o.Count}
			p, err := aiobench.Predict(aiobench.Config{Wake: wake, Handlers: h,
				CPUs: runtime.GOMAXPROCS(0), Costs: prof, Runs: predictRuns})
			if err != nil {
				return CheckReport{}, fmt.Errorf("calibrate: predict %s: %w", c.Name(), err)
			}
			c.Predicted, c.PredictedWakeups, c.PredictedFutex = p.NsPerOp, p.WakeupsPerOp, p.FutexPerOp
			cases = append(cases, c)
		}
	}
	ns := make([][]float64, len(cases))
	wakeups := make([][]float64, len(cases))
	futexes := make([][]float64, len(cases))
	for run := range o.Count {
		for i, c := range cases {
			if err := ctx.Err(); err != nil {
				return CheckReport{}, err
			}
			if o.Progress != nil {
				o.Progress(fmt.Sprintf("%s (run %d of %d)", c.Name(), run+1, o.Count), run*len(cases)+i, o.Count*len(cases))
			}
			res := testing.Benchmark(func(b *testing.B) { aiobench.Wake(b, aio.HandlerFutex, c.Wake, c.Handlers, nil) })
			if res.N == 0 {
				return CheckReport{}, fmt.Errorf("calibrate: benchmark %s failed", c.Name())
			}
			ns[i] = append(ns[i], float64(res.T.Nanoseconds())/float64(res.N))
			wakeups[i] = append(wakeups[i], res.Extra["wakeups/op"])
			futexes[i] = append(futexes[i], res.Extra["futex/op"])
		}
	}
	for i := range cases {
		m := summarizeShare(ns[i])
		cases[i].Measured, cases[i].MeasuredMin, cases[i].MeasuredMax = m.Median, m.Min, m.Max
		cases[i].MeasuredWakeups = summarizeShare(wakeups[i]).Median
		cases[i].MeasuredFutex = summarizeShare(futexes[i]).Median
	}
	return NewCheckReport(cases), nil
}

// setBenchtime sets the run time of testing.Benchmark, which reads go test's
// -test.benchtime flag (registered by testing.Init on the process's flag set).
func setBenchtime(d time.Duration) error {
	testing.Init()
	if err := flag.Set("test.benchtime", d.String()); err != nil {
		return fmt.Errorf("calibrate: set benchtime: %w", err)
	}
	return nil
}
