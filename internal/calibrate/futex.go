package calibrate

import (
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/innosim/innosim/internal/futex"
)

// errSkipped is returned by a probe that cannot run here (threads cannot be
// pinned, or there is one CPU for a probe that needs two): Measure leaves its
// figure zero, and Profile keeps sim.OldKernel's value for what it feeds.
var errSkipped = errors.New("calibrate: probe cannot run on this machine")

// pinnedCPUs returns the first n CPUs this process may run on, or errSkipped.
func pinnedCPUs(n int) ([]int, error) {
	if !futex.Supported() {
		return nil, errSkipped
	}
	cpus, err := cpusAllowed()
	if err != nil || len(cpus) < n {
		return nil, errSkipped
	}
	return cpus[:n], nil
}

// pingPong runs pairs ping-pongs of rounds round trips each, every one between
// two locked OS threads on two futex.Events, the "ping" side pinned to CPU a
// and the "pong" side to CPU b: the ping side resets pong, sets ping and waits
// on pong; the pong side waits on ping, resets it and sets pong (as an AIO
// handler is woken and answers, os_event_set / os_event_wait in InnoDB). Each
// side resets its event before setting the other's, so no Set is lost and no
// Wait returns early. It returns the wall time of all pairs' round trips from
// a common start, and the FUTEX_WAIT + FUTEX_WAKE calls they made. One
// exchange per pair before the start brings the threads into existence.
// The pinned threads exit with their goroutines (they are never unlocked). If
// a thread cannot be pinned the ping-pongs still run to the end, and pingPong
// returns errSkipped.
func pingPong(rounds, pairs, a, b int) (time.Duration, uint64, error) {
	type pair struct{ ping, pong futex.Event }
	ps := make([]pair, pairs)
	var ready, done sync.WaitGroup
	start := make(chan struct{})
	errs := make(chan error, 2*pairs)
	for i := range ps {
		p := &ps[i]
		reset := make(chan struct{}) // the pong side has reset ping: ping may be set
		ready.Add(1)
		done.Add(2)
		go func() { // pong side
			defer done.Done()
			runtime.LockOSThread()
			if err := pinThread(b); err != nil {
				errs <- err
			}
			c := p.ping.Reset()
			close(reset)
			for j := 0; j <= rounds; j++ {
				p.ping.Wait(c)
				c = p.ping.Reset()
				p.pong.Set()
			}
		}()
		go func() { // ping side
			defer done.Done()
			runtime.LockOSThread()
			if err := pinThread(a); err != nil {
				errs <- err
			}
			exchange := func() {
				c := p.pong.Reset()
				p.ping.Set()
				p.pong.Wait(c)
			}
			<-reset
			exchange() // warm-up
			ready.Done()
			<-start
			for j := 0; j < rounds; j++ {
				exchange()
			}
		}()
	}
	ready.Wait()
	var calls0 uint64
	for i := range ps {
		calls0 += ps[i].ping.Syscalls() + ps[i].pong.Syscalls()
	}
	t0 := time.Now()
	close(start)
	done.Wait()
	elapsed := time.Since(t0)
	if len(errs) > 0 {
		return 0, 0, errSkipped
	}
	var calls uint64
	for i := range ps {
		calls += ps[i].ping.Syscalls() + ps[i].pong.Syscalls()
	}
	return elapsed, calls - calls0, nil
}

// futexRoundTrip measures one round trip of pingPong with both threads pinned
// to one CPU: each wake puts the woken thread on the waker's CPU, as the
// kernel does when the woken thread's CPU is busy, so the figure is the local
// wake path (no interrupt to another CPU).
func futexRoundTrip(rounds int) (float64, error) {
	cpus, err := pinnedCPUs(1)
	if err != nil {
		return 0, err
	}
	elapsed, _, err := pingPong(rounds, 1, cpus[0], cpus[0])
	return perOp(elapsed, rounds), err
}

// wakePreempt measures, in the same one-CPU ping-pong, the share of wakes in
// which the woken thread preempts the waker as its FUTEX_WAKE returns, from the
// futex calls per round trip: when the woken side preempts, it answers before
// the waker has gone to sleep, so the round trip is one FUTEX_WAKE and one
// FUTEX_WAIT; when it does not, the waker sleeps first and must be woken back:
// two of each. A wake preempts with probability p, so a wake covers a whole
// round trip with probability p and half of one otherwise: 2/(1+p) wakes and as
// many waits per round trip, 4/(1+p) calls, p = 4/calls − 1 (clamped to 0..1).
func wakePreempt(rounds int) (float64, error) {
	cpus, err := pinnedCPUs(1)
	if err != nil {
		return 0, err
	}
	_, calls, err := pingPong(rounds, 1, cpus[0], cpus[0])
	if err != nil {
		return 0, err
	}
	return preemptShare(rounds, calls), nil
}

// preemptShare is wakePreempt's p = 4/c − 1 for c futex calls per round trip
// over rounds round trips, clamped to 0..1 (1 if no call was made).
func preemptShare(rounds int, calls uint64) float64 {
	if calls == 0 {
		return 1
	}
	p := 4*float64(rounds)/float64(calls) - 1
	return min(max(p, 0), 1)
}

// loadedPairs is how many ping-pongs futexLoadedHandoff runs on one CPU at
// once: enough that a thread that wakes another finds the CPU's run queue
// occupied, as on a CPU shared by several busy threads.
const loadedPairs = 4

// futexLoadedHandoff measures one handoff (half a round trip) of pingPong with
// loadedPairs ping-pongs pinned to one CPU at once, sharing rounds round trips
// between them: with other threads runnable, a woken thread waits its turn
// rather than preempting its waker, so each handoff is a FUTEX_WAKE, the
// waker's FUTEX_WAIT and a switch to the next thread.
func futexLoadedHandoff(rounds int) (float64, error) {
	cpus, err := pinnedCPUs(1)
	if err != nil {
		return 0, err
	}
	each := max(rounds/loadedPairs, 1)
	elapsed, _, err := pingPong(each, loadedPairs, cpus[0], cpus[0])
	return perOp(elapsed, 2*each*loadedPairs), err
}

// remoteGap is how long the woken thread's CPU has been idle when
// futexRemoteWake wakes it: tens of µs, as between the requests of a busy
// benchmark, and short of the few hundred µs after which a hypervisor may
// deschedule an idle virtual CPU (KVM's default halt_poll_ns is 200 µs), whose
// wake-up is slower still.
const remoteGap = 30 * time.Microsecond

// remoteRounds caps futexRemoteWake's wakes per measurement: each costs a
// remoteGap and a cross-CPU wake.
const remoteRounds = 200

// futexRemoteWake measures a wake onto another CPU: a sleeper locked to the
// second CPU waits on a futex.Event; the waker, locked to the first and running
// (it spins), waits until the sleeper has been in Wait for remoteGap, then sets
// the event. With wakeCall set it returns the waker's time inside that Set (the
// FUTEX_WAKE call, which sends the other CPU an interrupt: a hypervisor exit on
// a VM); otherwise the time from the Set's start to the sleeper running again.
// It needs two CPUs (errSkipped otherwise), and takes at most remoteRounds
// wakes whatever rounds says.
func futexRemoteWake(rounds int, wakeCall bool) (float64, error) {
	cpus, err := pinnedCPUs(2)
	if err != nil {
		return 0, err
	}
	rounds = min(rounds, remoteRounds)
	var (
		ev     futex.Event
		asleep atomic.Int64 // ns since origin when the sleeper last entered Wait, 0 once seen
		woke   atomic.Int64 // ns since origin when the sleeper last left Wait
		total  time.Duration
		errs   = make(chan error, 2)
		wg     sync.WaitGroup
	)
	origin := time.Now()
	since := func() int64 { return int64(time.Since(origin)) + 1 }
	wg.Add(2)
	go func() { // sleeper
		defer wg.Done()
		runtime.LockOSThread()
		if err := pinThread(cpus[1]); err != nil {
			errs <- err
		}
		c := ev.Reset()
		for i := 0; i <= rounds; i++ {
			asleep.Store(since())
			ev.Wait(c)
			woke.Store(since())
			c = ev.Reset()
		}
	}()
	go func() { // waker
		defer wg.Done()
		runtime.LockOSThread()
		if err := pinThread(cpus[0]); err != nil {
			errs <- err
		}
		for i := 0; i <= rounds; i++ {
			var at int64
			for at = asleep.Load(); at == 0; at = asleep.Load() {
			}
			asleep.Store(0)
			woke.Store(0)
			for since() < at+int64(remoteGap) {
			}
			t0 := since()
			ev.Set()
			t1 := since()
			var w int64
			for w = woke.Load(); w == 0; w = woke.Load() {
			}
			if i == 0 { // warm-up
				continue
			}
			if wakeCall {
				total += time.Duration(t1 - t0)
			} else {
				total += time.Duration(w - t0)
			}
		}
	}()
	wg.Wait()
	if len(errs) > 0 {
		return 0, errSkipped
	}
	return perOp(total, rounds), nil
}
