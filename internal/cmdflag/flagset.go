package cmdflag

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// FlagSet is one command's flags: a flag.FlagSet that continues on error
// (flag.ContinueOnError) and writes its help to the writer given to New.
type FlagSet struct {
	*flag.FlagSet
}

// New returns the flag set of the command named name, whose help (Usage,
// printed by Parse for -h) is "usage: " and synopsis, then, each after a
// blank line, the lines of description and "flags:" with the flags'
// defaults (flag.PrintDefaults), written to w.
func New(name string, w io.Writer, synopsis string, description ...string) *FlagSet {
	fs := &FlagSet{FlagSet: flag.NewFlagSet(name, flag.ContinueOnError)}
	fs.SetOutput(w)
	fs.Usage = func() {
		fmt.Fprintf(w, "usage: %s\n", synopsis)
		if len(description) > 0 {
			fmt.Fprintf(w, "\n%s\n", strings.Join(description, "\n"))
		}
		hasFlags := false
		fs.VisitAll(func(*flag.Flag) { hasFlags = true })
		if hasFlags {
			fmt.Fprintln(w, "\nflags:")
			fs.PrintDefaults()
		}
	}
	return fs
}

// Repeatable is implemented by a flag value that may be given more than
// once (each time adds to it, as validate's -table). Parse refuses any other
// flag given twice, of which the flag package would keep the last.
type Repeatable interface{ Repeatable() }

// Parse parses args as flag.FlagSet.Parse does, stopping at the first
// argument that is not a flag. With -h or -help it prints the help and
// returns flag.ErrHelp. A flag given twice (but a Repeatable one) and a bad
// flag are returned as a *UsageError, and nothing is printed: the flag
// package would print its message and then the whole usage, burying the one
// line that says what is wrong. The output and Usage are as they were when
// Parse returns.
func (fs *FlagSet) Parse(args []string) error {
	if name, ok := fs.repeated(args); ok {
		return Usagef("-%s given twice: want it once (the last would replace the first)", name)
	}
	out, usage := fs.Output(), fs.Usage
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	err := fs.FlagSet.Parse(args)
	fs.SetOutput(out)
	fs.Usage = usage
	switch {
	case err == nil:
		return nil
	case errors.Is(err, flag.ErrHelp):
		fs.Usage()
		return err
	}
	return &UsageError{Err: fs.withSuggestion(err), BadFlag: true}
}

// ParseInterspersed parses the flags wherever they stand among the
// positional arguments, so that "validate field -table x.csv" is "validate
// -table x.csv field", and returns the positionals in their order. It reads
// args as the flag package does: a non-flag argument ("x", "-") is a
// positional and the flags after it are still parsed; "-x=v" and "-x v" are
// one flag whatever v is; "--" ends the flags, and every argument after it
// is a positional, one that starts with "-" too. An unknown flag takes no
// value here, so the argument after it is a positional, and Parse reports
// the flag. Errors are Parse's, a flag given twice counted over all of args.
func (fs *FlagSet) ParseInterspersed(args []string) (positionals []string, err error) {
	var flags []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			positionals = append(positionals, args[i+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			positionals = append(positionals, a)
			continue
		}
		flags = append(flags, a)
		name, _, hasValue := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-"), "=")
		fl := fs.Lookup(name)
		if fl == nil || hasValue || isBool(fl) {
			continue
		}
		if i+1 < len(args) {
			i++
			flags = append(flags, args[i]) // its value
		}
	}
	if err := fs.Parse(flags); err != nil {
		return nil, err
	}
	return positionals, nil
}

// isBool reports whether fl is a boolean flag, which takes no value.
func isBool(fl *flag.Flag) bool {
	b, ok := fl.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// repeated returns the first flag that args give twice, unless its value is
// Repeatable. It reads args as the flag package does: flags up to "--" or
// the first argument that is not one; "-x=v", "-x v", and a boolean "-x"
// that takes no value. An unknown flag ends the scan (Parse reports it).
func (fs *FlagSet) repeated(args []string) (string, bool) {
	seen := map[string]bool{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" || len(a) < 2 || a[0] != '-' {
			return "", false
		}
		name, _, hasValue := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-"), "=")
		fl := fs.Lookup(name)
		if fl == nil {
			return "", false
		}
		if _, ok := fl.Value.(Repeatable); !ok && seen[name] {
			return name, true
		}
		seen[name] = true
		if !hasValue && !isBool(fl) {
			i++ // the value
		}
	}
	return "", false
}

// Given reports whether the command line set the flag name (after Parse),
// to its default value too.
func (fs *FlagSet) Given(name string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}

// GivenOf returns those of names the command line set, in the order of
// names, each as "-name".
func (fs *FlagSet) GivenOf(names ...string) []string {
	var out []string
	for _, n := range names {
		if fs.Given(n) {
			out = append(out, "-"+n)
		}
	}
	return out
}

// Exclusive returns a *UsageError naming the flags of names that the
// command line set when it set more than one ("-costs and -profile both
// given: want one"), else nil.
func (fs *FlagSet) Exclusive(names ...string) error {
	given := fs.GivenOf(names...)
	switch len(given) {
	case 0, 1:
		return nil
	case 2:
		return Usagef("%s and %s both given: want one", given[0], given[1])
	}
	return Usagef("%s and %s given: want one of them", strings.Join(given[:len(given)-1], ", "), given[len(given)-1])
}
