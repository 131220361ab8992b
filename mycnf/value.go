package mycnf

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ParseBool reads an option-file boolean as MySQL's get_bool_argument
// (mysys/my_getopt.cc) does: ON, TRUE or 1 is true, OFF, FALSE or 0 is false,
// in any case. Anything else is an error wrapping ErrInvalidConfig (MySQL 8.0
// warns and sets OFF; we do not guess).
func ParseBool(s string) (bool, error) {
	switch strings.ToLower(s) {
	case "on", "true", "1":
		return true, nil
	case "off", "false", "0":
		return false, nil
	}
	return false, fmt.Errorf("%q, want ON, OFF, TRUE, FALSE, 1 or 0: %w", s, ErrInvalidConfig)
}

// ParseInt reads an option-file integer as MySQL's getopt_ll and
// eval_num_suffix (mysys/my_getopt.cc) do: a decimal integer with an optional
// sign and an optional one-letter multiplier, K (2^10), M (2^20), G (2^30),
// T (2^40), P (2^50) or E (2^60), in either case. "16K" is 16384. MySQL applies
// the multiplier to every numeric option, not only to sizes, and so do we.
// A value that is not of that form, or overflows int64, is an error wrapping
// ErrInvalidConfig.
func ParseInt(s string) (int64, error) {
	digits, shift := s, 0
	if n := len(s); n > 0 {
		switch s[n-1] {
		case 'k', 'K':
			shift = 10
		case 'm', 'M':
			shift = 20
		case 'g', 'G':
			shift = 30
		case 't', 'T':
			shift = 40
		case 'p', 'P':
			shift = 50
		case 'e', 'E':
			shift = 60
		}
		if shift > 0 {
			digits = s[:n-1]
		}
	}
	v, err := strconv.ParseInt(digits, 10, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return 0, fmt.Errorf("%q overflows a 64-bit integer: %w", s, ErrInvalidConfig)
		}
		return 0, fmt.Errorf("%q is not an integer (digits, then an optional K, M, G, T, P or E): %w", s, ErrInvalidConfig)
	}
	if shift > 0 && (v > math.MaxInt64>>shift || v < math.MinInt64>>shift) {
		return 0, fmt.Errorf("%q overflows a 64-bit integer: %w", s, ErrInvalidConfig)
	}
	return v << shift, nil
}
