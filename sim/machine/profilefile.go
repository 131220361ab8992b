package machine

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// WriteTo writes p in the file format LoadProfile reads: one "key = value" line
// per field, durations in time.Duration syntax, sizes in bytes, so that ParseProfile gives p back.
// It returns the bytes written and the first write error. A Name that the file
// cannot carry (empty, with a control character such as a line break, or with
// spaces at either end, which ParseProfile trims) is an error wrapping
// ErrInvalidConfig, and nothing is written.
func (p CostProfile) WriteTo(w io.Writer) (int64, error) {
	if err := checkProfileName(p.Name); err != nil {
		return 0, err
	}
	type line struct{ k, v string }
	lines := []line{{"name", p.Name}}
	for _, f := range p.fields() {
		var v string
		switch {
		case f.g != nil:
			v = strconv.FormatFloat(*f.g, 'g', -1, 64)
		case f.b != nil:
			v = strconv.FormatInt(*f.b, 10)
		default:
			v = f.d.String()
		}
		lines = append(lines, line{f.key, v})
	}
	var total int64
	for _, l := range lines {
		n, err := fmt.Fprintf(w, "%s = %s\n", l.k, l.v)
		total += int64(n)
		if err != nil {
			return total, fmt.Errorf("sim: write cost profile: %w", err)
		}
	}
	return total, nil
}

// checkProfileName refuses a Name that a "name = value" line cannot give back.
func checkProfileName(name string) error {
	if !profileNameOK(name) {
		return fmt.Errorf("sim: write cost profile: Name = %q, want a non-empty name without control characters or spaces at either end: %w", name, ErrInvalidConfig)
	}
	return nil
}

// profileNameOK reports whether a "name = value" line gives name back: not
// empty, no control character (a line break would end the line), valid
// UTF-8, no spaces at either end (ParseProfile trims them).
func profileNameOK(name string) bool {
	return name != "" && strings.TrimSpace(name) == name &&
		strings.IndexFunc(name, unicode.IsControl) < 0 && utf8.ValidString(name)
}

// ProfileKeys returns the keys of a cost-profile file's costs, in the order
// WriteTo writes them (name, which labels the profile, is not among them).
func ProfileKeys() []string {
	var p CostProfile
	var keys []string
	for _, f := range p.fields() {
		keys = append(keys, f.key)
	}
	return keys
}
