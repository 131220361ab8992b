package sim

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/innosim/innosim/aio"
	"github.com/innosim/innosim/concurrency"
	"github.com/innosim/innosim/mycnf"
	"github.com/innosim/innosim/sim/aiosim"
	"github.com/innosim/innosim/sim/rowlock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// fingerprintCase is one small cell of the fingerprint and its name.
type fingerprintCase struct {
	name string
	cell Cell
	// rows, when not nil, replaces the workload's row table once the cell is
	// built, so that a few rows make row locks wait and deadlock.
	rows *rowlock.Table
}

// fingerprintCells are small cells of every workload under the settings that
// change what the simulator runs: both schedulers, priorities, the gate's
// policies, the wait array, the broadcast chain, sockets, the run-queue lock,
// simulated and native AIO under every wake policy, devices of every
// service distribution, the log's settings, the buffer pool, the client on
// the machine with footprints and remote wakes, the thread pool with and
// without its clients, and a steady warm-up.
func fingerprintCells() []fingerprintCase {
	cached := OldKernel()
	cached.Name = "cached"
	cached.SwitchFootprint, cached.CacheL2, cached.CacheLLC = 20<<10, 512<<10, 32<<20
	cached.RefillLLC, cached.RefillMemory = 15*time.Nanosecond, 100*time.Nanosecond
	cached.FutexWakeCall, cached.FutexWake = 5*us, 20*us
	rq := OldKernel()
	rq.RunqueueHold = 300 * time.Nanosecond
	base := func(w string, threads, cpus int) Cell {
		return Cell{Workload: w, Threads: threads, Warmup: 5 * time.Millisecond, Measure: 25 * time.Millisecond,
			Machine: MachineConfig{CPUs: cpus, SpinLoops: DefaultSpinLoops, Seed: 7}}
	}
	with := func(c Cell, f func(c *Cell)) Cell { f(&c); return c }
	gate := func(p concurrency.Policy, limit int) *GateConfig {
		cfg := concurrency.DefaultConfig(limit)
		return &GateConfig{Policy: p, Config: cfg}
	}
	array := func(io aio.IOMode, wake aio.WakePolicy, slots int) *aio.Config {
		a := aio.DefaultConfig()
		a.IO, a.Wake = io, wake
		if slots > 0 {
			a.SlotsPerSegment = slots
		}
		return &a
	}
	dev := func(d ServiceDist) *DeviceConfig {
		return &DeviceConfig{Units: 2, Read: 100 * us, Write: 150 * us, Fsync: 300 * us, Dist: d}
	}
	client := &ClientConfig{Event: 25 * us, Send: 2 * us, Recv: 2 * us}
	footprints := &ClientConfig{Event: 20 * us, ServerFootprint: 64 << 10, ClientFootprint: 32 << 10}
	var cs []fingerprintCase
	add := func(name string, c Cell) { cs = append(cs, fingerprintCase{name: name, cell: c}) }
	for _, w := range WorkloadNames() {
		c := base(w, 16, 4)
		switch w {
		case "oltp_insert", "bulk_insert", "oltp_insert_auto_inc", "read_ahead":
			c.AIO = array(aio.IOSimulated, aio.WakeAll, 0)
		case "oltp_read_write":
			c.Device = dev(ServiceUniform)
		}
		add(w+"/cfs", c)
		add(w+"/ts-prio", with(c, func(c *Cell) { c.Machine.Scheduler, c.Machine.Priorities = TS, true }))
	}
	ro := base("oltp_read_only", 32, 4)
	for _, p := range []concurrency.Policy{concurrency.PolicyQueue, concurrency.PolicyAtomic, concurrency.PolicyHandoff} {
		add("oltp_read_only/gate-"+p.String(), with(ro, func(c *Cell) { c.Gate = gate(p, 4) }))
	}
	add("oltp_read_only/sync-array-50", with(ro, func(c *Cell) { c.Machine.SyncArray = SyncArray50 }))
	add("oltp_read_only/sync-array-55-spin0", with(ro, func(c *Cell) { c.Machine.SyncArray, c.Machine.SpinLoops = SyncArray55, 0 }))
	add("oltp_read_only/ts-chain-array-50", with(ro, func(c *Cell) {
		c.Machine.Scheduler, c.Machine.BroadcastChain, c.Machine.SyncArray, c.Machine.Priorities = TS, true, SyncArray50, true
		c.Gate = gate(concurrency.PolicyQueue, 8)
	}))
	add("oltp_read_only/sockets-rq", with(ro, func(c *Cell) { c.Machine.Sockets, c.Machine.Costs = 2, rq }))
	add("oltp_read_only/client-remote", with(ro, func(c *Cell) { c.Client, c.RemoteWake = client, true }))
	add("oltp_read_only/client-footprints", with(ro, func(c *Cell) { c.Client, c.Machine.Costs = footprints, cached }))
	add("oltp_read_only/client-servercpu", with(ro, func(c *Cell) {
		c.Client = &ClientConfig{Event: 20 * us, ServerCPU: 80 * us}
	}))
	add("oltp_read_only/pool", with(ro, func(c *Cell) { c.ThreadHandling, c.ThreadPoolSize = PoolOfThreads, 2 }))
	add("oltp_read_only/pool-client", with(ro, func(c *Cell) { c.ThreadHandling, c.Client = PoolOfThreads, client }))
	add("oltp_read_only/steady", with(ro, func(c *Cell) {
		c.Threads = 8
		c.Measure = 5 * time.Millisecond
		c.Steady = &SteadyWarmup{Max: 200 * time.Millisecond}
	}))
	rw := base("oltp_read_write", 32, 4)
	rw.Device = dev(ServiceUniform)
	add("oltp_read_write/gate-queue", with(rw, func(c *Cell) { c.Gate = gate(concurrency.PolicyQueue, 4) }))
	add("oltp_read_write/log-0", with(rw, func(c *Cell) { c.Device, c.Log = nil, &LogConfig{FlushAtTrxCommit: 0} }))
	add("oltp_read_write/log-2-exp", with(rw, func(c *Cell) {
		c.Device, c.Log = dev(ServiceExponential), &LogConfig{FlushAtTrxCommit: 2}
	}))
	add("oltp_read_write/pool-client", with(rw, func(c *Cell) {
		c.ThreadHandling, c.ThreadPoolSize, c.Client = PoolOfThreads, 2, client
		c.ThreadPoolStallLimit = time.Millisecond
	}))
	add("oltp_read_write/pool", with(rw, func(c *Cell) { c.ThreadHandling = PoolOfThreads }))
	hot := &rowlock.Table{Rows: 1000, HotShare: 0.01, HotAccess: 0.75}
	cs = append(cs,
		fingerprintCase{name: "oltp_read_write/hot-rows", cell: rw, rows: hot},
		fingerprintCase{name: "oltp_read_write/hot-rows-ts-gate", rows: hot, cell: with(rw, func(c *Cell) {
			c.Machine.Scheduler, c.Machine.Priorities, c.Gate = TS, true, gate(concurrency.PolicyQueue, 4)
		})},
		fingerprintCase{name: "oltp_read_write/hot-rows-pool-client", rows: hot, cell: with(rw, func(c *Cell) {
			c.ThreadHandling, c.ThreadPoolSize, c.Client, c.ThreadPoolStallLimit = PoolOfThreads, 2, client, time.Millisecond
		})},
	)
	ps := base("oltp_point_select", 64, 2)
	add("oltp_point_select/pool-client-limits", with(ps, func(c *Cell) {
		c.ThreadHandling, c.Client, c.RemoteWake = PoolOfThreads, client, true
		c.ThreadPoolStallLimit, c.ThreadPoolMaxThreads = time.Millisecond, 5
	}))
	add("oltp_point_select/pool-footprints", with(ps, func(c *Cell) {
		c.ThreadHandling, c.Client, c.Machine.Costs = PoolOfThreads, footprints, cached
	}))
	maria55 := mycnf.Server{Product: mycnf.MariaDB, Version: "5.5"}
	add("oltp_read_write/pool-55", with(rw, func(c *Cell) {
		c.ThreadHandling, c.ThreadPoolSize, c.ThreadPoolOversubscribe, c.Server = PoolOfThreads, 2, 1, maria55
	}))
	add("oltp_point_select/pool-55-client", with(ps, func(c *Cell) {
		c.ThreadHandling, c.Client, c.Server = PoolOfThreads, client, maria55
	}))
	add("oltp_point_select/client-cores", with(ps, func(c *Cell) {
		c.Client, c.Machine.ClientCPUs, c.Machine.Costs = footprints, 1, cached
	}))
	add("oltp_point_select/pool-client-cores", with(ps, func(c *Cell) {
		c.ThreadHandling, c.Client, c.Machine.ClientCPUs = PoolOfThreads, client, 1
	}))
	add("oltp_read_only/eevdf", with(ro, func(c *Cell) { c.Machine.Scheduler = EEVDF }))
	add("oltp_read_only_mariadb/pool-client", with(base("oltp_read_only_mariadb", 16, 2), func(c *Cell) {
		c.ThreadHandling, c.Client = PoolOfThreads, client
	}))
	add("connect/new-kernel-client", with(base("connect", 16, 4), func(c *Cell) {
		c.Machine.Costs, c.Client = NewKernel(), client
	}))
	for _, io := range []aio.IOMode{aio.IOSimulated, aio.IONative} {
		for _, wake := range []aio.WakePolicy{aio.WakeAll, aio.WakeTargeted, aio.WakeDeferred} {
			if io == aio.IONative && wake == aio.WakeAll {
				continue // native AIO wakes no handler
			}
			name := fmt.Sprintf("%v-%v", io, wake)
			add("oltp_insert/"+name, with(base("oltp_insert", 16, 4), func(c *Cell) { c.AIO = array(io, wake, 4) }))
			add("bulk_insert/"+name+"-small-pool", with(base("bulk_insert", 16, 4), func(c *Cell) {
				c.AIO, c.BufferPool, c.Device = array(io, wake, 8), 5<<20, dev(ServiceExponential)
			}))
			add("oltp_insert_auto_inc/"+name, with(base("oltp_insert_auto_inc", 16, 4), func(c *Cell) {
				c.AIO, c.BufferPool, c.Device = array(io, wake, 2), 5<<20, dev(ServiceUniform)
			}))
			add("read_ahead/"+name, with(base("read_ahead", 64, 4), func(c *Cell) {
				c.AIO, c.Device = array(io, wake, 1), dev(ServiceFixed)
			}))
		}
	}
	bigPages := func(io aio.IOMode, wake aio.WakePolicy) *aio.Config {
		a := array(io, wake, 2)
		a.PageSize = aio.MaxPageSize // 80 frames in a 5 MiB pool
		return a
	}
	add("bulk_insert/many-small-pool", with(base("bulk_insert", 100, 8), func(c *Cell) {
		c.AIO, c.BufferPool, c.Device = bigPages(aio.IOSimulated, aio.WakeAll), 5<<20, dev(ServiceUniform)
		c.Measure = 60 * time.Millisecond
	}))
	add("bulk_insert/many-small-pool-native", with(base("bulk_insert", 100, 8), func(c *Cell) {
		c.AIO, c.BufferPool = bigPages(aio.IONative, aio.WakeTargeted), 5<<20
		c.Measure = 60 * time.Millisecond
	}))
	add("oltp_insert_auto_inc/big-pages", with(base("oltp_insert_auto_inc", 32, 4), func(c *Cell) {
		c.AIO, c.BufferPool, c.Device = bigPages(aio.IOSimulated, aio.WakeDeferred), 5<<20, dev(ServiceExponential)
		c.Measure = 60 * time.Millisecond
	}))
	add("oltp_insert_auto_inc/big-pages-native", with(base("oltp_insert_auto_inc", 32, 4), func(c *Cell) {
		c.AIO, c.BufferPool, c.Device = bigPages(aio.IONative, aio.WakeTargeted), 5<<20, dev(ServiceExponential)
		c.Measure = 60 * time.Millisecond
	}))
	add("oltp_insert_auto_inc/no-device", with(base("oltp_insert_auto_inc", 8, 2), func(c *Cell) {
		c.AIO, c.BufferPool = array(aio.IOSimulated, aio.WakeTargeted, 2), 5<<20
	}))
	add("slap_select/gate-queue-array-50", with(base("slap_select", 32, 4), func(c *Cell) {
		c.Gate, c.Machine.SyncArray = gate(concurrency.PolicyQueue, 4), SyncArray50
	}))
	add("row_scan_global/sockets", with(base("row_scan_global", 16, 4), func(c *Cell) { c.Machine.Sockets = 2 }))
	add("mutex_wake_all/ts-chain", with(base("mutex_wake_all", 16, 4), func(c *Cell) {
		c.Machine.Scheduler, c.Machine.BroadcastChain = TS, true
	}))
	return cs
}

// fingerprint runs c as Cell.Run does and describes everything it measured
// and counted: the Result in full and the machine's mechanisms' counters.
func fingerprint(t *testing.T, c Cell, rows *rowlock.Table) string {
	bu, err := c.build()
	require.NoError(t, err)
	m := bu.m
	if rows != nil {
		bu.rows, err = rowlock.Install(m, *rows)
		require.NoError(t, err)
	}
	var r Result
	if c.Steady != nil {
		r = bu.runSteady(c.Warmup, c.Measure, *c.Steady)
	} else {
		r = m.Run(c.Warmup, c.Measure)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "result %+v\n", r)
	for _, mu := range m.Mutexes() {
		fmt.Fprintf(&b, "mutex %s acq=%d spin=%d waits=%d signals=%d cells=%d cellwaits=%d yields=%d/%d\n",
			mu.Name, mu.Acquisitions, mu.SpinAcquired, mu.Waits, mu.Signals, mu.Cells, mu.CellWaits, mu.Yields, mu.YieldSwitches)
	}
	if bu.gate != nil {
		fmt.Fprintf(&b, "gate %s\n", gateFields(bu.gate.Stats()))
	}
	if bu.array != nil {
		fmt.Fprintf(&b, "aio %+v\n", bu.array.Stats())
		fmt.Fprintf(&b, "aio driver %s\n", aioDriverCounters(bu.array))
	}
	if bu.log != nil {
		if w, cm, g := bu.log.Stats(); w+cm+g > 0 {
			fmt.Fprintf(&b, "log writes=%d commits=%d grouped=%d\n", w, cm, g)
		}
	}
	if bu.rows != nil {
		w, d := bu.rows.Stats()
		fmt.Fprintf(&b, "rowlocks waits=%d deadlocks=%d\n", w, d)
	}
	if s := bufPoolCounters(bu); s != "" {
		fmt.Fprintf(&b, "bufpool %s\n", s)
	}
	if bu.tpool != nil {
		fmt.Fprintf(&b, "pool workers=%d\n", bu.tpool.Workers())
	}
	var units []string
	for i := range m.Threads() {
		units = append(units, fmt.Sprint(m.ThreadUnits(i)))
	}
	fmt.Fprintf(&b, "thread units %s\n", strings.Join(units, " "))
	if p := bu.tpool; p != nil && p.Connections() > 0 {
		b.WriteString("connection units")
		for i := range p.Connections() {
			fmt.Fprintf(&b, " %d", p.ConnUnits(i))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// gateFields prints s's fields as %+v prints a struct without a String
// method: the fingerprint's format, whatever concurrency.Stats prints.
func gateFields(s concurrency.Stats) string {
	type histogram struct {
		Buckets [concurrency.HistogramBuckets]uint64
	}
	type stats concurrency.Stats
	v := reflect.ValueOf(stats(s))
	var parts []string
	for i := range v.NumField() {
		f := v.Field(i).Interface()
		if h, ok := f.(concurrency.Histogram); ok {
			f = histogram(h)
		}
		parts = append(parts, fmt.Sprintf("%s:%+v", v.Type().Field(i).Name, f))
	}
	return "{" + strings.Join(parts, " ") + "}"
}

// aioDriverCounters are the AIO driver's own counters.
func aioDriverCounters(a aiosim.Array) string {
	switch d := a.(type) {
	case *aiosim.Simulated:
		p, dropped := d.Counters()
		return fmt.Sprintf("simulated prefetch=%d dropped=%d", p, dropped)
	case *aiosim.Native:
		p, full := d.Counters()
		return fmt.Sprintf("native prefetch=%d fullwaits=%d", p, full)
	}
	return "none"
}

// bufPoolCounters are the buffer pool's and the page cleaner's counters, or
// "" when the workload touches neither.
func bufPoolCounters(b *built) string {
	var s string
	if h, m := b.pool.Stats(); h+m > 0 {
		s += fmt.Sprintf("hits=%d misses=%d ", h, m)
	}
	if f := b.flush; f != nil {
		s += fmt.Sprintf("flushed=%d dblwr=%d single=%d freewaits=%d", f.Flushed, f.DblwrBatches, f.SingleFlushes, f.FreeWaits)
	}
	return s
}

// TestFingerprint holds every event of small cells of every workload to
// testdata/fingerprint.golden: the simulator's results, event counts and
// mechanisms' counters. A change to what the simulator does shows here
// first; rewrite the file with -update only for a change meant to alter the
// model, and say which in the commit.
func TestFingerprint(t *testing.T) {
	var b strings.Builder
	for _, fc := range fingerprintCells() {
		fmt.Fprintf(&b, "== %s\n%s", fc.name, fingerprint(t, fc.cell, fc.rows))
	}
	got := b.String()
	path := filepath.Join("testdata", "fingerprint.golden")
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test ./sim -run TestFingerprint -update to write it")
	if got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := range min(len(gl), len(wl)) {
			if gl[i] != wl[i] {
				t.Fatalf("fingerprint differs at line %d:\n got: %s\nwant: %s", i+1, gl[i], wl[i])
			}
		}
		t.Fatalf("fingerprint has %d lines, want %d", len(gl), len(wl))
	}
}

// The fingerprint's cells run as Cell.Run runs them: the same Result.
func TestFingerprintRunsAsCellRun(t *testing.T) {
	fc := fingerprintCells()[0]
	r, err := fc.cell.Run(context.Background())
	require.NoError(t, err)
	assert.Contains(t, fingerprint(t, fc.cell, nil), fmt.Sprintf("result %+v\n", r))
}
