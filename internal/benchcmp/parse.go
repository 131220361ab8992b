package benchcmp

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"
	"golang.org/x/perf/benchunit"

	"github.com/innosim/innosim/internal/benchenv"
)

// Errors of Parse and Compare; each is wrapped with the file name and line.
var (
	ErrNoResults    = errors.New("no benchmark results")
	ErrMalformed    = errors.New("malformed benchmark line")
	ErrUnitMismatch = errors.New("benchmark units differ")
	// ErrNothingInCommon is Compare's error for two files that share no
	// benchmark (same package and full name): there is nothing to judge, and
	// "no significant change" would be a false all-clear.
	ErrNothingInCommon = errors.New("no benchmark in both files")
)

// maxFileSize bounds what Parse reads, 64 MiB: far above any go test output
// (every root benchmark at -count 10 writes some KiB), low enough that a
// wrong file (a disk image) fails fast instead of filling memory.
const maxFileSize = 64 << 20

// Key names one benchmark: the package (the "pkg" configuration key, "" if absent)
// and the full name including sub-benchmarks and the -GOMAXPROCS suffix, without
// the "Benchmark" prefix, as benchfmt reports it.
type Key struct {
	Pkg  string
	Name string
}

// String returns "pkg.Name", or Name alone when there is no package.
func (k Key) String() string {
	if k.Pkg == "" {
		return k.Name
	}
	return k.Pkg + "." + k.Name
}

// Series is one benchmark's results in one file.
type Series struct {
	Key   Key
	Units []string             // units in the order of the first result line (tidied: ns/op becomes sec/op)
	Line  int                  // line of the first result
	Value map[string][]float64 // unit -> one value per result line, in file order
}

// File is a parsed benchmark output.
type File struct {
	Name       string
	Benchmarks []*Series           // in order of first appearance
	Env        map[string][]string // environment key -> distinct values, sorted
	units      benchfmt.UnitMetadataMap
}

// Lookup returns the series for k, or nil.
func (f *File) Lookup(k Key) *Series {
	for _, s := range f.Benchmarks {
		if s.Key == k {
			return s
		}
	}
	return nil
}

// Results returns the number of result lines.
func (f *File) Results() int {
	n := 0
	for _, s := range f.Benchmarks {
		n += len(s.Value[s.Units[0]])
	}
	return n
}

// assumption returns the statistical assumption for unit: assume=exact from Unit
// metadata, else AssumeNothing (benchstat's default).
func (f *File) assumption(unit string) benchmath.Assumption {
	return f.units.GetAssumption(unit)
}

// better returns +1 if higher values of unit are better, -1 if lower, 0 unknown.
func (f *File) better(unit string) int {
	if b := f.units.GetBetter(unit); b != 0 {
		return b
	}
	if unit == "futex-share" {
		return -1
	}
	return 0
}

// Parse reads a Go benchmark output named name (used in errors). It returns
// ErrNoResults when no result line is found, and ErrMalformed, ErrUnitMismatch or
// a read error, each naming name and the line, for damaged input.
func Parse(r io.Reader, name string) (*File, error) { return parseBounded(r, name, maxFileSize) }

// parseBounded is Parse reading at most maxSize bytes of r (and one more, to
// tell a file of exactly maxSize from a longer one): a longer input, an
// endless one (/dev/zero) included, is refused without being read whole.
func parseBounded(r io.Reader, name string, maxSize int) (*File, error) {
	data, err := io.ReadAll(io.LimitReader(r, int64(maxSize)+1))
	if err != nil {
		return nil, fmt.Errorf("%s: read: %w", name, err)
	}
	if len(data) > maxSize {
		return nil, fmt.Errorf("%s: larger than %d bytes: %w", name, maxSize, ErrMalformed)
	}
	if err := checkTruncated(data, name); err != nil {
		return nil, err
	}
	f := &File{Name: name, Env: map[string][]string{}}
	env := map[string]map[string]bool{}
	byKey := map[Key]*Series{}
	rd := benchfmt.NewReader(bytes.NewReader(data), name)
	for rd.Scan() {
		switch rec := rd.Result().(type) {
		case *benchfmt.SyntaxError:
			return nil, fmt.Errorf("%s:%d: %w: %s", rec.FileName, rec.Line, ErrMalformed, rec.Msg)
		case *benchfmt.Result:
			if err := f.add(rec, byKey, env); err != nil {
				return nil, err
			}
		}
	}
	if err := rd.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(f.Benchmarks) == 0 {
		return nil, fmt.Errorf("%s: %w", name, ErrNoResults)
	}
	for k, vals := range env {
		for v := range vals {
			f.Env[k] = append(f.Env[k], v)
		}
		sort.Strings(f.Env[k])
	}
	f.units = rd.Units()
	return f, nil
}

func (f *File) add(res *benchfmt.Result, byKey map[Key]*Series, env map[string]map[string]bool) error {
	_, line := res.Pos()
	if res.Iters <= 0 {
		return fmt.Errorf("%s:%d: %w: iteration count %d, want > 0", f.Name, line, ErrMalformed, res.Iters)
	}
	units := make([]string, len(res.Values))
	values := make([]float64, len(res.Values))
	for i, v := range res.Values {
		if math.IsNaN(v.Value) || math.IsInf(v.Value, 0) {
			return fmt.Errorf("%s:%d: %w: %v %s is not a finite measurement", f.Name, line, ErrMalformed, v.Value, v.Unit)
		}
		if v.Value < 0 { // a time, a size or a count: Compare's ratios need ≥ 0
			return fmt.Errorf("%s:%d: %w: %v %s is negative, want ≥ 0", f.Name, line, ErrMalformed, v.Value, v.Unit)
		}
		// benchfmt leaves a value untidied when tidying does not change it (0
		// ns/op stays ns/op while 5 ns/op becomes sec/op); tidy every value so that
		// one benchmark's lines agree on their units.
		values[i], units[i] = benchunit.Tidy(v.Value, v.Unit)
		for _, u := range units[:i] {
			if u == units[i] {
				return fmt.Errorf("%s:%d: %w: unit %s twice", f.Name, line, ErrMalformed, u)
			}
		}
	}
	for _, c := range res.Config {
		if !c.File || !benchenv.IsEnvironmentKey(c.Key) {
			continue
		}
		if env[c.Key] == nil {
			env[c.Key] = map[string]bool{}
		}
		env[c.Key][string(c.Value)] = true
	}
	k := Key{Pkg: res.GetConfig("pkg"), Name: res.Name.String()}
	s := byKey[k]
	if s == nil {
		s = &Series{Key: k, Units: units, Line: line, Value: map[string][]float64{}}
		byKey[k] = s
		f.Benchmarks = append(f.Benchmarks, s)
	} else if !sameUnits(s.Units, units) {
		return fmt.Errorf("%s:%d: %w: %s reports %s here but %s at line %d", f.Name, line, ErrUnitMismatch,
			k, strings.Join(units, ", "), strings.Join(s.Units, ", "), s.Line)
	}
	for i, u := range units {
		s.Value[u] = append(s.Value[u], values[i])
	}
	return nil
}

// sameUnits reports whether a and b hold the same units, in any order.
func sameUnits(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	as := append([]string(nil), a...)
	bs := append([]string(nil), b...)
	sort.Strings(as)
	sort.Strings(bs)
	for i := range as {
		if as[i] != bs[i] {
			return false
		}
	}
	return true
}

// checkTruncated rejects input whose last line is a benchmark line with no
// newline: go test ends every line, so such a line was cut off (a killed run, a
// partial copy), and its last number may have lost digits without any syntax
// error to show it.
func checkTruncated(data []byte, name string) error {
	if len(data) == 0 || data[len(data)-1] == '\n' {
		return nil
	}
	start := bytes.LastIndexByte(data, '\n') + 1
	if !bytes.HasPrefix(data[start:], []byte("Benchmark")) {
		return nil
	}
	line := bytes.Count(data, []byte{'\n'}) + 1
	return fmt.Errorf("%s:%d: %w: truncated (the last result line has no newline)", name, line, ErrMalformed)
}
