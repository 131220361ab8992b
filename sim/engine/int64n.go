package engine

import (
	"math/bits"
	"math/rand/v2"
)

// int64n draws uniformly in [0, n) from pcg, as math/rand/v2's Rand.Int64N
// does on every platform, output for output: a power of two masks one
// output; any other n takes the high word of output × n, drawing again while
// the low word falls in the biased range below 2^64 mod n (D. Lemire, "Fast
// random integer generation in an interval", ACM TOMACS 29(1), 2019). It
// panics if n ≤ 0. Called on the concrete PCG, its draws inline, where
// Rand's go through the rand.Source interface.
func int64n(pcg *rand.PCG, n int64) int64 {
	if n <= 0 {
		panic("engine: Int64N of a bound ≤ 0")
	}
	u := uint64(n)
	if u&(u-1) == 0 {
		return int64(pcg.Uint64() & (u - 1))
	}
	hi, lo := bits.Mul64(pcg.Uint64(), u)
	if lo < u {
		for thresh := -u % u; lo < thresh; {
			hi, lo = bits.Mul64(pcg.Uint64(), u)
		}
	}
	return int64(hi)
}
