package sim

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/innosim/innosim/mycnf"
	"github.com/innosim/innosim/sim/spec"
)

// fullSweep skips a test unless INNOSIM_SWEEPS=1: the thread-pool sweeps
// are measurements, not checks (they log each cell's figure for the
// thread-pool decision records); they run thousands of threads on tens of
// CPUs and take minutes, so CI's INNOSIM_FULL=1 does not run them.
func fullSweep(t *testing.T) {
	t.Helper()
	if os.Getenv("INNOSIM_SWEEPS") != "1" {
		t.Skip("INNOSIM_SWEEPS=1 runs the thread-pool sweeps")
	}
}

// envList reads a comma-separated list of ints from env, or def.
func envList(t *testing.T, env string, def []int) []int {
	s := os.Getenv(env)
	if s == "" {
		return def
	}
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(f)
		require.NoError(t, err, env)
		out = append(out, n)
	}
	return out
}

// A published point-select sweep's setup: MariaDB 5.5, the box's kernel,
// sysbench 0.4/0.5 (its global statistics mutexes; INNOSIM_STATS=0 leaves
// them out) on a quarter of the box (spec.ClientSplit), thread per connection
// and the pool with thread_pool_size the server's CPUs, the footprints of
// this machine's calibration and its rotation probe's fit.
func TestPointSelectSweepFull(t *testing.T) {
	fullSweep(t)
	calib, err := LoadProfile("../docs/live/v1300-connect-round-trips.profile")
	require.NoError(t, err)
	boxes := strings.Split(envOr("INNOSIM_BOXES", "pitbull,facebook-maria1"), ",")
	threads := envList(t, "INNOSIM_THREADS", []int{16, 32, 64, 128, 256, 512, 1024, 2048, 4096})
	measure := time.Duration(envList(t, "INNOSIM_MEASURE_MS", []int{20})[0]) * time.Millisecond
	for _, box := range boxes {
		p := params(t, box)
		_, clientCPUs := spec.ClientSplit(p.CPUs)
		mc, err := MachineFromSpec(p, &calib, clientCPUs)
		require.NoError(t, err)
		for _, th := range []ThreadHandling{OneThreadPerConnection, PoolOfThreads} {
			peak := 0.0
			var line []string
			for _, n := range threads {
				c := Cell{Workload: envOr("INNOSIM_WORKLOAD", "oltp_point_select"), Threads: n, Machine: mc, ThreadHandling: th,
					Server: mycnf.Server{Product: mycnf.MariaDB, Version: "5.5"},
					Client: &ClientConfig{Event: time.Duration(envList(t, "INNOSIM_EVENT_NS", []int{6680})[0]), ServerFootprint: int64(envList(t, "INNOSIM_SFOOT", []int{79 << 10})[0]), ClientFootprint: int64(envList(t, "INNOSIM_CFOOT", []int{16 << 10})[0]), StatsMutexes: os.Getenv("INNOSIM_STATS") != "0"},
					Warmup: 20 * time.Millisecond, Measure: measure,
					Steady: &SteadyWarmup{Max: 12*time.Second + 32*measure},
				}
				if th == PoolOfThreads {
					c.ThreadPoolSize = mc.CPUs
				}
				start := time.Now()
				r, err := c.Run(context.Background())
				require.NoError(t, err)
				busy := float64(r.Busy()) / float64(r.Capacity)
				s := fmt.Sprintf("%d:%.0f(busy %.2f, client %.2f, sw/q %.2f, %s)", n, r.Throughput, busy, float64(r.ClientCPU)/float64(r.Elapsed)/float64(mc.ClientCPUs), float64(r.Switches)/float64(r.Units), time.Since(start).Round(time.Second))
				assert.True(t, r.NotSteady || r.Throughput > 0, "%s %v %d: a steady cell of no throughput", box, th, n)
				if r.NotSteady {
					s = fmt.Sprintf("%d:not steady(%.0f)", n, r.Throughput)
				} else if r.Throughput > peak {
					peak = r.Throughput
				}
				line = append(line, s)
				t.Logf("%s %v %s", box, th, s)
			}
			t.Logf("%s %v peak %.0f: %s", box, th, peak, strings.Join(line, " "))
		}
	}
}

func envOr(env, def string) string {
	if s := os.Getenv(env); s != "" {
		return s
	}
	return def
}

// sweep runs cells of threads and thread handlings and logs each figure, or
// not steady.
func sweep(t *testing.T, label string, threads []int, cell func(n int, th ThreadHandling) Cell) map[ThreadHandling][]Result {
	out := map[ThreadHandling][]Result{}
	for _, th := range []ThreadHandling{OneThreadPerConnection, PoolOfThreads} {
		for _, n := range threads {
			c := cell(n, th)
			start := time.Now()
			r, err := c.Run(context.Background())
			require.NoError(t, err)
			assert.True(t, r.NotSteady || r.Throughput > 0, "%s %v %d: a steady cell of no throughput", label, th, n)
			out[th] = append(out[th], r)
			_, _, fs := r.IORates()
			fig := fmt.Sprintf("%.0f", r.Throughput)
			if r.NotSteady {
				fig = "not steady"
			}
			t.Logf("%s %v %d: %s (busy %.2f, fsyncs/s %.0f, over %v from %v; %s)", label, th, n, fig,
				float64(r.Busy())/float64(r.Capacity), fs, r.Elapsed, r.Start, time.Since(start).Round(time.Second))
		}
	}
	return out
}

// sysbench 0.4's complex OLTP read-write with innodb_flush_log_at_trx_commit
// = 0 on the published 2012 boxes, MariaDB 5.5, the client across the network.
func TestReadWrite55SweepFull(t *testing.T) {
	fullSweep(t)
	threads := envList(t, "INNOSIM_THREADS", []int{16, 128, 1024})
	measure := time.Duration(envList(t, "INNOSIM_MEASURE_MS", []int{100})[0]) * time.Millisecond
	for _, box := range strings.Split(envOr("INNOSIM_BOXES", "pitbull,facebook-maria1"), ",") {
		p := params(t, box)
		_, clientCPUs := spec.ClientSplit(p.CPUs)
		mc, err := MachineFromSpec(p, nil, clientCPUs)
		require.NoError(t, err)
		sweep(t, box, threads, func(n int, th ThreadHandling) Cell {
			c := Cell{Workload: "oltp_read_write", Threads: n, Machine: mc, ThreadHandling: th,
				Server: mycnf.Server{Product: mycnf.MariaDB, Version: "5.5"}, Log: &LogConfig{FlushAtTrxCommit: 0},
				Warmup: 20 * time.Millisecond, Measure: measure, Steady: &SteadyWarmup{Max: 12*time.Second + 32*measure}}
			if th == PoolOfThreads {
				c.ThreadPoolSize = mc.CPUs
			}
			return c
		})
	}
}

// Fsync-bound read-write on the 2026 box: MariaDB 11.8, durable commits on a
// data-centre NVMe drive (Intel P4500, Lenovo's product guide: random write
// latency 20 µs, random read 85 µs; a drive with power-loss protection
// acknowledges a flush from its protected cache, so an fsync is a write's
// latency), thread_pool_size 80.
func TestFsyncBound2026Full(t *testing.T) {
	fullSweep(t)
	threads := envList(t, "INNOSIM_THREADS", []int{128, 256, 512})
	measure := time.Duration(envList(t, "INNOSIM_MEASURE_MS", []int{50})[0]) * time.Millisecond
	mc, err := MachineFromSpec(params(t, "percona-2026-gold6230"), nil, 0)
	require.NoError(t, err)
	res := sweep(t, "percona-2026-gold6230", threads, func(n int, th ThreadHandling) Cell {
		c := Cell{Workload: "oltp_read_write", Threads: n, Machine: mc, ThreadHandling: th,
			Server: mycnf.Server{Product: mycnf.MariaDB, Version: "11.8"},
			Device: &DeviceConfig{Units: 4, Read: 85 * time.Microsecond, Write: 20 * time.Microsecond, Fsync: 20 * time.Microsecond},
			Warmup: 20 * time.Millisecond, Measure: measure, Steady: &SteadyWarmup{Max: 12*time.Second + 32*measure}}
		if th == PoolOfThreads {
			c.ThreadPoolSize = 80
		}
		return c
	})
	// fsync-bound, the pool brings no gain: within ±10% of thread per
	// connection at every client count both settle
	for i, n := range threads {
		per, pool := res[OneThreadPerConnection][i], res[PoolOfThreads][i]
		if per.NotSteady || pool.NotSteady {
			continue
		}
		assert.InDelta(t, 1, pool.Throughput/per.Throughput, 0.1, "%d clients: pool %.0f, per connection %.0f", n, pool.Throughput, per.Throughput)
	}
}
