package calibrate

import (
	"runtime"
	"time"

	"github.com/innosim/innosim/internal/futex"
)

// futexRoundTrip measures one round trip between two locked OS threads on two
// futex.Events: the caller sets ping and waits on pong; the partner waits on ping,
// resets it and sets pong. Each side sleeps in FUTEX_WAIT and is woken by the
// other's FUTEX_WAKE, the path of an AIO handler thread woken for a request
// (os_event_set / os_event_wait in InnoDB). Each side resets its event before
// setting the other's, so no Set is lost and no Wait returns early.
//
// With wakeCall set it returns instead the time the caller spends inside its
// Set, the FUTEX_WAKE that wakes the sleeping partner: the waker's share of the
// round trip (on a VM, where waking another CPU exits to the hypervisor, about
// half of it).
func futexRoundTrip(rounds int, wakeCall bool) (float64, error) {
	var ping, pong futex.Event
	done := make(chan struct{})
	started := make(chan uint32)
	go func() {
		defer close(done)
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		c := ping.Reset()
		started <- c
		for i := 0; i <= rounds; i++ {
			ping.Wait(c)
			c = ping.Reset()
			pong.Set()
		}
	}()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	<-started
	var inSet time.Duration
	exchange := func(timeSet bool) {
		c := pong.Reset()
		if timeSet {
			t0 := time.Now()
			ping.Set()
			inSet += time.Since(t0)
		} else {
			ping.Set()
		}
		pong.Wait(c)
	}
	exchange(false) // warm-up
	start := time.Now()
	for i := 0; i < rounds; i++ {
		exchange(wakeCall)
	}
	elapsed := time.Since(start)
	<-done
	if wakeCall {
		return perOp(inSet, rounds), nil
	}
	return perOp(elapsed, rounds), nil
}

// idleGap is how long the woken thread's CPU is left idle before each wake in
// futexIdleWake: long enough for an idle CPU to stop polling and halt (KVM's
// default halt-polling window is 200 µs), as the CPUs of a latency-bound
// benchmark do between requests.
const idleGap = 500 * time.Microsecond

// idleWakeRounds caps futexIdleWake's wakes per measurement: each costs an
// idleGap.
const idleWakeRounds = 40

// futexIdleWake measures the time from a Set on a futex.Event to the thread
// sleeping on it running again, when that thread's CPU has been idle for
// idleGap: the waker sleeps idleGap, stamps the clock and sets the event; the
// sleeper stamps the clock when its Wait returns. On a VM this is the wake-up of
// a halted virtual CPU, several times the wake of a polling one.
func futexIdleWake(rounds int) (float64, error) {
	rounds = min(rounds, idleWakeRounds)
	var ev futex.Event
	var sent, woke [idleWakeRounds + 1]time.Time
	ready := make(chan uint32)
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		c := ev.Reset()
		for i := 0; i <= rounds; i++ {
			ready <- c
			ev.Wait(c)
			woke[i] = time.Now()
			c = ev.Reset()
		}
	}()
	var total time.Duration
	for i := 0; i <= rounds; i++ {
		<-ready
		time.Sleep(idleGap)
		sent[i] = time.Now()
		ev.Set()
	}
	<-done
	for i := 1; i <= rounds; i++ { // round 0 is a warm-up
		total += woke[i].Sub(sent[i])
	}
	return perOp(total, rounds), nil
}
