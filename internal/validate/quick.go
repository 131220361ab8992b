package validate

import (
	"context"
	"time"

	"github.com/innosim/innosim/sim"
)

// QuickScale divides the virtual time of every cell of a quick run (Quick).
const QuickScale = 20

// quickKey marks a context made by Quick.
type quickKey struct{}

// Quick returns a context under which the studies (package study), the field
// cases and the tables of this package run every cell for a twentieth
// (QuickScale) of its virtual time: its fixed warm-up (sim.DefaultWarmup when
// 0) and its measured window (sim.DefaultMeasure when 0) divided by
// QuickScale, and no steady warm-up (Cell.Steady nil), whose windows must hold
// units a thread that so short a run has not. The cells, the tables' rows,
// checks and layout are the full run's, and so is every line of code between
// the command and the printed table; the figures are not the studies'. It is
// what a test of the whole command (go test ./cmd/innosim) runs in seconds;
// the full run's goldens are held under INNOSIM_FULL=1.
func Quick(ctx context.Context) context.Context {
	return context.WithValue(ctx, quickKey{}, true)
}

// IsQuick reports whether ctx is a quick run's (Quick).
func IsQuick(ctx context.Context) bool {
	q, _ := ctx.Value(quickKey{}).(bool)
	return q
}

// Shorten makes cells a quick run's when ctx is (Quick): each cell's warm-up
// and measured window divided by QuickScale, at least 1 µs each, and no
// steady warm-up. Otherwise it leaves them as they are.
func Shorten(ctx context.Context, cells []sim.Cell) {
	if !IsQuick(ctx) {
		return
	}
	for i := range cells {
		c := &cells[i]
		c.Warmup, c.Measure = quick(c.Warmup, sim.DefaultWarmup), quick(c.Measure, sim.DefaultMeasure)
		c.Steady = nil
	}
}

// quick returns a quick run's d (def when d is 0): d / QuickScale, at least
// 1 µs.
func quick(d, def time.Duration) time.Duration {
	if d == 0 {
		d = def
	}
	return max(d/QuickScale, time.Microsecond)
}
