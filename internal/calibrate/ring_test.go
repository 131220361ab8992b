package calibrate

import (
	"testing"
	"time"

	"github.com/innosim/innosim/internal/futex"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRingSwitchPassesTheTokenAndEndsEveryThread(t *testing.T) {
	if !futex.Supported() {
		t.Skip("no futex here")
	}
	for _, n := range []int{2, 64} {
		v, err := ringSwitch(n, 50)
		require.NoError(t, err)
		assert.Greater(t, v, 0.0, "n=%d", n)
		assert.Less(t, v, float64(100*time.Millisecond), "n=%d: a pass takes µs, not a timeout", n)
	}
}

func TestFitSwitchGrowthIsTheSlopePerDoubling(t *testing.T) {
	m := func(d time.Duration) Measurement { return Measurement{Median: d, Repeats: 5} }
	// 10 µs at 2 threads, 2 µs more per doubling: 16 is 3 doublings, 128 six, 1024 nine
	got := fitSwitchGrowth([len(RingThreads)]Measurement{m(10 * time.Microsecond), m(16 * time.Microsecond),
		m(22 * time.Microsecond), m(28 * time.Microsecond)})
	assert.Equal(t, 2*time.Microsecond, got)
	assert.Zero(t, fitSwitchGrowth([len(RingThreads)]Measurement{m(20 * time.Microsecond), {}, {}, m(10 * time.Microsecond)}),
		"a ring that gets cheaper grows by nothing")
	assert.Zero(t, fitSwitchGrowth([len(RingThreads)]Measurement{m(20 * time.Microsecond)}), "one size: no fit")
	c := Costs{Ring: [len(RingThreads)]Measurement{m(10 * time.Microsecond), m(16 * time.Microsecond), {}, {}}}
	assert.Equal(t, 2*time.Microsecond, c.Profile("x").SwitchGrowth)
	measured, _ := c.sources()
	assert.Contains(t, measured, "switch_growth")
}
