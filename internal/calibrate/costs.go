package calibrate

import (
	"context"
	"fmt"
	"time"
)

// Costs is this machine's price list, one Measurement per operation, each per
// single operation (see the package comment for how each is taken).
type Costs struct {
	GoroutineHandoff    Measurement // one handoff between goroutines over an unbuffered channel
	LockedThreadHandoff Measurement // one handoff between goroutines locked to OS threads
	FutexRoundTrip      Measurement // wake a locked thread on a futex.Event and be woken back
	FutexWakeCall       Measurement // time inside one futex.Event.Set that wakes a sleeping thread
	FutexIdleWake       Measurement // from a Set to the woken thread running, its CPU idle 500 µs before
	Syscall             Measurement // one getppid(2)
	ContextSwitch       Measurement // half a pipe round trip between two locked threads
	MutexHandoff        Measurement // one contended sync.Mutex Lock/Unlock (per acquisition)
}

// probe runs rounds operations and returns the cost of one in nanoseconds.
type probe func(rounds int) (float64, error)

// Measure calibrates this machine. It runs the probes one after another, each
// taking one warm-up and opts.Repeats measurements of opts.Rounds operations; a
// full run with the defaults takes about a second on an idle machine. It returns
// an error wrapping ErrInvalidConfig for bad options, ctx.Err() when ctx ends
// between measurements, or the system call error of a probe (pipe creation, a
// failed read or write).
func Measure(ctx context.Context, opts Options) (Costs, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return Costs{}, err
	}
	var c Costs
	probes := []struct {
		name string
		run  probe
		dst  *Measurement
	}{
		{"goroutine handoff", func(n int) (float64, error) { return channelHandoff(n, false) }, &c.GoroutineHandoff},
		{"locked-thread handoff", func(n int) (float64, error) { return channelHandoff(n, true) }, &c.LockedThreadHandoff},
		{"futex round trip", func(n int) (float64, error) { return futexRoundTrip(n, false) }, &c.FutexRoundTrip},
		{"futex wake call", func(n int) (float64, error) { return futexRoundTrip(n, true) }, &c.FutexWakeCall},
		{"futex idle wake", futexIdleWake, &c.FutexIdleWake},
		{"system call", syscallCost, &c.Syscall},
		{"context switch", pipeSwitch, &c.ContextSwitch},
		{"mutex handoff", mutexHandoff, &c.MutexHandoff},
	}
	for _, p := range probes {
		ns := make([]float64, 0, opts.Repeats)
		for i := -1; i < opts.Repeats; i++ { // i = -1 is the warm-up
			if err := ctx.Err(); err != nil {
				return Costs{}, fmt.Errorf("calibrate: %s: %w", p.name, err)
			}
			v, err := p.run(opts.Rounds)
			if err != nil {
				return Costs{}, fmt.Errorf("calibrate: %s: %w", p.name, err)
			}
			if i >= 0 {
				ns = append(ns, v)
			}
		}
		*p.dst = summarize(ns)
	}
	return c, nil
}

// perOp returns elapsed divided by ops, in nanoseconds.
func perOp(elapsed time.Duration, ops int) float64 {
	return float64(elapsed.Nanoseconds()) / float64(ops)
}
