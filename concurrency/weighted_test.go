package concurrency

import (
	"context"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sync/semaphore"
)

// TestWeightedStress: 16 goroutines acquire random weights (TryAcquire
// first now and then, a fifth of the Acquire calls under a context that ends
// at a random moment, some already ended) and release them, with one
// goroutine taking the whole size now and then. The weight held, counted
// by the callers between a successful acquire and the release, never
// exceeds the size; every call returns; and at the end the whole size can be
// taken at once. INNOSIM_STRESS=long makes it ten times longer.
func TestWeightedStress(t *testing.T) {
	const size, goroutines = 6, 16
	rounds := 5000
	if stressLong() {
		rounds *= 10
	}
	s := NewWeighted(size)
	var held, most atomic.Int64
	var over, failed, acquired atomic.Int64
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	var wg sync.WaitGroup
	for w := range goroutines {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 5))
			for range rounds {
				n := int64(1 + rng.IntN(3))
				if w == 0 && rng.IntN(10) == 0 {
					n = size // the large request that small ones must not starve
				}
				ok := rng.IntN(4) == 0 && s.TryAcquire(n)
				if !ok {
					ctx, cancel := context.Background(), context.CancelFunc(func() {})
					switch x := rng.IntN(100); {
					case x < 2:
						ctx = ended
					case x < 20:
						ctx, cancel = context.WithTimeout(ctx, time.Duration(rng.IntN(200))*time.Microsecond)
					}
					err := s.Acquire(ctx, n)
					cancel()
					if err != nil {
						failed.Add(1)
						continue
					}
				}
				acquired.Add(1)
				h := held.Add(n)
				if h > size {
					over.Add(1)
				}
				for m := most.Load(); h > m && !most.CompareAndSwap(m, h); m = most.Load() {
				}
				for range rng.IntN(32) {
					_ = rng.Uint64()
				}
				if rng.IntN(4) == 0 {
					runtime.Gosched() // let others find the weight held
				}
				held.Add(-n)
				s.Release(n)
			}
		})
	}
	wg.Wait()
	assert.Zero(t, over.Load(), "weight held passed the size (at most %d seen)", most.Load())
	assert.Equal(t, int64(goroutines*rounds), acquired.Load()+failed.Load())
	require.True(t, s.TryAcquire(size), "the whole size is free at the end")
	s.Release(size)
	t.Logf("%d acquired, %d failed on their context, at most %d of %d held", acquired.Load(), failed.Load(), most.Load(), size)
}

// TestWeightedPanicsAsXSync: a negative weight, a negative size and a
// release of more than is held panic in both; Weighted's over-release leaves
// it as it was (x/sync's leaves its count below zero).
func TestWeightedPanicsAsXSync(t *testing.T) {
	x, w := semaphore.NewWeighted(2), NewWeighted(2)
	for _, tt := range []struct {
		name       string
		xsync, our func()
	}{
		{"NewWeighted(-1)", func() { semaphore.NewWeighted(-1) }, func() { NewWeighted(-1) }},
		{"Acquire(-1)", func() { _ = x.Acquire(context.Background(), -1) }, func() { _ = w.Acquire(context.Background(), -1) }},
		{"TryAcquire(-1)", func() { x.TryAcquire(-1) }, func() { w.TryAcquire(-1) }},
		{"Release(-1)", func() { x.Release(-1) }, func() { w.Release(-1) }},
		{"Release(1) with nothing held", func() { semaphore.NewWeighted(2).Release(1) }, func() { w.Release(1) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			assert.Panics(t, tt.xsync, "x/sync")
			assert.Panics(t, tt.our, "Weighted")
		})
	}
	require.True(t, w.TryAcquire(1))
	ctx, cancel := context.WithCancel(context.Background())
	parked := make(chan error, 1)
	go func() { parked <- w.Acquire(ctx, 2) }()
	waitFor(t, "the Acquire(2) waits", func() bool { return !w.TryAcquire(0) })
	assert.Panics(t, func() { w.Release(2) }, "over-release with a waiter queued (the slow path)")
	w.Release(1) // the mutex was let go before the panic, and nothing changed
	require.NoError(t, <-parked)
	w.Release(2)
	cancel()
	assert.True(t, w.TryAcquire(2), "whole again")
}

// TestWeightedAllocatesNothingWithoutWaiting: the uncontended Acquire,
// TryAcquire and Release are a CAS each; a wait reuses its waiter.
func TestWeightedAllocatesNothingWithoutWaiting(t *testing.T) {
	s := NewWeighted(4)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	allocs := testing.AllocsPerRun(1000, func() {
		if err := s.Acquire(ctx, 2); err != nil {
			t.Fatal(err)
		}
		if !s.TryAcquire(2) {
			t.Fatal("TryAcquire(2) failed with 2 free")
		}
		s.Release(4)
	})
	assert.Zero(t, allocs)
}
