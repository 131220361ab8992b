package calibrate

import (
	"errors"
	"fmt"
)

// ErrInvalidConfig is wrapped by Measure's error for Options out of range, and
// by Run's for a flag out of its range.
var ErrInvalidConfig = errors.New("invalid config")

// Defaults of Options, chosen so that a full calibration takes about a second on
// an idle 2-core machine (eight figures × 16 repeats × 1000 rounds, the slowest
// rounds ~20 µs) and well under the 5 s budget on a loaded one.
const (
	DefaultRepeats = 15
	DefaultRounds  = 1000
)

// Options sizes a calibration. The zero value means the defaults.
type Options struct {
	// Repeats is how many measurements each figure's median is taken over, after
	// one discarded warm-up. 0 means DefaultRepeats; otherwise 1..1000.
	Repeats int
	// Rounds is how many operations (round trips, system calls, lock
	// acquisitions) one measurement averages over. 0 means DefaultRounds;
	// otherwise 1..1000000.
	Rounds int
}

// withDefaults validates o and fills in the defaults.
func (o Options) withDefaults() (Options, error) {
	switch {
	case o.Repeats == 0:
		o.Repeats = DefaultRepeats
	case o.Repeats < 1 || o.Repeats > 1000:
		return o, fmt.Errorf("calibrate: Repeats = %d, want 1..1000 (0 for %d): %w", o.Repeats, DefaultRepeats, ErrInvalidConfig)
	}
	switch {
	case o.Rounds == 0:
		o.Rounds = DefaultRounds
	case o.Rounds < 1 || o.Rounds > 1_000_000:
		return o, fmt.Errorf("calibrate: Rounds = %d, want 1..1000000 (0 for %d): %w", o.Rounds, DefaultRounds, ErrInvalidConfig)
	}
	return o, nil
}
