package cmdflag

import (
	"errors"
	"flag"
	"fmt"
	"io"
)

// FlagError is Parse's error for a flag the command line got wrong: one the
// command does not define, one without its value, or a value its Set
// refused. Its message is the flag package's ("invalid value "0" for flag
// -threads: ..."); nothing has been printed.
type FlagError struct{ Err error }

// Error returns the flag package's message.
func (e *FlagError) Error() string { return e.Err.Error() }

// Unwrap returns the flag package's error.
func (e *FlagError) Unwrap() error { return e.Err }

// Parse parses args into fs, which must be flag.ContinueOnError. With -h or
// -help it prints fs's usage (fs.Usage, to fs's output) and returns
// flag.ErrHelp, as fs.Parse does. A bad flag is returned as a *FlagError and
// nothing is printed: the flag package would print the message and then the
// whole usage, burying the one line that says what is wrong. fs's output and
// Usage are as they were when Parse returns.
func Parse(fs *flag.FlagSet, args []string) error {
	out, usage := fs.Output(), fs.Usage
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	err := fs.Parse(args)
	fs.SetOutput(out)
	fs.Usage = usage
	switch {
	case err == nil:
		return nil
	case errors.Is(err, flag.ErrHelp):
		if fs.Usage != nil {
			fs.Usage()
		} else { // the flag package's default usage
			fmt.Fprintf(fs.Output(), "Usage of %s:\n", fs.Name())
			fs.PrintDefaults()
		}
		return err
	}
	return &FlagError{Err: err}
}
