package concurrency

import (
	"fmt"
	"time"
)

// AIMDConfig configures an AIMD limit controller. The zero value selects every
// default.
type AIMDConfig struct {
	// Min and Max bound the limit: 1 ≤ Min ≤ Max ≤ 1000; 0 selects 1 and 1000.
	Min, Max int
	// Initial is the starting limit, Min..Max; 0 selects Min.
	Initial int
	// Window is how many inside-time samples make one decision: 1..1000000;
	// 0 selects 100.
	Window int
	// Tolerance is how far the window's mean time inside may rise above the
	// best (lowest) window mean before the limit is cut: 1 < Tolerance ≤ 10;
	// 0 selects 1.5, the tolerance of Netflix's concurrency-limits Gradient2.
	Tolerance float64
	// Backoff is the multiplicative decrease: the limit becomes limit × Backoff
	// (at least one less, never under Min). 0 < Backoff < 1; 0 selects 0.9, as
	// concurrency-limits' AIMDLimit.
	Backoff float64
}

func (c AIMDConfig) validate() (AIMDConfig, error) {
	if c.Min == 0 {
		c.Min = 1
	}
	if c.Max == 0 {
		c.Max = MaxLimit
	}
	if c.Min < 1 || c.Min > MaxLimit {
		return c, fmt.Errorf("concurrency: AIMD Min = %d, want 1..%d: %w", c.Min, MaxLimit, ErrInvalidConfig)
	}
	if c.Max < c.Min || c.Max > MaxLimit {
		return c, fmt.Errorf("concurrency: AIMD Max = %d, want %d..%d: %w", c.Max, c.Min, MaxLimit, ErrInvalidConfig)
	}
	if c.Initial == 0 {
		c.Initial = c.Min
	}
	if c.Initial < c.Min || c.Initial > c.Max {
		return c, fmt.Errorf("concurrency: AIMD Initial = %d, want %d..%d: %w", c.Initial, c.Min, c.Max, ErrInvalidConfig)
	}
	if c.Window == 0 {
		c.Window = 100
	}
	if c.Window < 1 || c.Window > 1_000_000 {
		return c, fmt.Errorf("concurrency: AIMD Window = %d, want 1..1000000: %w", c.Window, ErrInvalidConfig)
	}
	if c.Tolerance == 0 {
		c.Tolerance = 1.5
	}
	if !(c.Tolerance > 1 && c.Tolerance <= 10) {
		return c, fmt.Errorf("concurrency: AIMD Tolerance = %g, want (1, 10]: %w", c.Tolerance, ErrInvalidConfig)
	}
	if c.Backoff == 0 {
		c.Backoff = 0.9
	}
	if !(c.Backoff > 0 && c.Backoff < 1) {
		return c, fmt.Errorf("concurrency: AIMD Backoff = %g, want (0, 1): %w", c.Backoff, ErrInvalidConfig)
	}
	return c, nil
}

// AIMD finds a concurrency limit online from the time threads spend inside: the
// signal that more threads inside has stopped adding throughput is that each one
// takes longer (they contend for latches, cache, the CPUs). Per window of
// samples it compares the mean time inside with the best window mean seen:
// within Tolerance × best, the limit grows by one (additive increase); above it,
// the limit is multiplied by Backoff (multiplicative decrease). The best mean is
// the lowest seen, except that a window still too slow at the minimum limit
// replaces it: concurrency cannot explain that, so the work itself got slower,
// and the controller re-baselines instead of pinning the limit at Min. The best
// is never allowed to drift up otherwise, since a drifting baseline follows the
// slow rise that additive increase causes and never cuts (the limit ratchets up).
//
// It is a deterministic core: no clock, no goroutine; the Adaptive gate feeds it
// and applies its limit, and the simulator can drive it too. Not safe for
// concurrent use.
type AIMD struct {
	cfg   AIMDConfig
	limit int
	n     int
	sum   time.Duration
	best  time.Duration
}

// NewAIMD returns a controller for cfg. The error wraps ErrInvalidConfig.
func NewAIMD(cfg AIMDConfig) (*AIMD, error) {
	cfg, err := cfg.validate()
	if err != nil {
		return nil, err
	}
	return &AIMD{cfg: cfg, limit: cfg.Initial}, nil
}

// Limit returns the current limit.
func (a *AIMD) Limit() int { return a.limit }

// Observe adds one sample of time spent inside. At the end of each window it
// decides, and returns the limit and whether it changed.
func (a *AIMD) Observe(inside time.Duration) (limit int, changed bool) {
	a.sum += inside
	a.n++
	if a.n < a.cfg.Window {
		return a.limit, false
	}
	mean := a.sum / time.Duration(a.n)
	a.sum, a.n = 0, 0
	return a.ObserveWindow(mean)
}

// ObserveWindow makes one decision from a window's mean time inside, for a
// driver that aggregates samples itself. It returns the limit and whether it
// changed.
func (a *AIMD) ObserveWindow(mean time.Duration) (limit int, changed bool) {
	tooSlow := float64(mean) > float64(a.best)*a.cfg.Tolerance
	if a.best == 0 || mean < a.best || (tooSlow && a.limit == a.cfg.Min) {
		// A new best; or slow even at the minimum limit, which concurrency
		// cannot explain: the work itself got slower, so re-baseline.
		a.best = mean
		tooSlow = false
	}
	old := a.limit
	if tooSlow {
		next := int(float64(a.limit) * a.cfg.Backoff)
		if next >= a.limit {
			next = a.limit - 1
		}
		a.limit = max(a.cfg.Min, next)
	} else if a.limit < a.cfg.Max {
		a.limit++
	}
	return a.limit, a.limit != old
}
