package sim

import (
	"context"
	"testing"
	"time"

	"github.com/innosim/innosim/sim/client"
	"github.com/innosim/innosim/sim/machine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// read_ahead's 500 µs between scans is think time, and a client on the
// machine took it for a round trip: the wait became a receive of the
// client's next request, sent at once, and the scans ran 22 times as fast
// as without the client. Think time stays a sleep, and a Client is refused
// for a workload that has it.
func TestClientIsRefusedForThinkTime(t *testing.T) {
	c := Cell{Workload: "read_ahead", Threads: 1, Machine: MachineConfig{CPUs: 2}, Client: &ClientConfig{}}
	err := c.Validate()
	require.ErrorIs(t, err, ErrInvalidConfig)
	assert.ErrorContains(t, err, "Client with workload read_ahead, which has no benchmark client")
	assert.ErrorContains(t, err, "500µs wait is think time")
	think := Op{Kind: OpSleep, Dur: 500, Arg: machine.SleepThink}
	assert.Equal(t, []Op{{Kind: OpSockSend}, {Kind: OpSockRecv}, cpu(5), think, done(1)},
		client.ServerProgram([]Op{sleep(10), cpu(5), think, done(1)}), "a pause, not a request")
}

// liveCell is a point select on 2 cores with its client on them, on a
// profile whose wake onto an idle CPU is dear (as calibrate measures a 2-vCPU
// guest: tens of µs).
func liveCell(threads int, remote bool) Cell {
	p := NewKernel()
	p.FutexWakeCall, p.FutexWake = 10*us, 80*us
	return Cell{Workload: "oltp_point_select", Threads: threads, Measure: 50 * time.Millisecond,
		Machine:    MachineConfig{CPUs: 2, Costs: p, Seed: 1},
		Client:     &ClientConfig{Event: 25 * us},
		RemoteWake: remote}
}

func TestTheClientCompetesForTheServersCores(t *testing.T) {
	ctx := context.Background()
	off := liveCell(64, false)
	off.Client = nil
	alone, err := off.Run(ctx)
	require.NoError(t, err)
	beside, err := liveCell(64, false).Run(ctx)
	require.NoError(t, err)
	// the server's own CPU per point select is 9 µs and its system calls;
	// the client adds 25 µs and two calls of its own on the same two cores
	assert.Less(t, beside.Throughput, alone.Throughput/2, "alone %.0f, beside its client %.0f", alone.Throughput, beside.Throughput)
	assert.Greater(t, beside.Utilisation(), 0.9)
}

// A socket's wake is a sync wake (sock_def_readable's WF_SYNC): the woken
// thread takes its waker's core, which the waker leaves for its own read, so
// one connection ping-pongs on one core and pays no wake onto an idle CPU,
// whatever that costs; two connections use both cores.
func TestSocketWakesKeepAConnectionOnItsWakersCore(t *testing.T) {
	ctx := context.Background()
	one, err := liveCell(1, true).Run(ctx)
	require.NoError(t, err)
	dear := liveCell(1, true)
	dear.Machine.Costs.FutexWake *= 10
	dear.Machine.Costs.FutexWakeCall *= 10
	d, err := dear.Run(ctx)
	require.NoError(t, err)
	assert.InDelta(t, one.Throughput, d.Throughput, 0.02*one.Throughput, "a dearer remote wake: %.0f, then %.0f", one.Throughput, d.Throughput)
	assert.Less(t, one.Utilisation(), 0.55, "one connection keeps to one of the two cores")
	two, err := liveCell(2, true).Run(ctx)
	require.NoError(t, err)
	assert.Greater(t, two.Throughput, 1.6*one.Throughput, "t1 %.0f, t2 %.0f", one.Throughput, two.Throughput)
	assert.NotEqual(t, liveCell(1, true).SeedFor(1), liveCell(1, false).SeedFor(1), "the wake and the client are parameters of the cell")
}

// thread_pool_size groups, a connection in group (its number mod the size):
// with two groups and three connections that spend most of their time inside
// the pool (read-only statements: a 5 µs round trip, 30 µs of work) on two
// cores, connections 0 and 2 share group 0, each served less than
// connection 1, alone in group 1; with three groups all three are alike.
func TestThreadPoolGroupsAreChosenByConnectionNumber(t *testing.T) {
	for _, client := range []bool{false, true} {
		units := func(size int) (u0, u1, u2 float64) {
			c := Cell{Workload: "oltp_read_only", Threads: 3, ThreadHandling: PoolOfThreads, ThreadPoolSize: size,
				Machine: MachineConfig{CPUs: 2, Costs: NewKernel(), Seed: 1}}
			if client {
				c.Client = &ClientConfig{}
			}
			b, err := c.build()
			require.NoError(t, err)
			b.m.Run(10*time.Millisecond, 50*time.Millisecond)
			return float64(b.tpool.ConnUnits(0)), float64(b.tpool.ConnUnits(1)), float64(b.tpool.ConnUnits(2))
		}
		u0, u1, u2 := units(2)
		assert.Less(t, u0, 0.8*u1, "client %v: group 0's first %v, group 1's only %v", client, u0, u1)
		assert.InDelta(t, u0, u2, 0.1*u0, "client %v: the two of group 0 share it", client)
		u0, u1, u2 = units(3)
		assert.InDelta(t, u1, u0, 0.1*u1, "client %v: three groups", client)
		assert.InDelta(t, u1, u2, 0.1*u1, "client %v: three groups", client)
	}
}

func TestServerCPUSetsTheLevelOfALoneConnection(t *testing.T) {
	run := func(server time.Duration) float64 {
		c := liveCell(1, true)
		c.Client.ServerCPU = server
		r, err := c.Run(context.Background())
		require.NoError(t, err)
		return r.Throughput
	}
	kept, dear := run(0), run(200*us)
	assert.Less(t, dear, 0.7*kept, "a point select of 200 µs of server CPU: kept %.0f/s, dear %.0f/s", kept, dear)
	c := liveCell(1, true)
	c.Client.ServerCPU = 2 * time.Second
	assert.ErrorContains(t, c.Validate(), "ClientConfig.ServerCPU = 2s, want 0..1s")
}

// A connection's own footprints make every switch dearer as connections are
// added, and the dearer the more of them there are; with one connection the
// scaled server costs the same CPU per query either way.
func TestConnectionFootprintsMakeManyConnectionsDear(t *testing.T) {
	run := func(threads int, server, client int64) (Result, *machine.Machine) {
		c := liveCell(threads, true)
		c.Machine.Costs.CacheL2, c.Machine.Costs.CacheLLC = 512<<10, 32<<20
		c.Machine.Costs.RefillLLC, c.Machine.Costs.RefillMemory = 3*time.Nanosecond, 13*time.Nanosecond
		c.Client.ServerFootprint, c.Client.ClientFootprint = server, client
		c.Client.ServerCPU = 60 * us
		r, err := c.Run(context.Background())
		require.NoError(t, err)
		b, err := c.build()
		require.NoError(t, err)
		return r, b.m
	}
	bare64, _ := run(64, 0, 0)
	foot64, m := run(64, 256<<10, 1<<20)
	assert.Less(t, foot64.Throughput, 0.8*bare64.Throughput, "64 connections: bare %.0f/s, with footprints %.0f/s", bare64.Throughput, foot64.Throughput)
	own := int64(256<<10 + 1<<20)
	assert.InDelta(t, m.Costs().RefillOf(own, float64(64*(own+2*m.Costs().SwitchFootprint)-own)), m.Refill(own), 1, "every connection's footprints evict")
	assert.Greater(t, m.SwitchCost(1), m.SwitchCost(0), "the client's Lua state is the larger")

	c := liveCell(1, true)
	c.Client.ServerFootprint = 1<<30 + 1
	assert.ErrorContains(t, c.Validate(), "ClientConfig.ServerFootprint = 1073741825, want 0..1073741824 bytes")
}

// TestClientEventIsPerUnit: ClientConfig.Event is the client's CPU per unit
// the server's program counts, as ServerCPU is. oltp_insert counts 10 rows a
// round trip; its client ran Event once a round trip, a tenth of what the
// doc says, while ServerCPU was per row.
func TestClientEventIsPerUnit(t *testing.T) {
	for _, c := range []struct {
		workload string
		units    time.Duration // per round of the server's program
	}{{"oltp_point_select", 1}, {"oltp_insert", 10}} {
		cell := Cell{Workload: c.workload, Threads: 1, Machine: MachineConfig{CPUs: 2}, Client: &ClientConfig{Event: 7 * us}}
		b, err := cell.build()
		require.NoError(t, err)
		var client time.Duration
		for _, op := range b.m.Program(1) {
			if op.Kind == OpCPU {
				client += op.Dur
			}
		}
		assert.Equal(t, c.units*7*us, client, "%s: the client's CPU per round", c.workload)
	}
}
func TestSwitchFootprintChargesEverySwitchOnAMachineOfManyThreads(t *testing.T) {
	run := func(threads int, refill time.Duration) float64 {
		c := liveCell(threads, false)
		c.Machine.Costs.SwitchFootprint, c.Machine.Costs.CacheL2, c.Machine.Costs.CacheLLC = 64<<10, 512<<10, 32<<20
		c.Machine.Costs.RefillLLC, c.Machine.Costs.RefillMemory = refill, refill
		r, err := c.Run(context.Background())
		require.NoError(t, err)
		return r.Throughput
	}
	// one connection is two threads: nothing evicted beyond what two evict
	assert.Equal(t, run(1, 0), run(1, 40*time.Nanosecond))
	flat, grown := run(256, 0), run(256, 40*time.Nanosecond)
	// 512 threads: 32 MiB of others' footprints, every line of 1,024 missing
	// from L2: about 40 µs more per switch
	assert.Less(t, grown, 0.7*flat, "flat %.0f, grown %.0f", flat, grown)
}
