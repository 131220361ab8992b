package calibrate

import (
	"runtime"
	"time"
)

// channelHandoff ping-pongs rounds times between the caller and a partner
// goroutine over two unbuffered channels and returns the cost of one handoff (half
// a round trip). With locked set, both goroutines are locked to their OS threads,
// so every handoff parks one thread and wakes the other. One exchange before the
// clock starts brings the partner and its thread into existence.
func channelHandoff(rounds int, locked bool) (float64, error) {
	ping, pong := make(chan struct{}), make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		if locked {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
		}
		for i := 0; i <= rounds; i++ {
			<-ping
			pong <- struct{}{}
		}
	}()
	if locked {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
	}
	ping <- struct{}{}
	<-pong
	start := time.Now()
	for i := 0; i < rounds; i++ {
		ping <- struct{}{}
		<-pong
	}
	elapsed := time.Since(start)
	<-done
	return perOp(elapsed, 2*rounds), nil
}
