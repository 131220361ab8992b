package sim

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/innosim/innosim/sim/machine"
	"github.com/innosim/innosim/sim/steady"
)

// ErrNotSteady is wrapped by the error of a cell whose steady warm-up
// (Cell.Steady) can have no steady state: its bound leaves no room for the
// series it judges.
var ErrNotSteady = errors.New("warm-up reached no steady state")

// SteadyWarmup ends a cell's warm-up where its initial transient ends, found
// by MSER-5 (package steady: White 1997, Spratt 1998), and measures the rest
// of the run.
//
// The cell runs to its series start, the later of Cell.Warmup and, under
// CFS, the time in which its cores can give each of its threads its
// sleeper credit of CPU (machine.SleeperCreditWarmup: the vruntime lags of
// the threads that sleep, which decide when a wake preempts, grow from their
// common start at 0 until then, and a cell can hold a rate for seconds
// before they turn it). From there it records the units completed in bins
// of Measure / 250 and judges a series of at least 2 × Measure: the bins are
// summed into observations of a fifth of a wave (the time in which the
// threads that count units complete one each, at the series' rate: a closed
// system completes rounds in waves, and a batch of five observations is
// then about one wave), at least steady.MinBatches × 5 of them, and
// steady.MSER5 finds the truncation. If it lies in the series' first half
// and the batch means it keeps pass steady.Geweke (their first tenth's
// level agrees with their last half's), the series is steady. The cell is
// steady once two successive series are, the second twice as long as the
// first and containing it, and their figures are within 5% of each other (a
// level that holds for one series and not for a longer one, as a bistable
// cell's, is not a steady figure): the measured window runs from the
// second's truncation to its end, so at least 2 × Measure. Otherwise the
// series is doubled and judged again, up to Max; a cell not steady there is
// reported with Result.NotSteady set, its figures those of its last
// series' second half, never as a steady figure.
type SteadyWarmup struct {
	// Max bounds the whole run in virtual time: warm-up, the judged series
	// and the measured window; at least Warmup + 2 × Measure.
	Max time.Duration
}

// Bins and observations of a steady warm-up's series.
const (
	// steadyBinsPerMeasure is how many bins a Measure holds: the first
	// series of 2 × Measure has 500 bins, MSER-5's least observations.
	steadyBinsPerMeasure = steady.MinBatches * steady.DefaultBatch / 2
	// steadyMaxBins bounds the bins kept: past it, pairs are merged and the
	// bins are twice as wide.
	steadyMaxBins = 1 << 14
	// steadyObsPerWave is how many observations a wave holds.
	steadyObsPerWave = steady.DefaultBatch
	// steadyAgreement is how far apart, relative to the longer's, the
	// figures of two steady series, the second twice as long, may be.
	steadyAgreement = 0.05
)

// agree reports whether the figures of a steady series and of the series
// twice as long that contains it are within steadyAgreement of each other.
func agree(short, long Result) bool {
	return math.Abs(short.Throughput-long.Throughput) <= steadyAgreement*long.Throughput
}

// validate reports a field out of range for a cell whose fixed warm-up is
// warmup and whose measured window is measure.
func (s SteadyWarmup) validate(warmup, measure time.Duration) error {
	if s.Max < warmup || (s.Max-warmup)/2 < measure { // s.Max < warmup + 2 × measure, without overflow
		return machine.Invalid("Max", "sim: Steady.Max = %v, want at least Warmup (%v) + 2 × Measure (%v): %w", s.Max, warmup, measure, ErrInvalidConfig)
	}
	return nil
}

// checkSteadyRoom reports, wrapping ErrInvalidConfig and ErrNotSteady, a
// steady warm-up whose bound leaves no room for its first series after the
// CFS start of a machine of cfg with threads threads on the server's cores
// and clients on the client's (machine.SleeperCreditWarmup): a cell that
// could never be steady, refused before it runs.
func checkSteadyRoom(cfg MachineConfig, threads, clients int, warmup, measure time.Duration, s SteadyWarmup) error {
	start := max(warmup, machine.SleeperCreditWarmup(cfg, threads, clients))
	if start <= s.Max && measure <= (s.Max-start)/2 {
		return nil
	}
	cpus := fmt.Sprintf("%d CPUs", cfg.CPUs)
	if cfg.CPUs == 1 {
		cpus = "1 CPU"
	}
	if clients > 0 && cfg.ClientCPUs > 0 {
		cpus += fmt.Sprintf(", %d client threads on %d", clients, cfg.ClientCPUs)
	}
	return machine.Invalid("Steady.Max", "sim: Steady.Max = %v leaves no room for a series of 2 × Measure (%v) after the scheduler's sleepers have had their credit, at %v (%d threads × %v of CPU each on %s): want Steady.Max at least %v, or fewer threads: %w (%w)",
		s.Max, 2*measure, start, threads, machine.SleeperCreditOf(cfg), cpus, start+2*measure, ErrInvalidConfig, ErrNotSteady)
}

// steadySeries is a steady warm-up's record: the machine's counters at the
// series start and at the end of every bin since.
type steadySeries struct {
	bin   int64 // bin width, ns
	marks []machine.Counters
}

// record runs m to end, taking its counters at every bin's end (merging
// pairs of bins when they grow past steadyMaxBins).
func (s *steadySeries) record(m *machine.Machine, end int64) {
	e := m.Engine()
	for {
		next := s.marks[len(s.marks)-1].At + s.bin
		if next > end || e.Canceled() {
			return
		}
		e.Run(next)
		s.marks = append(s.marks, m.Counters())
		if len(s.marks) > steadyMaxBins {
			kept := s.marks[:1]
			for i := 2; i < len(s.marks); i += 2 {
				kept = append(kept, s.marks[i])
			}
			s.marks, s.bin = kept, 2*s.bin
		}
	}
}

// runSteady runs a built cell's steady warm-up and measured window (see
// SteadyWarmup) and returns the measured window's Result.
func (b *built) runSteady(warmup, measure time.Duration, s SteadyWarmup) Result {
	m := b.m
	counting := m.CountingThreads() // the threads whose programs count units
	if b.tpool != nil {
		counting += b.tpool.Connections() // a pooled connection's THD counts them, on its workers
	}
	start := int64(max(warmup, m.SleeperCreditWarmup()))
	m.Engine().Run(start)
	bin := max(int64(measure)/steadyBinsPerMeasure, 1)
	ser := &steadySeries{bin: bin, marks: []machine.Counters{m.Counters()}}
	end := start + 2*int64(measure)
	bound := int64(s.Max)
	var judged *Result // the last series' steady figure, to be confirmed
	for {
		ser.record(m, end)
		if m.Engine().Canceled() {
			return Result{} // Cell.Run reports ctx's error
		}
		r, ok := ser.judge(m, counting)
		switch {
		case ok && judged != nil && agree(*judged, r):
			return r
		case ok:
			judged = &r
		default:
			judged = nil
		}
		next := start + 2*(end-start)
		if need := ser.need(counting); need > 0 {
			next = max(next, start+need)
		}
		if end >= bound {
			r := m.Window(ser.marks[len(ser.marks)/2], ser.marks[len(ser.marks)-1])
			r.NotSteady = true
			return r
		}
		end = min(next, bound)
	}
}

// observations returns the series' bins summed into observations of a
// fifth of a wave (at least a bin), and how many bins each holds; nil when
// the series completed nothing.
func (s *steadySeries) observations(counting int) ([]float64, int) {
	first, last := s.marks[0], s.marks[len(s.marks)-1]
	units := last.Units - first.Units
	if units == 0 {
		return nil, 0
	}
	wave := float64(last.At-first.At) * float64(max(counting, 1)) / float64(units)
	k := max(int((wave/steadyObsPerWave+float64(s.bin)-1)/float64(s.bin)), 1)
	obs := make([]float64, (len(s.marks)-1)/k)
	for i := range obs {
		obs[i] = float64(s.marks[(i+1)*k].Units - s.marks[i*k].Units)
	}
	return obs, k
}

// need returns the series length, in ns, that makes MinBatches × 5
// observations at the series' rate so far, or 0 when it completed nothing.
func (s *steadySeries) need(counting int) int64 {
	_, k := s.observations(counting)
	if k == 0 {
		return 0
	}
	return int64(steady.MinBatches*steady.DefaultBatch*k) * s.bin
}

// judge runs MSER-5 over the series and Geweke's test over what it keeps;
// when both find the series steady it returns the window from the truncation to the series' end.
func (s *steadySeries) judge(m *machine.Machine, counting int) (Result, bool) {
	obs, k := s.observations(counting)
	if obs == nil {
		return Result{}, false
	}
	t, err := steady.MSER5(obs)
	if err != nil || !t.Steady {
		return Result{}, false // too few observations yet, or still moving
	}
	// MSER-5 finds where the transient ends, not whether the level it keeps
	// holds: a series that settles, then moves to another level within the
	// kept part, is cut early and averaged over both. Geweke's test of the
	// kept batch means' early and late levels rejects it.
	z, _ := steady.BatchMeans(obs[t.Point:], t.Batch)
	if g, err := steady.Geweke(z); err != nil || !g.Stationary {
		return Result{}, false
	}
	return m.Window(s.marks[t.Point*k], s.marks[len(s.marks)-1]), true
}
