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
	h.Buckets[1] = 5  // [1, 2) µs
	h.Buckets[10] = 5 // [512, 1024) µs
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
