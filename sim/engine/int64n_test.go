package engine

import (
	"math"
	"testing"
)

// TestEngineInt64NIsRandsDraw pins that Int64N draws what Rand().Int64N
// would, from the same stream: two engines of one seed, one drawing through
// each, agree on every bound (powers of two, bounds that reject a quarter
// of the outputs, the largest), and draws through either on one engine take
// turns on the one stream.
func TestEngineInt64NIsRandsDraw(t *testing.T) {
	bounds := []int64{1, 2, 3, 7, 10000, 1 << 20, 1e9, 1<<62 + 1, 3 << 61, math.MaxInt64}
	a, b := New(9), New(9)
	for i := range 20000 {
		n := bounds[i%len(bounds)]
		if got, want := a.Int64N(n), b.Rand().Int64N(n); got != want {
			t.Fatalf("draw %d, Int64N(%d) = %d, Rand().Int64N(%d) = %d", i, n, got, n, want)
		}
	}
	c, d := New(5), New(5)
	for i := range 1000 {
		if i%3 == 0 {
			if got, want := c.Rand().Uint64(), d.Rand().Uint64(); got != want {
				t.Fatalf("draw %d: Rand().Uint64 %#x after Int64N's, want %#x", i, got, want)
			}
			continue
		}
		if got, want := c.Int64N(1000), d.Rand().Int64N(1000); got != want {
			t.Fatalf("draw %d: Int64N %d after Rand's, want %d", i, got, want)
		}
	}
}

func TestEngineInt64NPanicsOnABoundBelowOne(t *testing.T) {
	for _, n := range []int64{0, -1, math.MinInt64} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Int64N(%d) did not panic", n)
				}
			}()
			New(1).Int64N(n)
		}()
	}
}
