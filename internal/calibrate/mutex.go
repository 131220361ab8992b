package calibrate

import (
	"fmt"
	"runtime"
	"sync"
	"time"
)

// mutexScale is how many more operations the mutex probe runs per round than the
// others: an acquisition costs about a hundredth of a handoff or a pipe round trip.
const mutexScale = 100

// mutexHandoff measures one Lock/Unlock of a sync.Mutex fought over by
// 2×GOMAXPROCS goroutines with an empty critical section (one increment): the
// cost per acquisition when the lock is always wanted, which mixes spinning,
// barging, semaphore sleeps and wake-ups in the proportions this machine
// produces. Each goroutine takes the lock mutexScale×rounds times, which keeps the
// timed region as long as the other probes' and long against the skew of the
// goroutines' start (they wait together on a closed channel): with a few hundred
// acquisitions each, the first goroutine finishes before the others run and the
// figure is that of an uncontended lock. The figure still depends on the second
// core being free: on a shared machine some measurements run the goroutines one
// at a time (about the uncontended 5-6 ns on the 2-core build machine, against
// 12-19 ns when they overlap), which the quartiles show.
func mutexHandoff(rounds int) (float64, error) {
	rounds *= mutexScale
	workers := 2 * runtime.GOMAXPROCS(0)
	var (
		mu    sync.Mutex
		count int
		wg    sync.WaitGroup
	)
	gate := make(chan struct{})
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-gate
			for i := 0; i < rounds; i++ {
				mu.Lock()
				count++
				mu.Unlock()
			}
		}()
	}
	start := time.Now()
	close(gate)
	wg.Wait()
	elapsed := time.Since(start)
	if count != workers*rounds {
		return 0, fmt.Errorf("mutex: %d increments, want %d", count, workers*rounds)
	}
	return perOp(elapsed, workers*rounds), nil
}
