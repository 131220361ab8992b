//go:build !unix

package calibrate

import (
	"errors"
	"runtime"
)

// errNoProbe is what the pipe and system-call probes return where there are no
// Unix pipes or getppid(2): calibration needs a Unix kernel.
var errNoProbe = errors.New("calibrate: the pipe and system-call probes need a Unix kernel, not " + runtime.GOOS)

func pipeSwitch(int) (float64, error) { return 0, errNoProbe }

func syscallCost(int) (float64, error) { return 0, errNoProbe }
