package concurrency_test

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/innosim/innosim/concurrency"
)

// Weighted bounds concurrent work as x/sync's semaphore does: Acquire before,
// Release after, and at most the size's worth of work runs at once.
func ExampleWeighted() {
	const pages = 8
	sem := concurrency.NewWeighted(3) // at most three page reads at once
	var mu sync.Mutex
	var running, most int
	var wg sync.WaitGroup
	for range pages {
		if err := sem.Acquire(context.Background(), 1); err != nil {
			panic(err)
		}
		wg.Go(func() {
			defer sem.Release(1)
			mu.Lock()
			running++
			most = max(most, running)
			mu.Unlock()
			time.Sleep(time.Millisecond) // the read
			mu.Lock()
			running--
			mu.Unlock()
		})
	}
	wg.Wait()
	fmt.Println("at most", most, "at once")
	// Output:
	// at most 3 at once
}

// Acquire fails on a context that is already done, even with weight free, as
// x/sync's does; TryAcquire never waits.
func ExampleWeighted_Acquire() {
	sem := concurrency.NewWeighted(2)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	fmt.Println(sem.Acquire(ctx, 1))
	fmt.Println(sem.TryAcquire(2), sem.TryAcquire(1))
	sem.Release(2)
	// Output:
	// context canceled
	// true false
}

// A large request waits in order and is not starved by small ones: once the
// writer waits for the whole semaphore, readers that would fit queue behind
// it.
func ExampleWeighted_fairness() {
	const readers = 4
	sem := concurrency.NewWeighted(readers)
	if err := sem.Acquire(context.Background(), 1); err != nil { // one reader in
		panic(err)
	}
	writer := make(chan error)
	go func() { writer <- sem.Acquire(context.Background(), readers) }()
	for sem.TryAcquire(0) { // TryAcquire(0) fails once someone waits
		sem.Release(0)
		time.Sleep(time.Millisecond)
	}
	fmt.Println("a reader fits, but may it pass the writer?", sem.TryAcquire(1))
	sem.Release(1) // the reader leaves: the writer gets the whole semaphore
	fmt.Println("writer:", <-writer)
	sem.Release(readers)
	// Output:
	// a reader fits, but may it pass the writer? false
	// writer: <nil>
}

// A Gate's Enter and ForceExit are acquire and release; Exit is not: it keeps
// the seat while the Thread has tickets (InnoDB's protocol, for the rows of
// one statement). TryEnter is TryAcquire.
func ExampleHandoff_TryEnter() {
	g, err := concurrency.NewHandoff(concurrency.DefaultConfig(1))
	if err != nil {
		panic(err)
	}
	a, b := &concurrency.Thread{}, &concurrency.Thread{}
	fmt.Println("a:", g.TryEnter(a), "b:", g.TryEnter(b))
	g.Exit(a) // a keeps its seat on its tickets
	fmt.Println("after a's Exit, b:", g.TryEnter(b))
	g.ForceExit(a) // the release
	fmt.Println("after a's ForceExit, b:", g.TryEnter(b))
	g.ForceExit(b)
	// Output:
	// a: true b: false
	// after a's Exit, b: false
	// after a's ForceExit, b: true
}
