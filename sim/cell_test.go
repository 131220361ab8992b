package sim

import (
	"context"
	"testing"
	"time"

	"github.com/innosim/innosim/sim/engine"

	"github.com/innosim/innosim/aio"
	"github.com/innosim/innosim/concurrency"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A cell's seed is a function of the cell: the same cell alone or inside a
// bigger sweep, at any position, runs the same machine. Seeding by index gave
// --threads 64 --cpus 16 a different figure when another thread count or core
// count joined the sweep.
func TestCellSeedIsTheCellsOwn(t *testing.T) {
	cell := func(th, cpus int) Cell {
		return Cell{Workload: "oltp_read_only", Threads: th, Measure: 5 * time.Millisecond,
			Machine: MachineConfig{CPUs: cpus, SpinLoops: DefaultSpinLoops}}
	}
	seedAll := func(cells []Cell) []Cell {
		for i := range cells {
			cells[i].Machine.Seed = cells[i].SeedFor(1)
		}
		return cells
	}
	alone, err := RunCells(t.Context(), seedAll([]Cell{cell(64, 16)}), nil)
	require.NoError(t, err)
	sweep := seedAll([]Cell{cell(8, 16), cell(8, 20), cell(64, 20), cell(64, 16)})
	inSweep, err := RunCells(t.Context(), sweep, nil)
	require.NoError(t, err)
	assert.Equal(t, alone[0], inSweep[3], "64 threads on 16 cpus, alone and as the 4th of 4 cells")

	base := cell(64, 16)
	assert.Equal(t, base.SeedFor(1), base.SeedFor(1))
	assert.NotEqual(t, base.SeedFor(1), base.SeedFor(2), "the user's seed")
	explicit := base
	explicit.Warmup, explicit.Measure = DefaultWarmup, 5*time.Millisecond
	explicit.Machine.Costs = OldKernel()
	explicit.Machine.Costs.Name = "a file that says old-kernel's numbers"
	explicit.Machine.Seed = 99
	explicit.BufferPool = DefaultBufferPool
	assert.Equal(t, base.SeedFor(1), explicit.SeedFor(1), "defaults spelt out, a profile's name and the old seed change nothing")
	gate := concurrency.DefaultConfig(8)
	array := aio.DefaultConfig()
	for name, change := range map[string]func(c *Cell){
		"workload":  func(c *Cell) { c.Workload = "oltp_point_select" },
		"threads":   func(c *Cell) { c.Threads++ },
		"cpus":      func(c *Cell) { c.Machine.CPUs++ },
		"scheduler": func(c *Cell) { c.Machine.Scheduler = TS },
		"costs":     func(c *Cell) { c.Machine.Costs = NewKernel() },
		"spin":      func(c *Cell) { c.Machine.SpinLoops = 0 },
		"prio":      func(c *Cell) { c.Machine.Priorities = true },
		"gate":      func(c *Cell) { c.Gate = &GateConfig{Policy: concurrency.PolicyQueue, Config: gate} },
		"aio":       func(c *Cell) { c.AIO = &array },
		"warmup":    func(c *Cell) { c.Warmup = time.Millisecond },
		"measure":   func(c *Cell) { c.Measure = time.Millisecond },
		// two buffer pools had one seed, against SeedFor's contract
		"buffer pool": func(c *Cell) { c.BufferPool = 1 << 30 },
		"steady": func(c *Cell) {
			c.Steady = &SteadyWarmup{Max: time.Second}
		},
	} {
		c := base
		change(&c)
		assert.NotEqual(t, base.SeedFor(1), c.SeedFor(1), name)
	}
}

// A canceled cell returns ctx.Err() within bounded time: the engine looks at
// the context inside the cell, not only between cells. Before, Run had no
// context and this cell ran its full minute of virtual time (minutes of wall
// time).
func TestCellRunStopsWhenCanceled(t *testing.T) {
	c := Cell{Workload: "oltp_read_only", Threads: 64, Measure: time.Minute,
		Machine: MachineConfig{CPUs: 16, SpinLoops: DefaultSpinLoops, Seed: 1}}
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := c.Run(ctx)
		done <- err
	}()
	select {
	case err := <-done:
		assert.ErrorIs(t, err, context.DeadlineExceeded)
	case <-time.After(30 * time.Second):
		t.Fatal("a canceled cell still running 30 s later")
	}
}

// Watching a context that never ends changes nothing in the run.
func TestCellRunWithALiveContextIsTheSameRun(t *testing.T) {
	c := Cell{Workload: "connect", Threads: 16, Measure: 5 * time.Millisecond, Machine: MachineConfig{CPUs: 4, Seed: 3}}
	plain, err := c.Run(context.Background()) // Done is nil: never polled
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	watched, err := c.Run(ctx)
	require.NoError(t, err)
	assert.Equal(t, plain, watched)
	assert.Greater(t, plain.Events, uint64(engine.PollEvery), "the run polled more than once")
}

// innodb_thread_concurrency reaches every workload that enters InnoDB: a
// limit of 1 on 16 cores must cut its throughput. Before, only slap_select
// and oltp_read_write entered the gate, and the others ran the same at any
// limit without a word. A workload that never enters InnoDB (connect) is
// refused a gate rather than run as if it had none.
func TestEveryInnoDBWorkloadEntersTheGate(t *testing.T) {
	cell := func(w string, gate bool) Cell {
		c := Cell{Workload: w, Threads: 32, Measure: 5 * time.Millisecond,
			Machine: MachineConfig{CPUs: 16, SpinLoops: DefaultSpinLoops, Seed: 1},
			Device:  &DeviceConfig{Units: 4, Read: time.Millisecond, Write: 100 * time.Microsecond, Fsync: 100 * time.Microsecond}}
		if w == "oltp_insert" || w == "bulk_insert" {
			array := aio.DefaultConfig()
			c.AIO = &array
		}
		if gate {
			c.Gate = &GateConfig{Policy: concurrency.PolicyQueue, Config: concurrency.DefaultConfig(1)}
		}
		return c
	}
	for _, w := range []string{"oltp_read_only", "oltp_read_only_mariadb", "oltp_point_select", "oltp_insert", "bulk_insert", "oltp_read_write", "slap_select"} {
		res, err := RunCells(t.Context(), []Cell{cell(w, false), cell(w, true)}, nil)
		require.NoError(t, err, w)
		assert.Less(t, res[1].Throughput, 0.7*res[0].Throughput, "%s: limit 1 (%.0f) against none (%.0f)", w, res[1].Throughput, res[0].Throughput)
	}
	err := cell("connect", true).Validate()
	require.ErrorIs(t, err, ErrInvalidConfig)
	assert.ErrorContains(t, err, "workload connect, which never enters InnoDB's gate")
}
