package sim

import (
	"context"
	"testing"
	"time"

	"github.com/innosim/innosim/concurrency"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseThreadHandlingTakesMariaDBsNames(t *testing.T) {
	for _, h := range []ThreadHandling{OneThreadPerConnection, PoolOfThreads} {
		got, err := ParseThreadHandling(h.String())
		require.NoError(t, err)
		assert.Equal(t, h, got)
	}
	_, err := ParseThreadHandling("no-threads")
	assert.ErrorIs(t, err, ErrInvalidConfig)
}

func TestThreadPoolRefusesBadSettings(t *testing.T) {
	base := Cell{Workload: "oltp_point_select", Threads: 8, Machine: MachineConfig{CPUs: 2}, ThreadHandling: PoolOfThreads}
	require.NoError(t, base.Validate())
	c := base
	c.ThreadPoolSize = MaxThreadPoolSize + 1
	assert.ErrorContains(t, c.Validate(), "ThreadPoolSize = 1001, want 0 (the CPUs) or 1..1000")
	// the default size is the CPUs: an error must name that, not a size nobody gave
	c = base
	c.Machine.CPUs = 1024
	assert.ErrorContains(t, c.Validate(), "ThreadPoolSize = 0: the pool has a group per CPU (1024), more than the 1..1000 groups it takes")
	c = base
	c.Gate = &GateConfig{Policy: concurrency.PolicyQueue, Config: concurrency.DefaultConfig(8)}
	assert.ErrorContains(t, c.Validate(), "want one of the two")
	c = base
	c.ThreadHandling = 7
	assert.ErrorIs(t, c.Validate(), ErrInvalidConfig)
	// a size the cell would ignore was accepted
	c = base
	c.ThreadHandling = OneThreadPerConnection
	c.ThreadPoolSize = -3
	assert.ErrorIs(t, c.Validate(), ErrInvalidConfig)
	assert.ErrorContains(t, c.Validate(), "ThreadPoolSize = -3 with one-thread-per-connection, want 0")
}

func TestSeedForTellsPoolsApart(t *testing.T) {
	c := Cell{Workload: "connect", Threads: 8, Machine: MachineConfig{CPUs: 2}}
	p := c
	p.ThreadHandling = PoolOfThreads
	assert.NotEqual(t, c.SeedFor(1), p.SeedFor(1), "a pool is a parameter of the cell")
	q := p
	q.ThreadPoolSize = 4
	assert.NotEqual(t, p.SeedFor(1), q.SeedFor(1))
}

// The live runs on a 2-core machine (docs/live/README.md) serve
// fewer point selects and connections at many threads with pool-of-threads
// than with a thread per connection; the pool's handoff of a seat per request
// (a park and a wake) is what costs here.
func TestThreadPoolServesLessThanThreadPerConnectionAtManyThreads(t *testing.T) {
	for _, w := range []string{"oltp_point_select", "connect"} {
		t.Run(w, func(t *testing.T) {
			c := Cell{Workload: w, Threads: 256, Machine: MachineConfig{CPUs: 2, Costs: NewKernel(), Seed: 1}, Measure: 20 * time.Millisecond}
			per, err := c.Run(context.Background())
			require.NoError(t, err)
			c.ThreadHandling = PoolOfThreads
			pool, err := c.Run(context.Background())
			require.NoError(t, err)
			assert.Less(t, pool.Throughput, per.Throughput)
			assert.Greater(t, pool.Throughput, per.Throughput/2, "a pool of 2 groups still keeps both cores busy")
		})
	}
}
