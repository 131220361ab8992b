package calibrate

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSummarizeShareMedianIsAMeasuredValue: the median Check compares against
// (-count runs of a case) and the one Measure reports is the middle
// measurement, not an interpolation below it: gonum's LinInterp quantile at
// 0.5 gave the mean of the 2nd and 3rd of 5 runs, and of the 1st and 2nd of 3.
// Whole-nanosecond rounding hid it in TestSummarize; ns/op and shares are not
// rounded. An even count takes the lower of the middle two, as before.
func TestSummarizeShareMedianIsAMeasuredValue(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    []float64
		want float64
	}{
		{"one run", []float64{7}, 7},
		{"three runs", []float64{0.3, 0.1, 0.2}, 0.2},
		{"five runs of ns/op", []float64{21000, 28000, 16000, 26000, 19000}, 21000},
		{"five runs with an outlier", []float64{10, 11, 12, 10, 1000}, 11},
		{"two runs: the lower", []float64{28799, 21787}, 21787},
		{"four runs: the lower middle", []float64{4, 1, 2, 3}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := summarizeShare(tc.v)
			require.Equal(t, tc.want, s.Median)
			require.True(t, s.Min <= s.Q1 && s.Q1 <= s.Median && s.Median <= s.Q3 && s.Q3 <= s.Max, "%+v", s)
		})
	}
}
