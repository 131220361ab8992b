package calibrate

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// Costs is this machine's price list, one Measurement per operation, each per
// single operation (see the package comment for how each is taken).
type Costs struct {
	GoroutineHandoff    Measurement // one handoff between goroutines over an unbuffered channel
	LockedThreadHandoff Measurement // one handoff between goroutines locked to OS threads
	FutexRoundTrip      Measurement // wake a locked thread on a futex.Event and be woken back, both on one CPU
	WakePreempt         Share       // share of those wakes in which the woken thread preempts the waker
	FutexLoadedHandoff  Measurement // one futex handoff on a CPU shared by four such ping-pongs
	FutexWakeCall       Measurement // time inside a futex.Event.Set that wakes a thread on another, idle CPU
	FutexRemoteWake     Measurement // from that Set's start to the woken thread running
	Syscall             Measurement // one getppid(2)
	ContextSwitch       Measurement // half a pipe round trip between two locked threads
	MutexHandoff        Measurement // one contended sync.Mutex Lock/Unlock (per acquisition)
	SysmonTick          Measurement // one nanosleep(2) of 20 µs on a locked thread, as Go's sysmon sleeps
	// Ring[s][i] is one token pass around a ring of RingThreads[i] locked
	// threads, each touching RingWorkingSets[s] bytes (lmbench's lat_ctx).
	Ring [len(RingWorkingSets)][len(RingThreads)]Measurement
	// CacheL2 and CacheLLC are the bytes of CPU 0's L2 and last-level
	// caches as Linux reports them (sysfs, see readCaches); 0 where unknown.
	CacheL2, CacheLLC int64
	// Load is how busy the machine was when the measurement ended: its
	// load average covers the last minute of the probes.
	Load Load
}

// probe runs rounds operations and returns the cost of one in nanoseconds (or,
// for a share, the share), or errSkipped.
type probe func(rounds int) (float64, error)

// Measure calibrates this machine. It runs the probes one after another, each
// taking one warm-up and opts.Repeats measurements of opts.Rounds operations;
// the twelve rings dominate a full run's time (each measurement of a ring of
// 1,024 creates and ends its 1,024 threads), and opts.MaxRing leaves out the
// larger ones. A probe
// that cannot run here (the pinned futex probes off Linux, or the remote wake
// on one CPU) leaves its figure zero. It returns an error wrapping
// ErrInvalidConfig for bad options, ctx.Err() when ctx ends between
// measurements, or the system call error of a probe (pipe creation, a failed
// read or write).
func Measure(ctx context.Context, opts Options) (Costs, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return Costs{}, err
	}
	var c Costs
	probes := []struct {
		name  string
		run   probe
		dst   *Measurement
		share *Share
	}{
		{name: "goroutine handoff", run: func(n int) (float64, error) { return channelHandoff(n, false) }, dst: &c.GoroutineHandoff},
		{name: "locked-thread handoff", run: func(n int) (float64, error) { return channelHandoff(n, true) }, dst: &c.LockedThreadHandoff},
		{name: "futex round trip", run: futexRoundTrip, dst: &c.FutexRoundTrip},
		{name: "wake preempt", run: wakePreempt, share: &c.WakePreempt},
		{name: "futex loaded handoff", run: futexLoadedHandoff, dst: &c.FutexLoadedHandoff},
		{name: "futex wake call", run: func(n int) (float64, error) { return futexRemoteWake(n, true) }, dst: &c.FutexWakeCall},
		{name: "futex remote wake", run: func(n int) (float64, error) { return futexRemoteWake(n, false) }, dst: &c.FutexRemoteWake},
		{name: "system call", run: syscallCost, dst: &c.Syscall},
		{name: "context switch", run: pipeSwitch, dst: &c.ContextSwitch},
		{name: "mutex handoff", run: mutexHandoff, dst: &c.MutexHandoff},
		{name: "sysmon tick", run: sysmonTick, dst: &c.SysmonTick},
	}
	for si, size := range RingWorkingSets {
		for i, n := range RingThreads {
			if n > opts.MaxRing {
				continue
			}
			probes = append(probes, struct {
				name  string
				run   probe
				dst   *Measurement
				share *Share
			}{name: ringName(n, size), run: func(r int) (float64, error) { return ringSwitch(n, size, r) }, dst: &c.Ring[si][i]})
		}
	}
	c.CacheL2, c.CacheLLC = readCaches(sysCacheDir)
probes:
	for k, p := range probes {
		if opts.Progress != nil && k > 0 {
			opts.Progress(k, len(probes))
		}
		vs := make([]float64, 0, opts.Repeats)
		for i := -1; i < opts.Repeats; i++ { // i = -1 is the warm-up
			if err := ctx.Err(); err != nil {
				return Costs{}, fmt.Errorf("calibrate: %s: %w", p.name, err)
			}
			v, err := p.run(opts.Rounds)
			if errors.Is(err, errSkipped) {
				continue probes
			}
			if err != nil {
				return Costs{}, fmt.Errorf("calibrate: %s: %w", p.name, err)
			}
			if i >= 0 {
				vs = append(vs, v)
			}
		}
		if p.share != nil {
			*p.share = summarizeShare(vs)
		} else {
			*p.dst = summarize(vs)
		}
	}
	if opts.Progress != nil {
		opts.Progress(len(probes), len(probes))
	}
	c.Load = currentLoad()
	return c, nil
}

// perOp returns elapsed divided by ops, in nanoseconds.
func perOp(elapsed time.Duration, ops int) float64 {
	return float64(elapsed.Nanoseconds()) / float64(ops)
}

// ringName names the ring probe of n threads touching size bytes each in
// tables and profiles.
func ringName(n, size int) string {
	return "switch in a ring of " + strconv.Itoa(n) + ", " + strconv.Itoa(size>>10) + " KiB each"
}
