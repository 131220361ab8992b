package machine

import (
	"errors"
	"fmt"
)

// ErrInvalidConfig is wrapped by every error that reports a bad machine, cost
// profile, mechanism or workload setting; the message names the field and
// its allowed range.
var ErrInvalidConfig = errors.New("invalid config")

// A FieldError is a setting out of its allowed range: Field names it as its
// config spells it ("CPUs", "Costs.syscall", "Units"), and the message names
// it and the range. It wraps its message's error and ErrInvalidConfig (also
// for the error of another package's config, aio's or concurrency's, whose
// sentinel it wraps too). A layer above that holds the
// config in a field of its own prefixes Field with that field's name
// (InField): a cell's machine's CPUs are "Machine.CPUs".
type FieldError struct {
	Field string
	Err   error // the message, wrapping ErrInvalidConfig
}

// Error returns the message: the field, its value and the range it wants.
func (e *FieldError) Error() string { return e.Err.Error() }

// Unwrap returns the message's error and ErrInvalidConfig.
func (e *FieldError) Unwrap() []error { return []error{e.Err, ErrInvalidConfig} }

// Invalid returns a *FieldError for field whose message is format's, which
// must wrap ErrInvalidConfig (%w).
func Invalid(field, format string, args ...any) error {
	return &FieldError{Field: field, Err: fmt.Errorf(format, args...)}
}

// InField returns err as an error of the config held in field: a *FieldError
// whose Field is field, then a dot and err's own Field when err is a
// *FieldError (else field alone), and whose message is err's. A nil err is
// nil.
func InField(field string, err error) error {
	if err == nil {
		return nil
	}
	var fe *FieldError
	if errors.As(err, &fe) {
		return &FieldError{Field: field + "." + fe.Field, Err: err}
	}
	return &FieldError{Field: field, Err: err}
}
