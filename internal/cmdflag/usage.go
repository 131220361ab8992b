package cmdflag

import (
	"errors"
	"fmt"
)

// UsageError is a command line a command cannot run: a flag the flag package
// refused (one the command does not define, one without its value, a value
// its Set refused), a flag given twice, a value out of its range, flags that
// exclude each other, a wrong count of arguments. Its message says what is
// wrong and is meant to be printed as it is, after the command's name; Err
// may wrap a cause for errors.Is.
type UsageError struct {
	Err error
	// BadFlag marks an error of the flag package (Parse): the message is
	// the flag package's ("invalid value "0" for flag -threads: ..."), and
	// the caller points at the command's help rather than print it whole.
	BadFlag bool
}

// Error returns Err's message.
func (e *UsageError) Error() string { return e.Err.Error() }

// Unwrap returns Err.
func (e *UsageError) Unwrap() error { return e.Err }

// Usagef returns a *UsageError whose message is formatted as fmt.Errorf
// formats it, wrapping the operands of its %w verbs.
func Usagef(format string, a ...any) error {
	return &UsageError{Err: fmt.Errorf(format, a...)}
}

// IsUsage reports whether err is a usage error (a *UsageError in its chain).
func IsUsage(err error) bool {
	var ue *UsageError
	return errors.As(err, &ue)
}
