package cmdflag

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// CountsVar defines a flag of a comma-separated list of counts, each in
// 1..max ("1,2,4"), stored in *p in ascending order: a list of thread or core
// counts is the points of a sweep, whose table, CSV, JSON and chart all read
// them in order. *p is value until the flag is given, which replaces it.
// The flag's errors name the value and the range; a count given twice is
// refused, naming its positions as given: it would run the same points twice
// and print them as two columns (or rows) of one sweep. Name the flag's type
// in usage with back quotes (as "client thread `counts`").
func (fs *FlagSet) CountsVar(p *[]int, name string, value []int, max int, usage string) {
	*p = value
	fs.Var(&countsValue{p, max}, name, usage)
}

// countsValue is a CountsVar flag.
type countsValue struct {
	vals *[]int
	max  int
}

// String returns the list, comma-separated ("1,2,4").
func (l *countsValue) String() string {
	if l.vals == nil { // the flag package's zero value, for its help
		return ""
	}
	s := make([]string, len(*l.vals))
	for i, v := range *l.vals {
		s[i] = strconv.Itoa(v)
	}
	return strings.Join(s, ",")
}

// Set parses a comma-separated list of whole numbers in 1..max, replacing
// the list, and sorts it ascending.
func (l *countsValue) Set(v string) error {
	var out []int
	for i, f := range strings.Split(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		switch {
		case err != nil:
			return fmt.Errorf("%q is not a whole number: want counts in 1..%d, comma-separated", strings.TrimSpace(f), l.max)
		case n < 1 || n > l.max:
			return fmt.Errorf("%d is out of range: want 1..%d", n, l.max)
		}
		if j := slices.Index(out, n); j >= 0 {
			return fmt.Errorf("%d given twice (positions %d and %d): want each value once", n, j+1, i+1)
		}
		out = append(out, n)
	}
	slices.Sort(out)
	*l.vals = out
	return nil
}

// Get returns the counts, for flag.Getter.
func (l *countsValue) Get() any { return *l.vals }
