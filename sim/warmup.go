package sim

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/innosim/innosim/sim/machine"
)

// ErrNotSteady is wrapped by the error of a cell whose steady warm-up
// (Cell.Steady) found no two successive windows that agree before its bound.
var ErrNotSteady = errors.New("warm-up reached no steady state")

// SteadyWarmup ends a cell's warm-up on a steady state instead of at a fixed
// time: after Cell.Warmup the machine runs on in pairs of windows, starting
// at Window and doubling after each pair that fails, until a pair whose
// windows each hold at least PerThread units for every thread that counts
// units, and whose two counts differ by at most Tolerance of the larger. The
// measured window is then at least that pair's window. Under CFS the first
// pair starts no earlier than the time in which the cores can give each of
// the machine's threads half a scheduling latency of CPU (threads × 12 ms /
// CPUs): the vruntime lags of the threads that sleep, which decide when a
// wake preempts, grow from their common start at 0 until then, and a cell
// can hold a rate for seconds before they turn it (oltp_read_only's 256
// connections with their client on 2 CPUs: 44,000 queries/s for a second,
// then 12,000). It is the
// stationarity test of batch means (successive batches compared, Law and
// Kelton, "Simulation Modeling and Analysis", ch. 9) with batches long
// enough for every thread: a closed system whose threads all start at time 0
// completes nothing until every thread has had its first round, then
// completes rounds in waves, each thread once a wave, which the jitter spreads
// out only slowly; a window shorter than a wave reads its phase, and one of
// k waves can miss by one wave in k. So a fixed warm-up that suits 64
// threads measures the ramp, or a crest, of 2,048.
type SteadyWarmup struct {
	// Window is the length of the first pair's windows of virtual time,
	// more than 0 and at most Max.
	Window time.Duration
	// Tolerance is the largest relative difference, |a−b| / max(a, b), of the
	// two windows' units that counts as steady; in (0, 1).
	Tolerance float64
	// PerThread is how many units each window of the pair must hold for
	// every thread that counts units (a connection's server thread, not its
	// client or an AIO handler), 1..1000: a window of k waves holds about k
	// units a thread and reads the rate to one wave in k.
	PerThread int
	// Max bounds the whole warm-up, Cell.Warmup (or the CFS start above) and
	// the windows together, in virtual time; at least Cell.Warmup + 2 × Window
	// (a CFS start that leaves no room for two windows fails the cell as not
	// steady), and small enough
	// that the measured window after it ends within the virtual clock
	// (math.MaxInt64 ns). A cell not steady
	// by then fails with an error wrapping ErrNotSteady rather than measure
	// a ramp.
	Max time.Duration
}

// validate reports a field out of range for a cell whose fixed warm-up is
// warmup and whose measured window is measure.
func (s SteadyWarmup) validate(warmup, measure time.Duration) error {
	switch {
	case s.Window <= 0 || s.Window > s.Max:
		return machine.Invalid("Window", "sim: Steady.Window = %v, want more than 0 and at most Steady.Max (%v): %w", s.Window, s.Max, ErrInvalidConfig)
	case !(s.Tolerance > 0 && s.Tolerance < 1): // false for NaN
		return machine.Invalid("Tolerance", "sim: Steady.Tolerance = %v, want in (0, 1): %w", s.Tolerance, ErrInvalidConfig)
	case s.PerThread < 1 || s.PerThread > 1000:
		return machine.Invalid("PerThread", "sim: Steady.PerThread = %d, want 1..1000: %w", s.PerThread, ErrInvalidConfig)
	case s.Max < warmup || (s.Max-warmup)/2 < s.Window: // s.Max < warmup + 2 × s.Window, without overflow
		return machine.Invalid("Max", "sim: Steady.Max = %v, want at least Warmup (%v) + 2 × Steady.Window (%v): %w", s.Max, warmup, s.Window, ErrInvalidConfig)
	case s.Max > math.MaxInt64-max(measure, s.Max/2):
		return machine.Invalid("Max", "sim: Steady.Max = %v, want at most %v, so that the measured window (at least Measure, %v, and the steady pair's window, up to Steady.Max / 2) ends within the virtual clock: %w",
			s.Max, time.Duration(math.MaxInt64-max(measure, s.Max/2)), measure, ErrInvalidConfig)
	}
	return nil
}

// checkSteadyRoom reports, wrapping ErrInvalidConfig and ErrNotSteady, a
// steady warm-up whose bound leaves no room for a pair of windows after the
// CFS start of a machine of cfg with threads threads
// (machine.SleeperCreditWarmup): a cell that could never be steady, refused
// before it runs.
func checkSteadyRoom(cfg MachineConfig, threads int, warmup time.Duration, s SteadyWarmup) error {
	start := max(warmup, machine.SleeperCreditWarmup(cfg, threads))
	if s.Window <= (s.Max-start)/2 && start <= s.Max {
		return nil
	}
	cpus := fmt.Sprintf("%d CPUs", cfg.CPUs)
	if cfg.CPUs == 1 {
		cpus = "1 CPU"
	}
	return machine.Invalid("Steady.Max", "sim: Steady.Max = %v leaves no room for two windows of %v after the scheduler's sleepers have had their credit, at %v (%d threads × %v of CPU each on %s): want Steady.Max at least %v, or fewer threads: %w (%w)",
		s.Max, s.Window, start, threads, machine.SleeperCredit, cpus, start+2*s.Window, ErrInvalidConfig, ErrNotSteady)
}

// warmUntilSteady runs the machine to warmup, then in pairs of windows
// until a pair is steady (see SteadyWarmup), doubling the window after each
// pair that is not, and returns the virtual time at which the warm-up ended
// (the start of the measured window) and the window of the steady pair. It
// returns an error wrapping ErrNotSteady, naming the last pair's figures,
// when s.Max comes first.
func (b *built) warmUntilSteady(warmup time.Duration, s SteadyWarmup) (end, window time.Duration, err error) {
	m := b.m
	counting := m.CountingThreads() // the threads whose programs count units
	if b.tpool != nil {
		counting += b.tpool.Connections() // a pooled connection's THD counts them, on its workers
	}
	least := uint64(counting * s.PerThread)
	// Cell.build refused a bound with no room for a pair after this start
	// (checkSteadyRoom); the loop below stops at the bound all the same
	end, window = max(warmup, m.SleeperCreditWarmup()), s.Window
	m.Engine().Run(int64(end))
	var units [2]uint64
	for window <= (s.Max-end)/2 { // end + 2 × window <= s.Max, without overflow
		for i := range units {
			u0 := m.Units()
			end += window
			m.Engine().Run(int64(end))
			units[i] = m.Units() - u0
		}
		if m.Engine().Canceled() {
			return end, window, nil // Cell.Run reports ctx's error
		}
		hi, lo := max(units[0], units[1]), min(units[0], units[1])
		if lo > 0 && lo >= least && float64(hi-lo) <= s.Tolerance*float64(hi) {
			return end, window, nil
		}
		window *= 2
	}
	return end, window, fmt.Errorf("sim: not steady after %v of warm-up: the last two windows of %v completed %d and %d units, want within %g%% of each other and at least %d (%d for each of %d threads that count units): %w",
		end, window/2, units[0], units[1], s.Tolerance*100, least, s.PerThread, counting, ErrNotSteady)
}
