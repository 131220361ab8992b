package cmdflag

import (
	"cmp"
	"flag"
	"fmt"
	"slices"
	"strings"
	"time"
)

// A Rule is one refusal of a command line that is about its flags alone
// (two flags that exclude each other, a flag that is required, a value not
// among those a flag takes, a stray argument), declared in a list beside the
// flags and checked after Parse by Check. It returns nil when the parsed
// command line keeps it, else a *UsageError that names the flags.
type Rule func(fs *FlagSet) error

// Check returns the error of the first of rules the parsed command line
// breaks, in their order, or nil.
func (fs *FlagSet) Check(rules ...Rule) error {
	for _, r := range rules {
		if err := r(fs); err != nil {
			return err
		}
	}
	return nil
}

// NoArgs refuses a positional argument: `unexpected argument "x"`.
func NoArgs() Rule {
	return func(fs *FlagSet) error {
		if fs.NArg() != 0 {
			return Usagef("unexpected argument %q", fs.Arg(0))
		}
		return nil
	}
}

// Exclusive refuses more than one of the flags names given (FlagSet.Exclusive).
func Exclusive(names ...string) Rule {
	return func(fs *FlagSet) error { return fs.Exclusive(names...) }
}

// Required refuses the flag name left empty: "-name is required (want)".
func Required(name, want string) Rule {
	return func(fs *FlagSet) error {
		if fs.value(name) == "" {
			return Usagef("-%s is required (%s)", name, want)
		}
		return nil
	}
}

// NotEmpty refuses the flag name given as the empty string, which would
// read as the flag not given: `-name "": want W`.
func NotEmpty(name, want string) Rule {
	return func(fs *FlagSet) error {
		if fs.Given(name) && fs.value(name) == "" {
			return Usagef("-%s \"\": want %s", name, want)
		}
		return nil
	}
}

// OneOf refuses a value of the flag name that is not one of choices, the
// empty value (a default that leaves the choice to another setting) but
// when given: `-name "v": want a, b or c` (Choice).
func OneOf(name string, choices ...string) Rule {
	return func(fs *FlagSet) error {
		v := fs.value(name)
		if v == "" && !fs.Given(name) {
			return nil
		}
		return Choice(fmt.Sprintf("-%s %q", name, v), v, choices...)
	}
}

// Within refuses a value of the flag name outside lo..hi: "-name v: want
// lo..hi" (a duration's bounds as "1ms..1m"). The flag's Value must be a
// flag.Getter of a T, as the flag package's and DurationVar's are.
func Within[T cmp.Ordered](name string, lo, hi T) Rule {
	return func(fs *FlagSet) error {
		v := fs.Lookup(name).Value.(flag.Getter).Get().(T)
		if v < lo || v > hi {
			return Usagef("-%s %v: want %s..%s", name, v, bound(lo), bound(hi))
		}
		return nil
	}
}

// Valid refuses a value of the flag name that check refuses, when the flag
// is not empty: "-name: " and check's error.
func Valid(name string, check func(value string) error) Rule {
	return func(fs *FlagSet) error {
		if v := fs.value(name); v != "" {
			if err := check(v); err != nil {
				return Usagef("-%s: %w", name, err)
			}
		}
		return nil
	}
}

// Refuse refuses the command line when broken reports true, with the
// message format and a give (as Usagef's): a combination the other rules do
// not say.
func Refuse(broken func() bool, format string, a ...any) Rule {
	return func(*FlagSet) error {
		if broken() {
			return Usagef(format, a...)
		}
		return nil
	}
}

// Choice returns nil when value is one of choices, else a *UsageError
// "NAMED: want a, b or c", named being how the command line gave the value
// (`-sched "bsd"`, "-vary sched=bsd").
func Choice(named, value string, choices ...string) error {
	if slices.Contains(choices, value) {
		return nil
	}
	return Usagef("%s: want %s", named, Or(choices))
}

// Or lists choices for a "want": "a or b", "a, b or c", and beyond three
// "one of a, b, c, d".
func Or(choices []string) string {
	switch n := len(choices); {
	case n == 0:
		return "nothing"
	case n == 1:
		return choices[0]
	case n <= 3:
		return strings.Join(choices[:n-1], ", ") + " or " + choices[n-1]
	}
	return "one of " + strings.Join(choices, ", ")
}

// value returns the flag name's value as its String method gives it, ""
// for a flag the set does not define.
func (fs *FlagSet) value(name string) string {
	if f := fs.Lookup(name); f != nil {
		return f.Value.String()
	}
	return ""
}

// bound writes a bound of Within: a duration of whole minutes or hours
// without its zero parts ("1m", not "1m0s"), anything else as %v does.
func bound(v any) string {
	d, ok := v.(time.Duration)
	if !ok {
		return fmt.Sprint(v)
	}
	s := d.String()
	if d >= time.Minute && d%time.Minute == 0 {
		s = strings.TrimSuffix(s, "0s")
		if d%time.Hour == 0 {
			s = strings.TrimSuffix(s, "0m")
		}
	}
	return s
}
