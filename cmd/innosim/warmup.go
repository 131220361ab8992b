package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/innosim/innosim/internal/validate"
	"github.com/innosim/innosim/sim"
)

// warmupFlag is run's -warmup: "steady" or a fixed virtual duration of
// 1ms..1m; not given (the zero value), it is steady (effective). A fixed 0
// is not offered: sim.Cell reads a zero Warmup as its default.
type warmupFlag struct {
	d             time.Duration
	given, steady bool
}

// steadyWarmup returns run's steady warm-up for a cell measured over
// measure: the live cells' (validate.LiveSteady: MSER-5 and Geweke's test
// within 120 s of virtual time), bounded instead at room for eight measured
// windows after the warm-up when that is longer, so that a long -measure is
// judged rather than refused.
func steadyWarmup(measure time.Duration) *sim.SteadyWarmup {
	s := validate.LiveSteady()
	s.Max = max(s.Max, validate.LiveWarmup+8*measure)
	return s
}

// steadyHint is what to add to a cell's error that wraps sim.ErrNotSteady:
// how to measure such a cell anyway.
func steadyHint(err error) string {
	if errors.Is(err, sim.ErrNotSteady) {
		return "; a fixed -warmup DURATION measures the cell after that warm-up instead"
	}
	return ""
}

// warmupName is the warm-up f's run uses, as -warmup would give it.
func warmupName(f runFlags) string {
	wu := f.warmup.effective(f.client.cfg != nil)
	return wu.String()
}

// warmupJSON is the warm-up a run uses as run --json writes it: "fixed"
// and its nanoseconds, or "steady" and nil (null): no one figure.
func warmupJSON(f runFlags) (string, *int64) {
	wu := f.warmup.effective(f.client.cfg != nil)
	if wu.steady {
		return "steady", nil
	}
	ns := wu.d.Nanoseconds()
	return "fixed", &ns
}

// effective is the warm-up a run uses: w as given, else steady, with or
// without the client on the machine (client).
func (w warmupFlag) effective(client bool) warmupFlag {
	if w.given {
		return w
	}
	return warmupFlag{given: true, steady: true}
}

func (w *warmupFlag) String() string {
	switch {
	case !w.given:
		return "" // the flag package's default: run -h names it in the usage
	case w.steady:
		return "steady"
	}
	return w.d.String()
}

func (w *warmupFlag) Set(v string) error {
	if v == "steady" {
		*w = warmupFlag{given: true, steady: true}
		return nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return errors.New("want steady, or a duration with a unit of 1ms..1m, such as 20ms")
	}
	if d < time.Millisecond || d > time.Minute {
		return fmt.Errorf("%v is out of range: want steady, or 1ms..1m", d)
	}
	*w = warmupFlag{d: d, given: true}
	return nil
}
