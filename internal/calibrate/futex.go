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
