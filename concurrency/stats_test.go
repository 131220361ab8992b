package concurrency

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestHistogramQuantileOutsideZeroToOne: a q below 0 reads as 0 (the smallest
// bucket holding a sample), above 1 as 1, and NaN gives 0 — never the largest
// bucket for a negative q, which the float-to-unsigned conversion of a negative
// rank gave.
func TestHistogramQuantileOutsideZeroToOne(t *testing.T) {
	var h Histogram
	h.Buckets[bucketOf(time.Microsecond)] = 5     // [1, 2) µs
	h.Buckets[bucketOf(900*time.Microsecond)] = 5 // [896, 1024) µs
	tests := []struct {
		name string
		q    float64
		want time.Duration
	}{
		{"zero", 0, 2 * time.Microsecond},
		{"one", 1, 1024 * time.Microsecond},
		{"negative reads as zero", -0.5, 2 * time.Microsecond},
		{"far negative reads as zero", -100, 2 * time.Microsecond},
		{"above one reads as one", 2, 1024 * time.Microsecond},
		{"NaN gives zero", math.NaN(), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, h.Quantile(tt.q))
		})
	}
}

// TestHistogramBucketsAreAQuarterOctaveWide: every duration lands in a bucket
// whose upper edge is above it and at most 25% (or, under 4 µs, 1 µs) above
// it, and the buckets' edges increase.
func TestHistogramBucketsAreAQuarterOctaveWide(t *testing.T) {
	for _, d := range []time.Duration{0, 999, time.Microsecond, 1999, 2 * time.Microsecond, 3*time.Microsecond + 999,
		4 * time.Microsecond, 5 * time.Microsecond, 7 * time.Microsecond, 1023 * time.Microsecond, time.Millisecond,
		1024 * time.Microsecond, 1279 * time.Microsecond, 1280 * time.Microsecond, 2 * time.Millisecond, time.Second, time.Hour} {
		i := bucketOf(d)
		up := bucketUpper(i)
		assert.Greater(t, up, d, "%v in bucket %d below %v", d, i, up)
		if d >= 4*time.Microsecond {
			assert.LessOrEqual(t, float64(up), 1.25*float64(d)+1, "%v: upper edge %v", d, up)
		} else {
			assert.LessOrEqual(t, up-d, time.Microsecond+time.Microsecond, "%v: upper edge %v", d, up)
		}
		if i > 0 {
			assert.LessOrEqual(t, bucketUpper(i-1), d, "%v: the bucket below ends above it", d)
		}
	}
	for i := 1; i < HistogramBuckets; i++ {
		assert.Less(t, bucketUpper(i-1), bucketUpper(i), "bucket %d", i)
	}
	assert.Equal(t, HistogramBuckets-1, bucketOf(1<<62))
}
