package sim

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/innosim/innosim/prio"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// waitPool is one CPU, one pool group and a device of 64 units that serves
// every I/O in 10 ms, with a connection per program.
func waitPool(t *testing.T, stall time.Duration, maxThreads int, progs ...[]Op) *Machine {
	t.Helper()
	m, err := NewMachine(MachineConfig{CPUs: 1, Costs: NewKernel(), Seed: 1})
	require.NoError(t, err)
	require.NoError(t, m.SetDevice(DeviceConfig{Units: 64, Read: 10 * time.Millisecond, Write: 10 * time.Millisecond,
		Fsync: 10 * time.Millisecond, Dist: ServiceFixed}))
	require.NoError(t, m.setPoolGroups(1, stall, maxThreads))
	for _, p := range progs {
		require.NoError(t, m.AddConnection(ServerProgram(p), prio.Normal, ClientConfig{Event: 25 * us}))
	}
	return m
}

// readRequest is a request that reads a page it does not find in the buffer
// pool: buf_read_page_low's synchronous read, which InnoDB brackets with
// thd_wait_begin(THD_WAIT_DISKIO).
func readRequest() []Op {
	return []Op{sleep(us), cpu(20 * us), {Kind: OpRead}, cpu(20 * us), done(1), syscall(0)}
}

// connUnitsSum is the units all of m's pooled connections completed.
func connUnitsSum(m *Machine) (n uint64) {
	for i := range m.poolConnections() {
		n += m.connUnits(i)
	}
	return n
}

// A worker that waits for a page read stops counting as active, and the
// group's other worker (then workers it creates) serves the queue meanwhile:
// 16 connections each waiting 10 ms a request are served far faster than one
// request per 10 ms. Without wait_begin the group's active worker holds it
// through the read, and the listener, seeing one active, wakes no one.
func TestPoolWaitBeginLetsOthersRunWhileARequestReads(t *testing.T) {
	progs := make([][]Op, 16)
	for i := range progs {
		progs[i] = readRequest()
	}
	m := waitPool(t, 0, 0, progs...)
	r := m.Run(100*time.Millisecond, time.Second)
	assert.Greater(t, r.Throughput, 5*100.0, "one group on one CPU, 16 connections reading 10 ms each: %.0f/s", r.Throughput)
	assert.Greater(t, m.poolThreads(), 2, "wait_begin with no worker left active creates one")
	assert.LessOrEqual(t, m.poolThreads(), 16+1, "no more threads than connections (wake_or_create_thread), bar one")
	// counters balance: every unit ran on a worker, and every request
	// completed read its page once (those still reading have not completed)
	var byWorkers uint64 // the clients count none
	for i := range m.threads {
		byWorkers += m.ThreadUnits(i)
	}
	served := connUnitsSum(m)
	assert.Equal(t, served, byWorkers)
	reads := m.ioCount[IORead]
	assert.GreaterOrEqual(t, reads, served)
	assert.LessOrEqual(t, reads, served+16)
}

// The waits InnoDB does not bracket keep the worker active: a request that
// fsyncs (os_file_sync_posix calls fdatasync without thd_wait_begin) holds
// its group, one request per 10 ms, and check_stall sees the queue move.
func TestPoolFsyncIsNotBracketed(t *testing.T) {
	progs := make([][]Op, 16)
	for i := range progs {
		progs[i] = []Op{sleep(us), cpu(20 * us), {Kind: OpFsync}, done(1), syscall(0)}
	}
	m := waitPool(t, 0, 0, progs...)
	r := m.Run(100*time.Millisecond, time.Second)
	assert.InDelta(t, 100, r.Throughput, 5, "one fsync of 10 ms at a time")
	assert.Equal(t, 2, m.poolThreads())
}

// check_stall: one connection's request burns 2 s of CPU and never waits.
// Its worker took it as the listener (the queue was empty), so the group has
// no listener; the first timer tick that finds no epoll event since the
// tick before wakes the sleeping worker, which serves the others beside the
// long request. With a stall limit longer than the run nobody serves them.
func TestPoolCheckStallServesTheOthersBesideALongRequest(t *testing.T) {
	long := []Op{sleep(us), cpu(2 * time.Second), done(1), syscall(0)}
	short := []Op{sleep(us), cpu(20 * us), done(1), syscall(0)}
	others := func(m *Machine) (n uint64) {
		for i := 1; i < 4; i++ {
			n += m.connUnits(i)
		}
		return n
	}
	m := waitPool(t, time.Hour, 0, long, short, short, short)
	m.Run(0, 1900*time.Millisecond)
	assert.Zero(t, others(m), "no stall check in the run: the others wait behind the long request")

	m = waitPool(t, 0, 0, long, short, short, short)
	m.Run(0, 990*time.Millisecond)
	assert.Zero(t, others(m), "the tick at 500 ms finds the events the listener took at the start")
	m.Run(0, 100*time.Millisecond)
	assert.Positive(t, others(m), "the tick at 1 s finds none since: a worker serves the others")
	assert.Zero(t, m.connUnits(0), "the long request is still running")
}

// The queue's own stall: the listener is there and has queued requests,
// but no queue_get ran since the last tick (every worker is busy): the tick
// marks the group stalled, which lifts too_many_threads, and creates a
// worker; a tick that finds the queue moving does neither.
func TestPoolCheckStallMarksAStalledQueue(t *testing.T) {
	short := []Op{sleep(us), cpu(20 * us), done(1), syscall(0)}
	m := waitPool(t, 0, 0, short, short, short, short, short)
	g := &m.tpool.groups[0]
	g.listener, g.ioEvents, g.queues[1] = 0, 3, []int32{2, 3}
	g.active = 1 + PoolOversubscribe
	g.lastCreate = -int64(time.Second) // the last creation is older than the throttle
	require.True(t, g.tooManyThreads())
	m.tpool.onTimer(0, 0, 0)
	assert.True(t, g.stalled)
	assert.False(t, g.tooManyThreads(), "a stalled group takes from its queue past the limit")
	assert.Equal(t, 3, g.threads, "a worker is created: none sleeps, and none was created yet")
	assert.Zero(t, g.ioEvents)

	g.stalled = false
	g.queueGet()
	g.ioEvents = 1
	m.tpool.onTimer(0, 0, 0)
	assert.False(t, g.stalled, "the queue moved since the last tick")
	assert.Equal(t, 3, g.threads)
}

// thread_pool_max_threads bounds the workers the pool creates (the two a
// group starts with may exceed it, as create_worker's note says).
func TestPoolNeverCreatesMoreWorkersThanMaxThreads(t *testing.T) {
	progs := make([][]Op, 32)
	for i := range progs {
		progs[i] = readRequest()
	}
	for _, limit := range []int{1, 3, 5} {
		m := waitPool(t, 0, limit, progs...)
		m.Run(0, time.Second)
		assert.Equal(t, max(limit, 2), m.poolThreads(), "thread_pool_max_threads = %d", limit)
		assert.Len(t, m.tpool.workers, m.poolThreads(), "every counted worker is a thread")
	}
}

func TestPoolThrottlesThreadCreationAsTheSource(t *testing.T) {
	p := &threadPool{stallLimit: int64(DefaultThreadPoolStallLimit)}
	cases := []struct {
		threads int
		want    time.Duration
	}{{2, 0}, {3, 0}, {4, 50 * time.Millisecond}, {7, 50 * time.Millisecond},
		{8, 100 * time.Millisecond}, {15, 100 * time.Millisecond}, {16, 20 * time.Millisecond}}
	for _, c := range cases {
		assert.Equal(t, int64(c.want), p.throttle(&poolGroup{threads: c.threads}), "%d threads", c.threads)
	}
	p.stallLimit = int64(499 * time.Millisecond)
	assert.Zero(t, p.throttle(&poolGroup{threads: 8}), "integer factor 499/500 = 0")
	p.stallLimit = int64(2 * time.Second)
	assert.Equal(t, int64(100*time.Millisecond), p.throttle(&poolGroup{threads: 8}), "factor 2000/2000 = 1")
}

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
			"ThreadPoolMaxThreads = 65537, want 0 (65536) or 1..65536"},
		{"negative max threads", func(c *Cell) { c.ThreadPoolMaxThreads = -1 }, "ThreadPoolMaxThreads = -1"},
		{"a stall limit without the pool's workers", func(c *Cell) { c.ThreadPoolStallLimit = time.Second; c.Client = nil },
			"want 0 (read only with pool-of-threads and a Client)"},
		{"max threads with a thread per connection", func(c *Cell) { c.ThreadPoolMaxThreads = 8; c.ThreadHandling = OneThreadPerConnection },
			"want 0 (read only with pool-of-threads and a Client)"},
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
	m, err := c.build()
	require.NoError(t, err)
	m.Run(0, time.Second)
	for id, rt := range m.rows.th {
		assert.Empty(t, rt.held, "thread %d holds no row", id)
	}
	held := 0
	for k, rt := range m.rows.conn {
		held += len(rt.held)
		for _, row := range rt.held {
			assert.Equal(t, connPeer(int32(k)), m.rows.owner[row], "connection %d's row %d", k, row)
		}
	}
	assert.Positive(t, held, "some transactions are open at the end")
	assert.Equal(t, len(m.rows.owner), held)
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
	m, err := c.build()
	require.NoError(t, err)
	for now := int64(0); now < int64(400*time.Millisecond); now += int64(10 * us) {
		m.e.Run(now)
		for id := range m.threads {
			th := &m.threads[id]
			if th.state == stRunning && m.cores[th.core].cur != int32(id) {
				t.Fatalf("at %v thread %d runs on core %d, which runs %d", time.Duration(now), id, th.core, m.cores[th.core].cur)
			}
		}
	}
	r := m.Run(0, time.Second)
	assert.Greater(t, r.Throughput, 500.0)
}

// BenchmarkPoolWaits reports the simulated transactions/s of oltp_read_write
// with its client on the machine (NewKernel, 25 µs of client CPU a
// statement) and a device of one unit that serves an fsync in 200 µs, by
// thread handling, CPUs and connections (docs/sim-model.md has the
// figures). The figures are deterministic: run it with -benchtime 1x.
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
