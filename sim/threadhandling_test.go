package sim

import (
	"context"
	"testing"
	"time"

	"github.com/innosim/innosim/concurrency"
	"github.com/innosim/innosim/mycnf"
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
	assert.ErrorContains(t, c.Validate(), "ThreadPoolSize = 100001, want 0 (the CPUs) or 1..100000")
	c = base
	c.Server = mycnf.Server{Product: mycnf.MariaDB, Version: "5.5"}
	c.ThreadPoolSize = 129
	assert.ErrorContains(t, c.Validate(), "ThreadPoolSize = 129, want 0 (the CPUs) or 1..128 (threadpool_unix.cc (5.5-10.1))")
	// the default size is the CPUs: an error must name that, not a size nobody gave
	c.ThreadPoolSize, c.Machine.CPUs = 0, 200
	assert.ErrorContains(t, c.Validate(), "ThreadPoolSize = 0 (0 takes the CPUs, 200), want 0 (the CPUs) or 1..128")
	c = base
	c.ThreadPoolOversubscribe = 1001
	assert.ErrorContains(t, c.Validate(), "ThreadPoolOversubscribe = 1001, want 0 (3) or 1..1000")
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
// than with a thread per connection, sysbench's client on the same cores;
// the pool's listener's hop and its workers' epoll calls are what costs
// here.
func TestThreadPoolServesLessThanThreadPerConnectionAtManyThreads(t *testing.T) {
	for _, w := range []string{"oltp_point_select", "connect"} {
		t.Run(w, func(t *testing.T) {
			c := Cell{Workload: w, Threads: 256, Machine: MachineConfig{CPUs: 2, Costs: NewKernel(), Seed: 1}, Measure: 20 * time.Millisecond,
				Client: &ClientConfig{Event: 5 * us}, RemoteWake: true}
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

// MariaDB's pool is one model whether or not its client runs on the
// machine: without one, its connections' requests arrive a round trip
// after each reply (client.Sockets.AddRemote), and its groups' workers
// serve them; a connection's units are counted on it, and the workers, not
// a thread per connection, are the machine's threads.
func TestThreadPoolWithoutItsClientIsThePool(t *testing.T) {
	c := Cell{Workload: "oltp_point_select", Threads: 64, Machine: MachineConfig{CPUs: 2, Seed: 1}, ThreadHandling: PoolOfThreads}
	b, err := c.build()
	require.NoError(t, err)
	r := b.m.Run(10*time.Millisecond, 50*time.Millisecond)
	assert.Equal(t, 64, b.tpool.Connections())
	assert.Equal(t, b.tpool.Workers(), b.m.Threads(), "no thread per connection, no client thread")
	var conns uint64
	for i := range 64 {
		conns += b.tpool.ConnUnits(i)
	}
	assert.Positive(t, r.Units)
	assert.InDelta(t, float64(conns), float64(b.m.Units()), 0, "every unit is a connection's")
	assert.Greater(t, r.Utilisation(), 0.9, "64 connections keep 2 CPUs busy")
}

// Without its client on the machine a pooled request arrives one round
// trip after the reply: one connection alone completes one query per
// round trip and its server work, as a thread per connection does.
func TestThreadPoolRoundTripAsAThreadPerConnection(t *testing.T) {
	c := Cell{Workload: "oltp_point_select", Threads: 1, Machine: MachineConfig{CPUs: 2, Seed: 1}}
	per, err := c.Run(context.Background())
	require.NoError(t, err)
	c.ThreadHandling = PoolOfThreads
	pool, err := c.Run(context.Background())
	require.NoError(t, err)
	assert.InEpsilon(t, per.Throughput, pool.Throughput, 0.15, "thread %.0f/s, pool %.0f/s", per.Throughput, pool.Throughput)
}
