package contention_test

import (
	"fmt"
	"sync"

	"github.com/innosim/innosim/internal/contention"
)

// Measure how much of a piece of work's CPU goes to lock and futex code.
func ExampleMeasure() {
	share, err := contention.Measure(func() {
		var (
			mu sync.Mutex
			n  int
			wg sync.WaitGroup
		)
		for g := 0; g < 4; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < 10000; i++ {
					mu.Lock()
					n++
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(share.Percent() >= 0 && share.Percent() <= 100)
	// Output: true
}
