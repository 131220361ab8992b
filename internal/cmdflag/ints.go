package cmdflag

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// IntRangeVar defines an int flag whose values are lo..hi, as
// flag.FlagSet.IntVar does, whose error names the range: a value outside it
// and one that is not a whole number, or too large for an int (the flag
// package says only "value out of range" or "parse error"), are refused as
// "N is out of range: want lo..hi". Name the range in usage too, and the
// flag's type with back quotes (as "a `count` of 1..64"): the help names
// only the flag package's own types.
func (fs *FlagSet) IntRangeVar(p *int, name string, value, lo, hi int, usage string) {
	*p = value
	fs.Var(&intValue{p, lo, hi}, name, usage)
}

// IntRange is IntRangeVar returning a new int.
func (fs *FlagSet) IntRange(name string, value, lo, hi int, usage string) *int {
	p := new(int)
	fs.IntRangeVar(p, name, value, lo, hi, usage)
	return p
}

// intValue is an IntRangeVar flag.
type intValue struct {
	p      *int
	lo, hi int
}

// Set parses a whole number in lo..hi.
func (v *intValue) Set(s string) error {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	switch {
	case err != nil && isRange(err):
		return fmt.Errorf("%s is out of range: want %d..%d", s, v.lo, v.hi)
	case err != nil:
		return fmt.Errorf("%q is not a whole number: want %d..%d", s, v.lo, v.hi)
	case n < int64(v.lo) || n > int64(v.hi):
		return fmt.Errorf("%d is out of range: want %d..%d", n, v.lo, v.hi)
	}
	*v.p = int(n)
	return nil
}

func (v *intValue) String() string {
	if v.p == nil { // the flag package's zero value, for its help
		return "0"
	}
	return strconv.Itoa(*v.p)
}

// Get returns the int, for flag.Getter.
func (v *intValue) Get() any { return *v.p }

// Uint64Var defines a uint64 flag of any value, 0..2^64-1 (a seed), as
// flag.FlagSet.Uint64Var does, whose error names that range: a negative
// number and one past it were "parse error" and "value out of range".
func (fs *FlagSet) Uint64Var(p *uint64, name string, value uint64, usage string) {
	*p = value
	fs.Var((*uint64Value)(p), name, usage)
}

// uint64Value is a Uint64Var flag.
type uint64Value uint64

// Set parses a whole number in 0..2^64-1.
func (v *uint64Value) Set(s string) error {
	n, err := strconv.ParseUint(strings.TrimSpace(s), 10, 64)
	switch {
	case err != nil && isRange(err):
		return fmt.Errorf("%s is out of range: want 0..%d", s, uint64(math.MaxUint64))
	case err != nil && strings.HasPrefix(strings.TrimSpace(s), "-"):
		if _, ierr := strconv.ParseInt(strings.TrimSpace(s), 10, 64); ierr == nil {
			return fmt.Errorf("%s is out of range: want 0..%d", s, uint64(math.MaxUint64))
		}
		fallthrough
	case err != nil:
		return fmt.Errorf("%q is not a whole number: want 0..%d", s, uint64(math.MaxUint64))
	}
	*v = uint64Value(n)
	return nil
}

func (v *uint64Value) String() string { return strconv.FormatUint(uint64(*v), 10) }

// Get returns the uint64, for flag.Getter.
func (v *uint64Value) Get() any { return uint64(*v) }

// isRange reports whether err is strconv's for a number past its type.
func isRange(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}
