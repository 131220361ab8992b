package concurrency

import (
	"fmt"
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

// TestStatsStringIsWhatAnOperatorReads: %v and %+v of a Stats print its
// String, one line of counts, waits and wait quantiles, not a dump of the
// histogram's buckets; counters of mechanisms that did not act are left out.
func TestStatsStringIsWhatAnOperatorReads(t *testing.T) {
	var h Histogram
	for _, d := range []time.Duration{3 * time.Microsecond, 10 * time.Microsecond, 11 * time.Microsecond, 90 * time.Microsecond} {
		h.Add(d)
	}
	busy := Stats{
		Enters: 120, TicketEnters: 480, ForceEnters: 3, Exits: 121, Inside: 2, Waiting: 1,
		Waits: 6, WaitsAdmitted: 4, Canceled: 1, PassedOn: 1, WaitsHigh: 2,
		Handoffs: 4, StarvationHandoffs: 1, Kickups: 1, BargeWakes: 3, BargeLosses: 1,
		WaitTime: h, P50Wait: h.Quantile(0.5), P99Wait: h.Quantile(0.99), MaxWait: 90 * time.Microsecond,
	}
	tests := []struct {
		name  string
		stats Stats
		want  string
	}{
		{"nothing happened", Stats{}, "inside 0, waiting 0; enters 0, exits 0; waits 0"},
		{"every mechanism acted", busy, "inside 2, waiting 1; enters 120 (480 on tickets, 3 forced), exits 121; " +
			"waits 6: 4 admitted, 1 canceled, 1 passed on, 2 in the high class; 4 handoffs (1 at the starvation bound); " +
			"1 kickups; 3 barge wakes (1 lost); wait p50 ≤ 12µs, p99 ≤ 12µs, max 90µs"},
		{"a sleeping gate", Stats{Enters: 5, Exits: 5, Waits: 2, WaitsAdmitted: 2, Sleeps: 3, LockHolderBypasses: 1,
			P50Wait: 10 * time.Millisecond, P99Wait: 12 * time.Millisecond, MaxWait: 11 * time.Millisecond},
			"inside 0, waiting 0; enters 5 (1 lock holders past the limit), exits 5; waits 2: 2 admitted, 0 canceled; " +
				"3 sleeps; wait p50 ≤ 10ms, p99 ≤ 12ms, max 11ms"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.stats.String())
			assert.Equal(t, tt.want, fmt.Sprintf("%v", tt.stats))
			assert.Equal(t, tt.want, fmt.Sprintf("%+v", tt.stats), "%%+v prints String too, not the buckets")
		})
	}
}

// TestHistogramStringGivesQuantiles: a Histogram prints its sample count and
// quantiles (upper bucket edges), not its buckets.
func TestHistogramStringGivesQuantiles(t *testing.T) {
	var h Histogram
	assert.Equal(t, "no samples", h.String())
	for i := range 100 {
		h.Add(time.Duration(i+1) * time.Microsecond)
	}
	assert.Equal(t, "100 samples: p50 ≤ 56µs, p90 ≤ 96µs, p99 ≤ 112µs, p100 ≤ 112µs", h.String())
	assert.Equal(t, h.String(), fmt.Sprintf("%+v", h))
}
