package calibrate

import (
	"bytes"
	"context"
	"math"
	"testing"
	"time"

	"github.com/innosim/innosim/aio"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCheckCaseBounds(t *testing.T) {
	tests := []struct {
		name                string
		predicted, measured float64
		ratio               float64
		pass                bool
	}{
		{"exact", 1000, 1000, 1, true},
		{"35% over passes", 1350, 1000, 1.35, true},
		{"36% over fails", 1360, 1000, 1.36, false},
		{"35% under passes", 650, 1000, 0.65, true},
		{"36% under fails", 640, 1000, 0.64, false},
		{"nothing measured fails", 1000, 0, math.NaN(), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := CheckCase{Wake: aio.WakeAll, Handlers: 4, Predicted: tt.predicted, Measured: tt.measured}
			if math.IsNaN(tt.ratio) {
				assert.True(t, math.IsNaN(c.Ratio()))
			} else {
				assert.InDelta(t, tt.ratio, c.Ratio(), 1e-9)
			}
			assert.Equal(t, tt.pass, c.Pass())
		})
	}
}

func TestCheckReportRatiosAndVerdict(t *testing.T) {
	cases := func(all4, tg4, all32, tg32 [2]float64) []CheckCase {
		return []CheckCase{
			{Wake: aio.WakeAll, Handlers: 4, Predicted: all4[0], Measured: all4[1]},
			{Wake: aio.WakeAll, Handlers: 32, Predicted: all32[0], Measured: all32[1]},
			{Wake: aio.WakeTargeted, Handlers: 4, Predicted: tg4[0], Measured: tg4[1]},
			{Wake: aio.WakeTargeted, Handlers: 32, Predicted: tg32[0], Measured: tg32[1]},
		}
	}
	tests := []struct {
		name     string
		cases    []CheckCase
		ratio4   [2]float64 // predicted, measured wake-all/targeted at 4 handlers
		pass     bool
		wantLine string
	}{
		{"all within bounds",
			cases([2]float64{30000, 25000}, [2]float64{10000, 9000}, [2]float64{500000, 600000}, [2]float64{20000, 22000}),
			[2]float64{3, 25000.0 / 9000}, true, "check: PASS"},
		{"each case within ±35% but the ratio 32% off",
			cases([2]float64{33000, 25000}, [2]float64{7000, 9000}, [2]float64{600000, 600000}, [2]float64{22000, 22000}),
			[2]float64{33000.0 / 7000, 25000.0 / 9000}, false, "check: FAIL (1 of 6 outside the bounds)"},
		{"one case 50% off",
			cases([2]float64{30000, 25000}, [2]float64{13500, 9000}, [2]float64{600000, 600000}, [2]float64{22000, 22000}),
			[2]float64{30000.0 / 13500, 25000.0 / 9000}, false, "check: FAIL (1 of 6 outside the bounds)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewCheckReport(tt.cases)
			require.Len(t, r.Ratios, 2)
			assert.Equal(t, 4, r.Ratios[0].Handlers)
			assert.InDelta(t, tt.ratio4[0], r.Ratios[0].Predicted, 1e-9)
			assert.InDelta(t, tt.ratio4[1], r.Ratios[0].Measured, 1e-9)
			assert.Equal(t, tt.pass, r.Pass())
			assert.Equal(t, tt.wantLine, r.Verdict())
			var buf bytes.Buffer
			n, err := r.WriteTo(&buf)
			require.NoError(t, err)
			assert.Equal(t, int64(buf.Len()), n)
			assert.Contains(t, buf.String(), "policy=targeted/handlers=32")
			assert.Contains(t, buf.String(), tt.wantLine+"\n")
		})
	}
}

func TestCheckReportWithoutCasesFails(t *testing.T) {
	assert.False(t, NewCheckReport(nil).Pass())
}

func TestCheckRejectsBadOptions(t *testing.T) {
	tests := []struct {
		name string
		o    CheckOptions
		want string
	}{
		{"handler count 0", CheckOptions{Handlers: []int{0}}, "Handlers 0, want 1..64"},
		{"negative benchtime", CheckOptions{Benchtime: -time.Second}, "Benchtime = -1s, want 0..1m"},
		{"count 21", CheckOptions{Count: 21}, "Count = 21, want 0..20"},
		{"negative count", CheckOptions{Count: -1}, "Count = -1, want 0..20"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Check(context.Background(), tt.o)
			if err == ErrNoFutex {
				t.Skip(err)
			}
			require.ErrorIs(t, err, ErrInvalidConfig)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

// On a loaded machine one case's runs can spread wider than the ±35% bound;
// a miss of such a case says nothing about the prediction, and the verdict
// says so instead of FAIL (it said FAIL, 1 of 6 and 2 of 6, on a loaded 2-core
// machine).
func TestCheckVerdictAccountsForTheMeasuredSpread(t *testing.T) {
	quiet := func(wake aio.WakePolicy, h int, pred, meas float64) CheckCase {
		return CheckCase{Wake: wake, Handlers: h, Predicted: pred, Measured: meas,
			MeasuredMin: 0.95 * meas, MeasuredMax: 1.05 * meas, Runs: 5}
	}
	noisy := func(c CheckCase) CheckCase {
		c.MeasuredMin, c.MeasuredMax = 0.5*c.Measured, 1.4*c.Measured // ±45%
		return c
	}
	base := []CheckCase{
		quiet(aio.WakeAll, 4, 25000, 25000), quiet(aio.WakeTargeted, 4, 9000, 9000),
		quiet(aio.WakeAll, 32, 600000, 600000), quiet(aio.WakeTargeted, 32, 22000, 22000),
	}
	offNoisy := append([]CheckCase(nil), base...)
	offNoisy[0] = noisy(quiet(aio.WakeAll, 4, 40000, 25000)) // 60% over, runs ±45%
	r := NewCheckReport(offNoisy)
	assert.InDelta(t, 0.45, r.Cases[0].Spread(), 1e-9)
	assert.True(t, r.Cases[0].Inconclusive())
	assert.True(t, r.Inconclusive())
	assert.False(t, r.Pass(), "inconclusive is not a pass")
	assert.Contains(t, r.Verdict(), "check: INCONCLUSIVE (2 of 6 outside the bounds, but measured with a spread up to ±50%")
	assert.Contains(t, r.Verdict(), "quiet machine")
	var buf bytes.Buffer
	_, err := r.WriteTo(&buf)
	require.NoError(t, err)
	assert.Contains(t, buf.String(), "±45%")
	assert.Contains(t, buf.String(), "noisy")

	offQuiet := append([]CheckCase(nil), offNoisy...)
	offQuiet[3] = quiet(aio.WakeTargeted, 32, 44000, 22000) // 100% over, runs ±5%
	r = NewCheckReport(offQuiet)
	assert.False(t, r.Inconclusive(), "a quiet miss is a miss")
	assert.Equal(t, "check: FAIL (4 of 6 outside the bounds; 2 of them too noisy to count)", r.Verdict())

	assert.Zero(t, CheckCase{Measured: 1, MeasuredMin: 0, MeasuredMax: 2, Runs: 1}.Spread(), "one run has no spread")
	lo, hi := CheckOptions{}.Estimate()
	assert.Equal(t, 20*time.Second, lo, "2 policies × 2 handler counts × 5 runs × 1s")
	assert.Equal(t, 40*time.Second, hi)
}
