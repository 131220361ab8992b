package sim

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRunCellsKeepsInputOrder(t *testing.T) {
	var cells []Cell
	for _, th := range []int{1, 2, 4, 8} {
		cells = append(cells, Cell{Workload: "oltp_point_select", Threads: th, Measure: 5 * time.Millisecond,
			Machine: MachineConfig{CPUs: 8, Seed: 1}})
	}
	var calls atomic.Int32
	res, err := RunCells(context.Background(), cells, func(done int) { calls.Add(1) })
	require.NoError(t, err)
	require.Len(t, res, 4)
	for i := 1; i < len(res); i++ {
		assert.Greater(t, res[i].Throughput, res[i-1].Throughput, "more threads on idle cores, more queries")
	}
	for i, c := range cells {
		one, err := c.Run(t.Context())
		require.NoError(t, err)
		assert.Equal(t, one, res[i], "cell %d: the same as run alone", i)
	}
	assert.Equal(t, int32(4), calls.Load(), "progress once per cell")
}

func TestRunCellsStopsOnError(t *testing.T) {
	cells := []Cell{
		{Workload: "connect", Threads: 1, Measure: time.Millisecond, Machine: MachineConfig{CPUs: 1}},
		{Workload: "nope", Threads: 1, Machine: MachineConfig{CPUs: 1}},
	}
	_, err := RunCells(context.Background(), cells, nil)
	assert.ErrorIs(t, err, ErrInvalidConfig)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = RunCells(ctx, cells[:1], nil)
	assert.ErrorIs(t, err, context.Canceled)
}
