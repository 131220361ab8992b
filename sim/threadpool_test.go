package sim

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPoolRefusesBadStallLimitAndMaxThreads(t *testing.T) {
	base := liveCell(4, false)
	base.ThreadHandling = PoolOfThreads
	require.NoError(t, base.Validate())
	cases := []struct {
		name string
		edit func(*Cell)
		want string
	}{
		{"a stall limit under a millisecond", func(c *Cell) { c.ThreadPoolStallLimit = time.Microsecond },
			"ThreadPoolStallLimit = 1µs, want 0 (500ms) or whole milliseconds in 1ms..4294967295ms"},
		{"a stall limit of a fraction of a millisecond", func(c *Cell) { c.ThreadPoolStallLimit = 1500 * time.Microsecond },
			"ThreadPoolStallLimit = 1.5ms, want 0 (500ms) or whole milliseconds"},
		{"a negative stall limit", func(c *Cell) { c.ThreadPoolStallLimit = -time.Second }, "ThreadPoolStallLimit = -1s"},
		{"max threads above 65536", func(c *Cell) { c.ThreadPoolMaxThreads = 65537 },
			"ThreadPoolMaxThreads = 65537, want 0 (the release's default) or 1..65536"},
		{"negative max threads", func(c *Cell) { c.ThreadPoolMaxThreads = -1 }, "ThreadPoolMaxThreads = -1"},
		{"max threads with a thread per connection", func(c *Cell) { c.ThreadPoolMaxThreads = 8; c.ThreadHandling = OneThreadPerConnection },
			"ThreadPoolMaxThreads = 8 with one-thread-per-connection, want 0 (thread_pool_* is read only with pool-of-threads)"},
		{"oversubscribe with a thread per connection", func(c *Cell) { c.ThreadPoolOversubscribe = 2; c.ThreadHandling = OneThreadPerConnection },
			"ThreadPoolOversubscribe = 2 with one-thread-per-connection"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := base
			tc.edit(&c)
			err := c.Validate()
			assert.ErrorIs(t, err, ErrInvalidConfig)
			assert.ErrorContains(t, err, tc.want)
		})
	}
	ok := base
	ok.ThreadPoolStallLimit, ok.ThreadPoolMaxThreads = 10*time.Millisecond, 1
	assert.NoError(t, ok.Validate())
	noClient := ok
	noClient.Client = nil
	assert.NoError(t, noClient.Validate(), "one pool, with or without its client: its limits are read either way")
	assert.NotEqual(t, base.SeedFor(1), ok.SeedFor(1), "the limits are parameters of the cell")
}

// A pooled connection's transaction is its THD's, not its worker's: the
// rows oltp_read_write's updates lock stay with the connection until its
// COMMIT, whichever worker serves that (a worker held them, and the next
// connection it served took them as its own).
func TestPoolRowLocksBelongToTheConnection(t *testing.T) {
	c := liveCell(32, false)
	c.Workload, c.ThreadHandling = "oltp_read_write", PoolOfThreads
	c.Device = &DeviceConfig{Units: 1, Read: time.Millisecond, Write: time.Millisecond, Fsync: 2 * time.Millisecond}
	b, err := c.build()
	require.NoError(t, err)
	b.m.Run(0, time.Second)
	for id := range int32(b.m.Threads()) {
		assert.Zero(t, b.rows.Held(id), "thread %d holds no row", id)
	}
	held := 0
	for k := range int32(b.tpool.Connections()) {
		held += b.rows.Held(-2 - k) // connection k's session
	}
	owners := b.rows.Owners()
	for row, k := range owners {
		assert.LessOrEqual(t, k, int32(-2), "row %d is a connection's", row)
	}
	assert.Positive(t, held, "some transactions are open at the end")
	assert.Equal(t, len(owners), held)
}

// A worker that readies a connection for its listener (a sync wake, whose
// victim may be the waker) and then finds nothing to do goes to sleep: it
// was taken off its core by its own wake, and block must not take the core
// from the listener that now runs there. The workers wait_begin adds made
// this common: oltp_read_write, 256 connections on 2 cores, lost a thread
// "running" on a core that ran another by 230 ms and served nothing after.
func TestPoolWorkerPreemptedByItsOwnWakeSleeps(t *testing.T) {
	c := liveCell(256, false)
	c.Workload, c.ThreadHandling = "oltp_read_write", PoolOfThreads
	c.Device = &DeviceConfig{Units: 1, Read: 200 * us, Write: 200 * us, Fsync: 200 * us}
	b, err := c.build()
	require.NoError(t, err)
	m := b.m
	for now := int64(0); now < int64(400*time.Millisecond); now += int64(10 * us) {
		m.Engine().Run(now)
		if err := m.Check(); err != nil {
			t.Fatalf("at %v: %v", time.Duration(now), err)
		}
	}
	r := m.Run(0, time.Second)
	assert.Greater(t, r.Throughput, 500.0)
}

// BenchmarkPoolWaits reports the simulated transactions/s of oltp_read_write
// with its client on the machine (NewKernel, 25 µs of client CPU a
// statement) and a device of one unit that serves an fsync in 200 µs, by
// thread handling, CPUs and connections. The figures are deterministic: run it with -benchtime 1x.
func BenchmarkPoolWaits(b *testing.B) {
	for _, th := range []ThreadHandling{OneThreadPerConnection, PoolOfThreads} {
		for _, cpus := range []int{2, 16} {
			for _, n := range []int{8, 64, 256} {
				b.Run(fmt.Sprintf("thread_handling=%v/cpus=%d/threads=%d", th, cpus, n), func(b *testing.B) {
					c := Cell{Workload: "oltp_read_write", Threads: n, ThreadHandling: th,
						Machine: MachineConfig{CPUs: cpus, Costs: NewKernel(), Seed: 1},
						Client:  &ClientConfig{Event: 25 * us},
						Device:  &DeviceConfig{Units: 1, Read: 200 * us, Write: 200 * us, Fsync: 200 * us},
						Warmup:  500 * time.Millisecond, Measure: 2 * time.Second}
					var r Result
					for b.Loop() {
						var err error
						if r, err = c.Run(context.Background()); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(r.Throughput, "trx/s")
				})
			}
		}
	}
}

// poolCell is a live-style cell: the client on the machine, the pool's
// workers serving it.
func poolCell(workload string, threads int) Cell {
	c := liveCell(threads, true)
	c.Workload, c.ThreadHandling = workload, PoolOfThreads
	return c
}

func TestPoolWorkersServeConnectionsWithoutAThreadEach(t *testing.T) {
	c := poolCell("oltp_point_select", 64)
	b, err := c.build()
	require.NoError(t, err)
	m := b.m
	assert.Equal(t, 2*2+64, m.Threads(), "two workers a group, two groups, and the clients")
	assert.Equal(t, 64, b.tpool.Connections())
	m.Run(10*time.Millisecond, 50*time.Millisecond)
	var served uint64
	for i := range 64 {
		assert.Positive(t, b.tpool.ConnUnits(i), "connection %d is served", i)
		served += b.tpool.ConnUnits(i)
	}
	var byWorkers uint64
	for i := range 4 {
		byWorkers += m.ThreadUnits(i)
	}
	assert.Equal(t, served, byWorkers, "every unit a connection completes runs on a worker")
	for g := range 2 {
		grp := b.tpool.Group(g)
		assert.Equal(t, 2, grp.Threads, "group %d", g)
		assert.LessOrEqual(t, grp.Active, 2, "group %d", g)
	}
}

// At one connection the listener picks the event itself every time
// (listener_picks_event): the group's second worker sleeps throughout.
func TestPoolListenerServesALoneConnectionItself(t *testing.T) {
	b, err := poolCell("oltp_point_select", 1).build()
	require.NoError(t, err)
	m := b.m
	m.Run(10*time.Millisecond, 50*time.Millisecond)
	assert.Positive(t, b.tpool.ConnUnits(0))
	assert.Positive(t, m.ThreadUnits(0), "group 0's first worker is its listener and serves")
	assert.Zero(t, m.ThreadUnits(1), "its second worker is never woken")
	assert.Equal(t, []int32{1}, b.tpool.Group(0).Waiting)
}

func TestPoolServerCPUCountsTheListenersCalls(t *testing.T) {
	per, pool := liveCell(1, true), poolCell("oltp_point_select", 1)
	per.Client.ServerCPU, pool.Client.ServerCPU = 60*us, 60*us
	mp, err := per.build()
	require.NoError(t, err)
	mq, err := pool.build()
	require.NoError(t, err)
	sum := func(prog []Op) (d time.Duration) {
		for _, op := range prog {
			if op.Kind == OpCPU {
				d += op.Dur
			}
		}
		return d
	}
	p := per.Machine.Costs
	extra := p.Syscall + p.SyscallCost(SysSocket) // epoll_wait, and the second entry of the receive
	assert.InDelta(t, float64(sum(mp.m.Program(0))-extra), float64(sum(mq.tpool.Program(0))), 3,
		"the pool's THD gets the bursts less its listener's calls")
}

// TestPoolRefusesAServerProgramAThreadWouldBeRefused: a pooled connection's
// server program is checked as AddThread checks a thread's. oltp_read_write's
// commit fsyncs the log, so without a device the cell is refused, as it is
// with one thread per connection; the pooled program went unchecked, and its
// first commit dereferenced the missing device.
func TestPoolRefusesAServerProgramAThreadWouldBeRefused(t *testing.T) {
	for _, th := range []ThreadHandling{OneThreadPerConnection, PoolOfThreads} {
		c := Cell{Workload: "oltp_read_write", Threads: 4, Machine: MachineConfig{CPUs: 2},
			ThreadHandling: th, Client: &ClientConfig{}}
		err := c.Validate()
		require.ErrorIs(t, err, ErrInvalidConfig, "%v", th)
		assert.ErrorContains(t, err, "fsyncs the log at every commit: want a Device", "%v", th)
	}
}
