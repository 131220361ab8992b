//go:build !linux

package calibrate

import (
	"errors"
	"runtime"
)

// errNoAffinity is what the pinned probes get where threads cannot be pinned
// to a CPU (sched_setaffinity is Linux's).
var errNoAffinity = errors.New("calibrate: pinning a thread to a CPU needs Linux, not " + runtime.GOOS)

func cpusAllowed() ([]int, error) { return nil, errNoAffinity }

func pinThread(int) error { return errNoAffinity }
