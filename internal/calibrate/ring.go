package calibrate

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/innosim/innosim/internal/futex"
	"github.com/innosim/innosim/sim"
	"gonum.org/v1/gonum/mat"
)

// RingThreads are the ring sizes of the switch probe.
var RingThreads = [...]int{2, 16, 128, 1024}

// RingWorkingSets are the bytes each ring thread writes per turn, one byte a
// cache line: the sizes lmbench's lat_ctx is run with (-s 0, 16 and 64 KiB).
// The ring at size 0 shows what a thread's own state costs to refill (its
// footprint); the larger sizes add known bytes to it, which gives the refill
// cost of a line (see fitFootprint).
var RingWorkingSets = [...]int{0, 16 << 10, 64 << 10}

// ringThreadHook, when not nil, is called by every ring thread once it is
// pinned (tests).
var ringThreadHook func()

// ringSwitch is lmbench's lat_ctx on locked OS threads (McVoy and Staelin,
// "lmbench: portable tools for performance analysis", USENIX 1996): n threads
// pass one token around a ring through futex.Events, each touching its own
// size bytes when the token reaches it, then setting the next thread's
// event and waiting on its own. It returns the wall time per pass
// (a wake, a switch and the touch, all on one CPU) over
// max(rounds, 2n) passes, the threads' creation excluded. Every thread exits
// before it returns.
//
// Every ring thread is pinned to one CPU (the first this process may run
// on): the model charges a switch on its core (sim.CostProfile.SwitchCost)
// and a wake onto another, idle CPU apart (futex_wake), and an unpinned ring
// on an idle VM wakes the next thread on a halted vCPU as often as not, so
// its passes measured that wake (a ring of two, 0 KiB: median 11 µs, IQR
// 1.7–36 µs, against a 2 µs pinned handoff, on a quiet 2-vCPU guest).
func ringSwitch(n, size, rounds int) (float64, error) {
	cpus, err := pinnedCPUs(1)
	if err != nil {
		return 0, err
	}
	passes := max(rounds, 2*n)
	evs := make([]futex.Event, n)
	var (
		ready, done sync.WaitGroup
		count       atomic.Int64
		stop        atomic.Bool
		end         time.Time
		pinErr      atomic.Pointer[error]
	)
	ready.Add(n)
	done.Add(n)
	for i := range n {
		go func() {
			defer done.Done()
			runtime.LockOSThread() // never unlocked: the thread exits with the goroutine
			if err := pinThread(cpus[0]); err != nil {
				pinErr.Store(&err) // the ring still runs: every thread must pass the token
			}
			if ringThreadHook != nil {
				ringThreadHook()
			}
			buf := make([]byte, size)
			c := evs[i].Reset()
			ready.Done()
			for {
				evs[i].Wait(c)
				c = evs[i].Reset()
				if stop.Load() {
					return
				}
				for j := 0; j < len(buf); j += 64 {
					buf[j]++
				}
				if count.Add(1) == int64(passes) {
					end = time.Now()
					stop.Store(true)
					for j := range evs {
						evs[j].Set()
					}
					return
				}
				evs[(i+1)%n].Set()
			}
		}()
	}
	ready.Wait()
	start := time.Now()
	evs[0].Set()
	done.Wait()
	if pinErr.Load() != nil {
		return 0, errSkipped // cannot be pinned here, as pingPong
	}
	return perOp(end.Sub(start), passes), nil
}

// fitFootprint fits the ring's medians, ms[size][threads], to the refill
// model of sim.CostProfile.SwitchCost on caches of l2 and llc bytes: a pass
// costs a_s + refill(n, W + s), one intercept a_s per working set s (the
// touch itself, the wake and the switch between two threads), with the
// footprint W of a thread that touches nothing and the costs of a line from
// the last-level cache and from memory to fit. For each W on a grid of 256 B
// steps up to 256 KiB the fit is linear (least squares in the intercepts
// and the two refill costs, each refill cost ≥ 0); the W of least squared
// error wins. It returns p with SwitchFootprint, CacheL2, CacheLLC,
// RefillLLC and RefillMemory set, or p unchanged when there are not two
// working sets with two ring sizes each measured, or the caches are unknown,
// or no W gives a refill that grows.
func fitFootprint(p sim.CostProfile, ms [len(RingWorkingSets)][len(RingThreads)]Measurement, l2, llc int64) sim.CostProfile {
	type point struct {
		size, threads int // size is an index of RingWorkingSets
		y             float64
	}
	var pts []point
	var perSize [len(RingWorkingSets)]int
	for si, row := range ms {
		for ni, m := range row {
			if m.Repeats > 0 {
				pts = append(pts, point{si, RingThreads[ni], float64(m.Median)})
				perSize[si]++
			}
		}
	}
	intercept := map[int]int{} // working set index → its intercept's column
	for si, k := range perSize {
		if k >= 2 {
			intercept[si] = len(intercept)
		}
	}
	pts = slices.DeleteFunc(pts, func(pt point) bool { _, ok := intercept[pt.size]; return !ok })
	if footprintFitMissing(ms, l2, llc) != "" {
		return p
	}
	best, bestErr := p, math.Inf(1)
	for w := int64(0); w <= 256<<10; w += 256 {
		q := p
		q.SwitchFootprint, q.CacheL2, q.CacheLLC = w, l2, llc
		// lines × share missing beyond a ring of two, from L2 only (from the
		// LLC) and from the LLC (from memory): SwitchRefill at 1 µs a line,
		// over 1000, so that a coefficient is ns a line
		lines := func(pt point, fromLLC bool) float64 {
			q.RefillLLC, q.RefillMemory = 0, time.Microsecond
			if fromLLC {
				q.RefillLLC, q.RefillMemory = time.Microsecond, 0
			}
			extra := int64(RingWorkingSets[pt.size])
			return float64(q.SwitchRefill(pt.threads, extra)-q.SwitchRefill(2, extra)) / 1000
		}
		for _, use := range [][2]bool{{true, true}, {true, false}, {false, true}} {
			cols := len(intercept)
			var refillCol [2]int
			for k, u := range use {
				refillCol[k] = -1
				if u {
					refillCol[k] = cols
					cols++
				}
			}
			a := mat.NewDense(len(pts), cols, nil)
			b := mat.NewVecDense(len(pts), nil)
			for i, pt := range pts {
				a.Set(i, intercept[pt.size], 1)
				for k, c := range refillCol {
					if c >= 0 {
						a.Set(i, c, lines(pt, k == 0))
					}
				}
				b.SetVec(i, pt.y)
			}
			var x mat.VecDense
			if err := x.SolveVec(a, b); err != nil {
				continue // a singular system: this W explains nothing
			}
			var r [2]float64
			for k, c := range refillCol {
				if c >= 0 {
					r[k] = x.AtVec(c)
				}
			}
			if r[0] < 0 || r[1] < 0 || math.Round(r[0])+math.Round(r[1]) == 0 {
				continue // a refill that shrinks, or none at whole ns a line
			}
			var res mat.VecDense
			res.MulVec(a, &x)
			res.SubVec(&res, b)
			if sse := mat.Dot(&res, &res); sse < bestErr {
				bestErr = sse
				best = q
				best.RefillLLC = time.Duration(r[0] + 0.5)
				best.RefillMemory = time.Duration(r[1] + 0.5)
			}
		}
	}
	return best
}

// footprintFitMissing returns why fitFootprint cannot fit the rings ms with
// the caches l2 and llc (bytes), or "" when it can: it needs two working
// sets measured at two ring sizes or more each, and both caches' sizes.
func footprintFitMissing(ms [len(RingWorkingSets)][len(RingThreads)]Measurement, l2, llc int64) string {
	sets := 0
	for _, row := range ms {
		n := 0
		for _, m := range row {
			if m.Repeats > 0 {
				n++
			}
		}
		if n >= 2 {
			sets++
		}
	}
	switch {
	case sets < 2:
		return fmt.Sprintf("it needs two working sets measured at two ring sizes or more each, and has %d (every ring measured: -max-ring %d)", sets, RingThreads[len(RingThreads)-1])
	case l2 <= 0 || llc <= 0:
		return "this system does not give its L2 and last-level cache sizes (sysfs cacheinfo)"
	case llc < l2:
		return fmt.Sprintf("the last-level cache (%d bytes) is smaller than L2 (%d bytes)", llc, l2)
	}
	return ""
}
