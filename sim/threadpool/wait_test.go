package threadpool

import (
	"testing"
	"time"

	"github.com/innosim/innosim/prio"
	"github.com/innosim/innosim/sim/client"
	"github.com/innosim/innosim/sim/device"
	"github.com/innosim/innosim/sim/machine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// waitPool is one CPU, one pool group and a device of 64 units that serves
// every I/O in 10 ms, with a connection per program.
func waitPool(t *testing.T, stall time.Duration, maxThreads int, progs ...[]machine.Op) (*machine.Machine, *Pool) {
	t.Helper()
	m, err := machine.New(machine.Config{CPUs: 1, Costs: machine.NewKernel(), Seed: 1})
	require.NoError(t, err)
	_, err = device.Install(m, device.Config{Units: 64, Read: 10 * time.Millisecond, Write: 10 * time.Millisecond,
		Fsync: 10 * time.Millisecond, Dist: device.ServiceFixed})
	require.NoError(t, err)
	p, err := Install(m, Config{Size: 1, StallLimit: stall, MaxThreads: maxThreads})
	require.NoError(t, err)
	for _, prog := range progs {
		require.NoError(t, p.Sockets().Add(client.ServerProgram(prog), prio.Normal, client.Config{Event: 25 * us}))
	}
	return m, p
}

// readRequest is a request that reads a page it does not find in the buffer
// pool: buf_read_page_low's synchronous read, which InnoDB brackets with
// thd_wait_begin(THD_WAIT_DISKIO).
func readRequest() []machine.Op {
	return []machine.Op{sleep(us), cpu(20 * us), {Kind: machine.OpRead}, cpu(20 * us), done(1), syscall(0)}
}

// connUnitsSum is the units all of p's connections completed.
func connUnitsSum(p *Pool) (n uint64) {
	for i := range p.Connections() {
		n += p.ConnUnits(i)
	}
	return n
}

// A worker that waits for a page read stops counting as active, and the
// group's other worker (then workers it creates) serves the queue meanwhile:
// 16 connections each waiting 10 ms a request are served far faster than one
// request per 10 ms. Without wait_begin the group's active worker holds it
// through the read, and the listener, seeing one active, wakes no one.
func TestPoolWaitBeginLetsOthersRunWhileARequestReads(t *testing.T) {
	progs := make([][]machine.Op, 16)
	for i := range progs {
		progs[i] = readRequest()
	}
	m, p := waitPool(t, 0, 0, progs...)
	r := m.Run(100*time.Millisecond, time.Second)
	assert.Greater(t, r.Throughput, 5*100.0, "one group on one CPU, 16 connections reading 10 ms each: %.0f/s", r.Throughput)
	assert.Greater(t, p.Workers(), 2, "wait_begin with no worker left active creates one")
	assert.LessOrEqual(t, p.Workers(), 16+1, "no more threads than connections (wake_or_create_thread), bar one")
	// counters balance: every unit ran on a worker, and every request
	// completed read its page once (those still reading have not completed)
	var byWorkers uint64 // the clients count none
	for i := range m.Threads() {
		byWorkers += m.ThreadUnits(i)
	}
	served := connUnitsSum(p)
	assert.Equal(t, served, byWorkers)
	reads := m.IOCount(machine.IORead)
	assert.GreaterOrEqual(t, reads, served)
	assert.LessOrEqual(t, reads, served+16)
}

// The waits InnoDB does not bracket keep the worker active: a request that
// fsyncs (os_file_sync_posix calls fdatasync without thd_wait_begin) holds
// its group, one request per 10 ms, and check_stall sees the queue move.
func TestPoolFsyncIsNotBracketed(t *testing.T) {
	progs := make([][]machine.Op, 16)
	for i := range progs {
		progs[i] = []machine.Op{sleep(us), cpu(20 * us), {Kind: machine.OpFsync}, done(1), syscall(0)}
	}
	m, p := waitPool(t, 0, 0, progs...)
	r := m.Run(100*time.Millisecond, time.Second)
	assert.InDelta(t, 100, r.Throughput, 5, "one fsync of 10 ms at a time")
	assert.Equal(t, 2, p.Workers())
}

// check_stall: one connection's request burns 2 s of CPU and never waits.
// Its worker took it as the listener (the queue was empty), so the group has
// no listener; the first timer tick that finds no epoll event since the
// tick before wakes the sleeping worker, which serves the others beside the
// long request. With a stall limit longer than the run nobody serves them.
func TestPoolCheckStallServesTheOthersBesideALongRequest(t *testing.T) {
	long := []machine.Op{sleep(us), cpu(2 * time.Second), done(1), syscall(0)}
	short := []machine.Op{sleep(us), cpu(20 * us), done(1), syscall(0)}
	others := func(p *Pool) (n uint64) {
		for i := 1; i < 4; i++ {
			n += p.ConnUnits(i)
		}
		return n
	}
	m, p := waitPool(t, time.Hour, 0, long, short, short, short)
	m.Run(0, 1900*time.Millisecond)
	assert.Zero(t, others(p), "no stall check in the run: the others wait behind the long request")

	m, p = waitPool(t, 0, 0, long, short, short, short)
	m.Run(0, 990*time.Millisecond)
	assert.Zero(t, others(p), "the tick at 500 ms finds the events the listener took at the start")
	m.Run(0, 100*time.Millisecond)
	assert.Positive(t, others(p), "the tick at 1 s finds none since: a worker serves the others")
	assert.Zero(t, p.ConnUnits(0), "the long request is still running")
}

// The queue's own stall: the listener is there and has queued requests,
// but no queue_get ran since the last tick (every worker is busy): the tick
// marks the group stalled, which lifts too_many_threads, and creates a
// worker; a tick that finds the queue moving does neither.
func TestPoolCheckStallMarksAStalledQueue(t *testing.T) {
	short := []machine.Op{sleep(us), cpu(20 * us), done(1), syscall(0)}
	_, p := waitPool(t, 0, 0, short, short, short, short, short)
	g := &p.groups[0]
	g.listener, g.ioEvents, g.queues[1] = 0, 3, []int32{2, 3}
	g.active = 1 + PoolOversubscribe
	g.lastCreate = -int64(time.Second) // the last creation is older than the throttle
	require.True(t, p.tooManyThreads(g))
	p.onTimer(0, 0, 0)
	assert.True(t, g.stalled)
	assert.False(t, p.tooManyThreads(g), "a stalled group takes from its queue past the limit")
	assert.Equal(t, 3, g.threads, "a worker is created: none sleeps, and none was created yet")
	assert.Zero(t, g.ioEvents)

	g.stalled = false
	g.queueGet()
	g.ioEvents = 1
	p.onTimer(0, 0, 0)
	assert.False(t, g.stalled, "the queue moved since the last tick")
	assert.Equal(t, 3, g.threads)
}

// thread_pool_max_threads bounds the workers the pool creates (the two a
// group starts with may exceed it, as create_worker's note says).
func TestPoolNeverCreatesMoreWorkersThanMaxThreads(t *testing.T) {
	progs := make([][]machine.Op, 32)
	for i := range progs {
		progs[i] = readRequest()
	}
	for _, limit := range []int{1, 3, 5} {
		m, p := waitPool(t, 0, limit, progs...)
		m.Run(0, time.Second)
		assert.Equal(t, max(limit, 2), p.Workers(), "thread_pool_max_threads = %d", limit)
		assert.Len(t, p.workers, p.Workers(), "every counted worker is a thread")
	}
}

func TestPoolThrottlesThreadCreationAsTheSource(t *testing.T) {
	p := &Pool{stallLimit: int64(DefaultStallLimit), oversubscribe: PoolOversubscribe}
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
	p.oversubscribe = 7
	assert.Zero(t, p.throttle(&poolGroup{threads: 7}), "below 1 + thread_pool_oversubscribe: none")

	// threadpool_unix.cc (5.5 to 10.1): by the threads alone, no factor
	p = &Pool{release: Unix55, stallLimit: int64(10 * time.Millisecond), oversubscribe: 10}
	cases55 := []struct {
		threads int
		want    time.Duration
	}{{3, 0}, {4, 50 * time.Millisecond}, {8, 100 * time.Millisecond}, {16, 200 * time.Millisecond}, {100, 200 * time.Millisecond}}
	for _, c := range cases55 {
		assert.Equal(t, int64(c.want), p.throttle(&poolGroup{threads: c.threads}), "5.5, %d threads", c.threads)
	}
}

// wait_begin by release: under threadpool_generic.cc a worker whose wait
// leaves its group with no active worker wakes one when the queue holds a
// connection; under threadpool_unix.cc (5.5 to 10.1) only when the queue is
// empty (or the group has no listener), so queued requests wait for the
// listener's next event or check_stall.
func TestPoolWaitBeginWakesByRelease(t *testing.T) {
	for _, tc := range []struct {
		release  Release
		queued   bool
		wakes    bool
		brackets []machine.WaitKind
	}{
		{Generic, true, true, []machine.WaitKind{machine.WaitRowLock, machine.WaitDiskIO, machine.WaitGroupCommit}},
		{Generic, false, false, nil},
		{Unix55, true, false, []machine.WaitKind{machine.WaitRowLock, machine.WaitDiskIO, machine.WaitUserLock}},
		{Unix55, false, true, nil},
	} {
		m, err := machine.New(machine.Config{CPUs: 1, Seed: 1})
		require.NoError(t, err)
		p, err := Install(m, Config{Release: tc.release, Size: 1})
		require.NoError(t, err)
		p.conns = []poolConn{{thread: 0}}
		p.workers[0].conn = 0
		g := &p.groups[0]
		g.listener, g.active, g.waiting = 1, 1, []int32{1}
		if tc.queued {
			g.queues[0] = []int32{0}
		}
		p.WaitBegin(0, machine.WaitRowLock)
		assert.Zero(t, g.active, "%v: the waiting worker is not active", tc.release)
		assert.Equal(t, tc.wakes, len(g.waiting) == 0, "%v, queued %v: the sleeping worker woken", tc.release, tc.queued)
		p.WaitEnd(0)
		assert.Equal(t, 1, g.active, "%v: active again", tc.release)
		for _, k := range tc.brackets {
			assert.True(t, p.brackets(k), "%v brackets %v", tc.release, k)
		}
	}
	p := &Pool{release: Unix55}
	assert.False(t, p.brackets(machine.WaitGroupCommit), "5.5's log_write_up_to waits on no_flush_event unbracketed")
	p.release = Generic
	assert.False(t, p.brackets(machine.WaitUserLock))
}

// Install refuses settings out of the release's ranges, naming them.
func TestPoolConfigRanges(t *testing.T) {
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{Release: Unix55, Size: 129}, "ThreadPoolSize = 129, want 0 (the CPUs) or 1..128"},
		{Config{Size: MaxSize + 1}, "ThreadPoolSize = 100001, want 0 (the CPUs) or 1..100000"},
		{Config{Oversubscribe: 1001}, "ThreadPoolOversubscribe = 1001, want 0 (3) or 1..1000"},
		{Config{Oversubscribe: -1}, "ThreadPoolOversubscribe = -1"},
		{Config{Release: 9}, "thread pool release 9"},
	} {
		err := Validate(tc.cfg, 4)
		assert.ErrorIs(t, err, machine.ErrInvalidConfig)
		assert.ErrorContains(t, err, tc.want)
	}
	assert.ErrorContains(t, Validate(Config{Release: Unix55}, 200), "ThreadPoolSize = 0 (0 takes the CPUs, 200)")
	assert.Equal(t, 500, Config{Release: Unix55}.withDefaults(4).MaxThreads, "5.5's default")
	assert.Equal(t, MaxMaxThreads, Config{}.withDefaults(4).MaxThreads)
}

const us = time.Microsecond

func cpu(d time.Duration) machine.Op     { return machine.Op{Kind: machine.OpCPU, Dur: d} }
func syscall(d time.Duration) machine.Op { return machine.Op{Kind: machine.OpSyscall, Dur: d} }
func sleep(d time.Duration) machine.Op   { return machine.Op{Kind: machine.OpSleep, Dur: d} }
func done(n int32) machine.Op            { return machine.Op{Kind: machine.OpDone, Arg: n} }
