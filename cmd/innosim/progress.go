package main

import (
	"io"

	"github.com/innosim/innosim/internal/progress"
)

// newProgress returns the progress reporter of command cmd on stderr: a bar
// a phase when stderr is a terminal, else a line as each phase starts and
// every few seconds (progress.Every), so that a run whose stderr goes to a
// file or a pipe still says how far it is. Close it before the command
// returns.
func newProgress(stderr io.Writer, cmd string) *progress.Reporter {
	return progress.New(stderr, "innosim "+cmd)
}
