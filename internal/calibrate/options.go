package calibrate

import (
	"errors"
	"fmt"
)

// ErrInvalidConfig is wrapped by Measure's error for Options out of range, and
// by Run's for a flag out of its range.
var ErrInvalidConfig = errors.New("invalid config")

// Defaults of Options. A full calibration (Measure) takes seconds, not one: it
// runs 15 figures (11 probes and a ring for each of RingThreads), each
// DefaultRepeats measurements after a warm-up, and a measurement is
// DefaultRounds operations except for the sysmon tick (at most 200 sleeps) and
// a ring of n threads (max(Rounds, 2n) passes, its n locked OS threads made
// and ended anew each time). The ring of 1,024 threads bounds it: 16 × 1,024
// thread creations and 16 × 2,048 passes.
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
	// MaxRing bounds the switch probe's rings: a ring of more threads than
	// MaxRing is not measured, and its figures stay zero, as those of a
	// probe this machine cannot run (the profile's cache refill is then
	// fitted to the smaller rings). 0 means every ring of RingThreads;
	// otherwise 2..1024. The rings of 1,024 threads take most of a
	// calibration's time.
	MaxRing int
	// Progress, if not nil, is told after each probe the probes done and
	// their total.
	Progress func(done, total int)
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
	switch {
	case o.MaxRing == 0:
		o.MaxRing = RingThreads[len(RingThreads)-1]
	case o.MaxRing < RingThreads[0] || o.MaxRing > RingThreads[len(RingThreads)-1]:
		return o, fmt.Errorf("calibrate: MaxRing = %d, want %d..%d (0 for every ring): %w", o.MaxRing, RingThreads[0], RingThreads[len(RingThreads)-1], ErrInvalidConfig)
	}
	return o, nil
}
