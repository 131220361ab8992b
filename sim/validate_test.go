package sim

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/innosim/innosim/aio"
	"github.com/innosim/innosim/concurrency"
	"github.com/innosim/innosim/mycnf"
)

// Every bad setting is a *FieldError whose Field is the setting's path in
// the Cell, so that a command maps it to its flag through one table; its
// message keeps the setting and its range.
func TestValidateNamesTheFieldOfEveryBadSetting(t *testing.T) {
	ok := Cell{Workload: "oltp_read_only", Threads: 8, Machine: MachineConfig{CPUs: 4}}
	require.NoError(t, ok.Validate())
	bigAIO := aio.DefaultConfig()
	bigAIO.ReadSegments = 0
	for _, tt := range []struct {
		field, want string
		edit        func(c *Cell)
	}{
		{"Threads", "Threads = 0, want 1..10000", func(c *Cell) { c.Threads = 0 }},
		{"Warmup", "Warmup = -1ns", func(c *Cell) { c.Warmup = -1 }},
		{"Measure", "Measure = -1ns, want ≥ 0", func(c *Cell) { c.Measure = -1 }},
		{"Workload", `workload "tpcc"`, func(c *Cell) { c.Workload = "tpcc" }},
		{"Machine.CPUs", "CPUs = 0, want 1..1024", func(c *Cell) { c.Machine.CPUs = 0 }},
		{"Machine.SpinLoops", "SpinLoops = -1, want 0..10000", func(c *Cell) { c.Machine.SpinLoops = -1 }},
		{"Machine.SyncArray", "SyncArray = 9", func(c *Cell) { c.Machine.SyncArray = 9 }},
		{"Machine.Costs.syscall", "syscall = 2s, want 0s..1s", func(c *Cell) {
			c.Machine.Costs = OldKernel()
			c.Machine.Costs.Syscall = 2 * time.Second
		}},
		{"Steady.Max", "Steady.Max = 100ms, want at least Warmup (20ms) + 2 × Measure (100ms)", func(c *Cell) {
			c.Steady = &SteadyWarmup{Max: 100 * time.Millisecond}
		}},
		{"Steady.Max", "leaves no room for a series of 2 × Measure", func(c *Cell) {
			c.Threads = 10000
			c.Steady = &SteadyWarmup{Max: time.Second}
		}},
		{"Device.Units", "device Units = 0, want 1..1024", func(c *Cell) {
			c.Device = &DeviceConfig{Read: time.Millisecond, Write: time.Millisecond, Fsync: time.Millisecond}
		}},
		{"Device", "innodb_flush_log_at_trx_commit = 1 fsyncs the log at every commit: want a Device", func(c *Cell) { c.Workload = "oltp_read_write" }},
		{"Log.FlushAtTrxCommit", "innodb_flush_log_at_trx_commit = 3, want 0..2", func(c *Cell) { c.Log = &LogConfig{FlushAtTrxCommit: 3} }},
		{"BufferPool", "BufferPool = 1048576", func(c *Cell) { c.BufferPool = 1 << 20 }},
		{"AIO", "ReadSegments", func(c *Cell) { c.Workload, c.AIO = "oltp_insert", &bigAIO }},
		{"Gate", "which never enters InnoDB's gate", func(c *Cell) {
			c.Workload, c.Gate = "connect", &GateConfig{Policy: concurrency.PolicyQueue, Config: concurrency.DefaultConfig(8)}
		}},
		{"Gate.Policy", "gate policy", func(c *Cell) { c.Gate = &GateConfig{Policy: 99, Config: concurrency.DefaultConfig(8)} }},
		{"Client", "500µs wait is think time", func(c *Cell) { c.Workload, c.Client = "read_ahead", &ClientConfig{} }},
		{"Client.Event", "ClientConfig.Event = -1ns, want 0..1s", func(c *Cell) { c.Client = &ClientConfig{Event: -1} }},
		{"Client.ServerFootprint", "which has no caches to refill them", func(c *Cell) { c.Client = &ClientConfig{ServerFootprint: 1 << 20} }},
		{"Client.ServerCPU", "ClientConfig.ServerCPU = 1µs per unit, want more than", func(c *Cell) { c.Client = &ClientConfig{ServerCPU: time.Microsecond} }},
		{"ThreadPoolSize", "ThreadPoolSize = 3 with one-thread-per-connection", func(c *Cell) { c.ThreadPoolSize = 3 }},
		{"ThreadPoolSize", "ThreadPoolSize = 100001, want 0 (the CPUs) or 1..100000", func(c *Cell) {
			c.ThreadHandling, c.ThreadPoolSize = PoolOfThreads, 100001
		}},
		{"ThreadPoolOversubscribe", "ThreadPoolOversubscribe = 1001", func(c *Cell) {
			c.ThreadHandling, c.ThreadPoolOversubscribe = PoolOfThreads, 1001
		}},
		{"ThreadPoolSize", "ThreadPoolSize = 0 (0 takes the CPUs, 200), want 0 (the CPUs) or 1..128", func(c *Cell) {
			c.ThreadHandling, c.Machine.CPUs = PoolOfThreads, 200
			c.Server = mycnf.Server{Product: mycnf.MariaDB, Version: "5.5"}
		}},
		{"ThreadPoolStallLimit", "ThreadPoolStallLimit = 1.5ms", func(c *Cell) {
			c.ThreadHandling, c.Client, c.ThreadPoolStallLimit = PoolOfThreads, &ClientConfig{}, 1500*time.Microsecond
		}},
		{"ThreadPoolMaxThreads", "read only with pool-of-threads", func(c *Cell) { c.ThreadPoolMaxThreads = 8 }},
		{"ThreadHandling", "ThreadHandling = 7", func(c *Cell) { c.ThreadHandling = 7 }},
	} {
		t.Run(tt.field, func(t *testing.T) {
			c := ok
			tt.edit(&c)
			err := c.Validate()
			require.ErrorIs(t, err, ErrInvalidConfig)
			var fe *FieldError
			require.True(t, errors.As(err, &fe), "%v", err)
			assert.Equal(t, tt.field, fe.Field, "%v", err)
			assert.ErrorContains(t, err, tt.want)
			_, runErr := c.Run(t.Context())
			assert.Equal(t, err, runErr, "Run refuses what Validate does")
		})
	}
}

// RunCells refuses a sweep with a bad cell before any runs, naming the
// first bad cell's place and its field.
func TestRunCellsNamesTheCellItRefuses(t *testing.T) {
	ok := Cell{Workload: "connect", Threads: 1, Machine: MachineConfig{CPUs: 2}, Measure: time.Millisecond}
	bad := ok
	bad.Machine.CPUs = 0
	_, err := RunCells(t.Context(), []Cell{ok, bad, bad}, nil)
	var ce *CellError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, 1, ce.Index)
	assert.Equal(t, 3, ce.Len)
	var fe *FieldError
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, "Machine.CPUs", fe.Field)
	assert.ErrorIs(t, err, ErrInvalidConfig)
	assert.EqualError(t, err, "cell 2 of 3: sim: CPUs = 0, want 1..1024: invalid config")
}

// Validate builds no machine: a cell of 10,000 connections is checked in a
// few allocations (its build allocates a thread, an event and more per
// connection).
func TestValidateBuildsNoMachine(t *testing.T) {
	c := Cell{Workload: "oltp_point_select", Threads: 10000, Machine: MachineConfig{CPUs: 64}, Client: &ClientConfig{Event: us}}
	allocs := testing.AllocsPerRun(5, func() {
		if err := c.Validate(); err != nil {
			t.Fatal(err)
		}
	})
	assert.Less(t, allocs, 1000.0, "Validate allocates per connection: it builds")
}

// Validate's count of a cell's threads, which the steady warm-up's room is
// checked with, is the built machine's.
func TestValidateCountsTheThreadsBuildAdds(t *testing.T) {
	cells := []Cell{}
	for _, fc := range fingerprintCells() {
		cells = append(cells, fc.cell)
	}
	for _, c := range cells {
		w, err := LookupWorkload(c.Workload)
		require.NoError(t, err)
		b, err := c.build()
		require.NoError(t, err)
		server, clients := c.threads(w)
		assert.Equal(t, b.m.Threads(), server+clients, "%s %+v", c.Workload, c)
	}
}
