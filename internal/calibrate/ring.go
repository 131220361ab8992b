package calibrate

import (
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/innosim/innosim/internal/futex"
)

// RingThreads are the ring sizes of the switch probe, and RingWorkingSet the
// bytes each thread of a ring touches per turn.
var RingThreads = [...]int{2, 16, 128, 1024}

// RingWorkingSet is what each ring thread writes per turn, one byte per cache
// line: 16 KiB, of the order of a server thread's stack and per-connection
// state that a statement touches (a guess: no source measures it).
const RingWorkingSet = 16 << 10

// ringSwitch is lmbench's lat_ctx on locked OS threads (McVoy and Staelin,
// "lmbench: portable tools for performance analysis", USENIX 1996): n threads
// pass one token around a ring through futex.Events, each touching its own
// RingWorkingSet bytes when the token reaches it, then setting the next
// thread's event and waiting on its own. It returns the wall time per pass
// (a wake, a switch and the touch, on whatever CPU the kernel picks) over
// max(rounds, 2n) passes, the threads' creation excluded. Every thread exits
// before it returns.
func ringSwitch(n, rounds int) (float64, error) {
	if !futex.Supported() {
		return 0, errSkipped
	}
	passes := max(rounds, 2*n)
	evs := make([]futex.Event, n)
	var (
		ready, done sync.WaitGroup
		count       atomic.Int64
		stop        atomic.Bool
		end         time.Time
	)
	ready.Add(n)
	done.Add(n)
	for i := range n {
		go func() {
			defer done.Done()
			runtime.LockOSThread() // never unlocked: the thread exits with the goroutine
			buf := make([]byte, RingWorkingSet)
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
	return perOp(end.Sub(start), passes), nil
}

// fitSwitchGrowth fits cost = a + b × log2(threads/2) to the ring probe's
// medians by least squares and returns b, the cost per doubling of the ring
// (0 if the fit slopes down, or fewer than two sizes were measured).
func fitSwitchGrowth(ms [len(RingThreads)]Measurement) time.Duration {
	var xs, ys []float64
	for i, m := range ms {
		if m.Repeats > 0 {
			xs = append(xs, math.Log2(float64(RingThreads[i])/2))
			ys = append(ys, float64(m.Median))
		}
	}
	if len(xs) < 2 {
		return 0
	}
	var mx, my float64
	for i := range xs {
		mx += xs[i]
		my += ys[i]
	}
	mx /= float64(len(xs))
	my /= float64(len(xs))
	var sxy, sxx float64
	for i := range xs {
		sxy += (xs[i] - mx) * (ys[i] - my)
		sxx += (xs[i] - mx) * (xs[i] - mx)
	}
	return time.Duration(max(sxy/sxx, 0) + 0.5)
}
