package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/innosim/innosim/internal/cmdflag"
)

// errFailed marks a run that worked but whose verdict is FAIL (a study, a
// regression, a calibration check): exit status 1, nothing more to print.
var errFailed = errors.New("verdict FAIL")

// exitStatus prints the error a command named name returned, on stderr
// after "innosim NAME: ", and returns the command line's exit status: 0 for
// none and for -h (flag.ErrHelp; the usage is printed); 2 for a command line
// the command cannot run (a *cmdflag.UsageError), with a pointer to the help
// after a bad flag; 1 for a verdict FAIL (errFailed, nothing printed) and any
// other error; and, whatever the error, 128 + the signal's number when a
// signal stopped the command (ctx's cause is signalled): 130 for Ctrl-C, as
// a shell reports a process the signal killed, so that a script can tell an
// interrupted run from a failed one. The error of a command a signal
// stopped ends with what the signal did (signalled.said), not with the
// context's "context canceled".
func exitStatus(ctx context.Context, name string, err error, stderr io.Writer) int {
	status := 1
	var ue *cmdflag.UsageError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &ue):
		status = 2
	}
	var sig signalled
	stopped := errors.As(context.Cause(ctx), &sig)
	if !errors.Is(err, errFailed) {
		// a package's own prefix ("calibrate: ...") repeats the command's
		msg := strings.TrimPrefix(err.Error(), name+": ")
		if stopped {
			msg = sig.said(msg)
		}
		// a name the user gave may hold control characters: escaped, never
		// obeyed by the terminal
		fmt.Fprintf(stderr, "innosim %s: %s\n", name, cmdflag.TerminalSafe(msg))
	}
	if ue != nil && ue.BadFlag {
		fmt.Fprintf(stderr, "run 'innosim help %s' for the flags\n", name)
	}
	if stopped {
		return sig.status()
	}
	return status
}

// verdict returns errFailed for an error of a command that lives in
// another package and says its run worked but its verdict is bad (failed,
// as benchcmp.ErrRegression), and err otherwise.
func verdict(err, failed error) error {
	if errors.Is(err, failed) {
		return errFailed
	}
	return err
}
