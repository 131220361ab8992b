package calibrate

import (
	"runtime"
	"time"
)

// sysmonRequest is the shortest sleep Go's sysmon thread asks for between its
// rounds: usleep(20) in runtime/proc.go's sysmon (Go 1.14-1.26), which on Linux
// is a nanosleep(2) of 20 µs.
const sysmonRequest = 20 * time.Microsecond

// sysmonRounds caps the sleeps of one measurement: each lasts about 100 µs on a
// VM (the request, the kernel's 50 µs default timer slack, the hypervisor's
// timer latency), so 200 keep a measurement near 20 ms.
const sysmonRounds = 200

// sysmonTick measures how long a nanosleep(2) of sysmonRequest actually takes
// on a locked OS thread, as sysmon's usleep does: the interval at which the
// runtime looks for Ps to retake from system calls. It takes min(rounds,
// sysmonRounds) sleeps and returns the mean one in nanoseconds. The thread is
// unlocked after, with its timer slack untouched. Where there is no
// nanosleep(2) to call as the runtime does (not Linux) it returns errSkipped.
func sysmonTick(rounds int) (float64, error) {
	rounds = min(rounds, sysmonRounds)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start := time.Now()
	for range rounds {
		if err := nanosleep(sysmonRequest); err != nil {
			return 0, err
		}
	}
	return perOp(time.Since(start), rounds), nil
}
