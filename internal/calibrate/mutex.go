package calibrate

import (
	"fmt"
	"runtime"
	"sync"
	"time"
)

// mutexHandoff measures one Lock/Unlock of a sync.Mutex fought over by
// 2×GOMAXPROCS goroutines with an empty critical section (one increment): the
// cost per acquisition when the lock is always wanted, which mixes spinning,
// barging, semaphore sleeps and wake-ups in the proportions this machine
// produces. Each goroutine takes the lock rounds times, so the skew of their start
// (they wait together on a closed channel) is small against the timed region.
func mutexHandoff(rounds int) (float64, error) {
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
