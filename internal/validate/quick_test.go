package validate

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/innosim/innosim/sim"
)

func TestShortenMakesCellsAQuickRunsOnlyUnderQuick(t *testing.T) {
	cells := func() []sim.Cell {
		return []sim.Cell{
			{Workload: "connect", Threads: 4},
			{Workload: "connect", Threads: 4, Warmup: 50 * time.Millisecond, Measure: 2 * time.Second, Steady: collapseSteady()},
			{Workload: "connect", Threads: 4, Measure: 10 * time.Microsecond},
		}
	}
	full := cells()
	Shorten(context.Background(), full)
	assert.Equal(t, cells(), full, "a full run's cells stay as they are")
	assert.False(t, IsQuick(context.Background()))

	ctx := Quick(context.Background())
	assert.True(t, IsQuick(ctx))
	quick := cells()
	Shorten(ctx, quick)
	assert.Equal(t, sim.DefaultWarmup/QuickScale, quick[0].Warmup, "the default warm-up, shortened")
	assert.Equal(t, sim.DefaultMeasure/QuickScale, quick[0].Measure)
	assert.Equal(t, 50*time.Millisecond/QuickScale, quick[1].Warmup)
	assert.Equal(t, 2*time.Second/QuickScale, quick[1].Measure)
	assert.Nil(t, quick[1].Steady, "no steady warm-up in a quick run")
	assert.Equal(t, time.Microsecond, quick[2].Measure, "never below 1 µs")
	for i := range quick {
		q := quick[i]
		q.Warmup, q.Measure, q.Steady = 0, 0, nil
		f := cells()[i]
		f.Warmup, f.Measure, f.Steady = 0, 0, nil
		assert.Equal(t, f, q, "cell %d: nothing else changes", i)
	}
}
