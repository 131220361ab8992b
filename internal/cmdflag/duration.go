package cmdflag

import (
	"errors"
	"strconv"
	"time"
)

// durationValue is a time.Duration flag (DurationVar).
type durationValue time.Duration

// DurationVar defines a time.Duration flag, as flag.FlagSet.DurationVar
// does, whose error for a value time.ParseDuration cannot read says what is
// wanted: a number with a unit, not a bare number ("5" is not 5 ms; the
// flag package says only "parse error"). Name the flag's type in usage with
// back quotes (as "a `duration` of 1ms..1m") for the help to show it: the
// flag package names only its own types.
func (fs *FlagSet) DurationVar(p *time.Duration, name string, value time.Duration, usage string) {
	*p = value
	fs.Var((*durationValue)(p), name, usage)
}

// Set parses v with time.ParseDuration.
func (d *durationValue) Set(v string) error {
	dur, err := time.ParseDuration(v)
	if err != nil {
		if _, numErr := strconv.ParseFloat(v, 64); numErr == nil {
			return errors.New("no unit: want a duration with a unit, such as 100ms or 5s")
		}
		return errors.New("want a duration with a unit, such as 100ms or 5s")
	}
	*d = durationValue(dur)
	return nil
}

// String returns the duration as time.Duration writes it ("1m0s").
func (d *durationValue) String() string { return time.Duration(*d).String() }

// Get returns the time.Duration, for flag.Getter.
func (d *durationValue) Get() any { return time.Duration(*d) }
