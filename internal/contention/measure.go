package contention

import (
	"bytes"
	"errors"
	"fmt"
	"runtime/pprof"

	"github.com/google/pprof/profile"
)

// ErrProfilerBusy is returned by Measure and Profile when a CPU profile is already
// running in this process (go test -cpuprofile, net/http/pprof, another Measure):
// runtime/pprof allows one at a time.
var ErrProfilerBusy = errors.New("contention: CPU profiler already in use")

// Profile runs f under the CPU profiler and returns the parsed profile. The profile
// covers the whole process while f runs, not only f's goroutine, which is what a
// benchmark with helper goroutines and handler threads needs. If the profiler is
// busy it returns ErrProfilerBusy without calling f. The profiler is stopped even
// if f panics.
func Profile(f func()) (*profile.Profile, error) {
	var buf bytes.Buffer
	if err := pprof.StartCPUProfile(&buf); err != nil {
		// runtime/pprof's only error here is "cpu profiling already in use".
		return nil, fmt.Errorf("%w (by go test -cpuprofile, net/http/pprof or another Measure): %v", ErrProfilerBusy, err)
	}
	func() {
		defer pprof.StopCPUProfile()
		f()
	}()
	p, err := profile.Parse(&buf)
	if err != nil {
		return nil, fmt.Errorf("contention: parse CPU profile: %w", err)
	}
	return p, nil
}

// Measure runs f under the CPU profiler and returns the share of samples in the
// default Frames. Errors are Profile's.
func Measure(f func()) (Share, error) {
	p, err := Profile(f)
	if err != nil {
		return Share{}, err
	}
	return ShareOf(p, nil)
}
