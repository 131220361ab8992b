package main

import (
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/innosim/innosim/internal/cmdflag"
)

// exitCode maps the error of a command that lives in another package onto this
// command line's: its usage error (usage) to errUsage, keeping a
// *cmdflag.FlagError in the chain, -h to success, and its "ran, verdict bad"
// error (failed, nil if it has none) to errFailed. Anything else is returned
// as it is.
func exitCode(err, usage, failed error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, flag.ErrHelp) || strings.HasSuffix(err.Error(), flag.ErrHelp.Error()):
		// benchcmp and contention wrap the flag error with %v, so it is matched
		// by its text
		return nil
	case errors.Is(err, usage):
		// The package's usage sentinel ("benchcmp: usage") says nothing the
		// "innosim compare:" prefix does not; keep only what follows it.
		msg := strings.TrimPrefix(strings.TrimPrefix(err.Error(), usage.Error()), ": ")
		if fe := (*cmdflag.FlagError)(nil); errors.As(err, &fe) && msg == fe.Error() {
			return fmt.Errorf("%w: %w", errUsage, fe)
		}
		if msg == "" {
			return errUsage
		}
		return fmt.Errorf("%w: %s", errUsage, msg)
	case failed != nil && errors.Is(err, failed):
		return errFailed
	}
	return err
}
