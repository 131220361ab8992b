package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
)

// signalled is the cause of a context that a signal canceled
// (notifyContext).
type signalled struct{ sig os.Signal }

// Error names the signal ("interrupt", "terminated").
func (s signalled) Error() string { return "stopped by signal: " + s.sig.String() }

// said returns msg, an error's text, with the "context canceled" it ends
// with (the canceled context's error, which means nothing to the user)
// replaced by what the signal did: "interrupted" for Ctrl-C, "stopped by
// signal: NAME" for another; dropped when msg says interrupted already.
func (s signalled) said(msg string) string {
	const canceled = "context canceled"
	rest, ok := strings.CutSuffix(msg, canceled)
	if !ok {
		return msg
	}
	rest = strings.TrimSuffix(rest, ": ")
	what := "interrupted"
	if s.sig != os.Interrupt {
		what = s.Error()
	}
	switch {
	case rest == "":
		return what
	case strings.Contains(rest, "interrupted"):
		return rest
	}
	return rest + ": " + what
}

// status returns 128 + the signal's number, the status a shell gives a
// process the signal killed (130 for SIGINT).
func (s signalled) status() int {
	if n, ok := s.sig.(syscall.Signal); ok {
		return 128 + int(n)
	}
	return 130
}

// notifyContext returns a context that the first signal from sigs cancels,
// with a signalled cause, so that the command stops its work, cleans up and
// returns; the second ends the process at once (exit with the status of
// signalled), as the go command does on a second Ctrl-C, for a command that
// cannot return: one blocked in a read the kernel will not interrupt, one
// whose cleanup hangs. stop releases the watch; call it before exiting.
func notifyContext(parent context.Context, sigs <-chan os.Signal, stderr io.Writer, exit func(int)) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(parent)
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		select {
		case s := <-sigs:
			cancel(signalled{s})
		case <-done:
			return
		}
		select {
		case s := <-sigs:
			fmt.Fprintf(stderr, "innosim: %v again: exiting now\n", s)
			exit(signalled{s}.status())
		case <-done:
		}
	}()
	return ctx, func() {
		close(done)
		<-finished
		cancel(nil)
	}
}
