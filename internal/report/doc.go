// Package report is the command line's presentation: aligned text tables,
// CSV, and line charts drawn with gonum/plot. It knows nothing of the
// simulator; the simulator knows nothing of it, so that importing package sim
// does not pull in plotting, fonts or PDF.
package report

import "errors"

// ErrInvalidConfig is wrapped by every error that reports a bad argument (a
// chart's file extension, a series' shape); the message names it.
var ErrInvalidConfig = errors.New("invalid config")
