package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/innosim/innosim/sim"
)

func TestClientFlagReadsEachKey(t *testing.T) {
	var c clientFlag
	require.NoError(t, c.Set("cpu=5us,send=1us,recv=2us,server-cpu=24us,server-footprint=84KiB,client-footprint=1.5MiB"))
	assert.Equal(t, sim.ClientConfig{Event: 5 * time.Microsecond, Send: time.Microsecond, Recv: 2 * time.Microsecond,
		ServerCPU: 24 * time.Microsecond, ServerFootprint: 84 << 10, ClientFootprint: 3 << 19}, *c.cfg)
	require.NoError(t, c.Set("on"))
	assert.Equal(t, sim.ClientConfig{}, *c.cfg)
	require.NoError(t, c.Set("server-footprint=4096"))
	assert.Equal(t, int64(4096), c.cfg.ServerFootprint)
	require.NoError(t, c.Set("client-footprint=1GiB"), "the top of the range its errors give")
	assert.Equal(t, int64(1<<30), c.cfg.ClientFootprint)
	assert.Empty(t, (&clientFlag{}).String(), "no client")
}

func TestClientFlagRefusesBadValuesByKey(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"cpu", `"cpu": want on, or key=value`},
		{"cpu=2s", `cpu = "2s": want a duration 0..1s`},
		{"recv=-1us", `recv = "-1us": want a duration 0..1s`},
		{"server-footprint=2048MiB", `server-footprint = "2048MiB": want bytes, KiB, MiB or GiB in 0..1GiB`},
		{"server-footprint=1.5GiB", `server-footprint = "1.5GiB"`},
		{"client-footprint=1.5", `client-footprint = "1.5": want bytes`},
		{"client-footprint=NaNKiB", `client-footprint = "NaNKiB"`},
		{"cpu=1us,cpu=2us", `key "cpu" given twice`},
		{"on,cpu=1us", `"on,cpu=1us": on stands alone`},
		{"think=1ms", `key "think": want one of cpu, send, recv, server-cpu, server-footprint, client-footprint`},
	} {
		var c clientFlag
		err := c.Set(tt.in)
		require.Error(t, err, tt.in)
		assert.Contains(t, err.Error(), tt.want, tt.in)
		assert.Nil(t, c.cfg, tt.in)
	}
}

// With -client the benchmark client shares the simulated cores: a client
// that spends more CPU per query leaves the server less, and the pool runs
// its workers (its JSON row says which client it ran with). Without it the
// client was off the machine whatever the user meant.
func TestRunWithTheClientOnTheMachine(t *testing.T) {
	rate := func(client string) (float64, settingsJSON) {
		r := readRunJSON(t, "--workload", "oltp_point_select", "--server", "mariadb", "--thread-handling", "pool-of-threads",
			"--threads", "16", "--cpus", "2", "--measure", "5ms", "--client", client)
		require.Len(t, r.Rows, 1)
		require.Len(t, r.Cells, 1)
		require.NotNil(t, r.Cells[0].Throughput, "a steady cell has a figure")
		return *r.Cells[0].Throughput, r.Rows[0].Settings
	}
	cheap, st := rate("cpu=5us")
	costly, _ := rate("cpu=50us")
	assert.Less(t, costly, 0.6*cheap, "a client of 50 µs a query against one of 5 µs, on the same 2 cores")
	assert.Contains(t, st.Client, "cpu=5µs")
	assert.Equal(t, "pool-of-threads", st.ThreadHandling)
}

// A footprint needs caches to refill it: under a profile without them it
// was charged nothing, silently. A workload with no round trip to its
// client, or whose wait is think time, has nothing to put a client on, and
// the refusal names it.
func TestRunClientRefusalsNameTheCause(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--workload", "oltp_point_select", "--client", "cpu=5us,server-footprint=64KiB"},
			`ClientConfig footprints (server 65536, client 0 bytes) with costs "old-kernel", which has no caches to refill them`},
		{[]string{"--workload", "row_scan_global", "--client", "on"},
			"-client on with workload row_scan_global, which has no client round trip"},
		// its 500 µs between scans became a receive of a request sent at
		// once: 22 times the scans/s without the client
		{[]string{"--workload", "read_ahead", "--client", "on"},
			"-client on with workload read_ahead, which has no benchmark client to put on the machine: its 500µs wait is think time"},
	} {
		code, stdout, stderr := runCmd(append([]string{"run", "--measure", "1ms", "--threads", "2"}, tt.args...)...)
		assert.Equal(t, 2, code, stderr)
		assert.Contains(t, stderr, tt.want)
		assert.Empty(t, stdout)
	}
}

// With the client on the machine, connections complete in waves a round
// trip apart, and a fixed 20 ms warm-up measured a crest: 1,024 read-only
// connections on 2 cores gave 87,280 queries/s over 100 ms and 60,163 over
// 2 s. The cells now warm up until steady, as a live table's do.
func TestRunClientFigureDoesNotDependOnTheMeasure(t *testing.T) {
	if raceEnabled {
		t.Skip("1,024 threads warmed up until steady and measured 2 s: 40 s under -race, and the simulation runs in one goroutine; runs in the non-race job")
	}
	rate := func(measure string) float64 {
		r := readRunJSON(t, "--workload", "oltp_read_only_mariadb", "--server", "mariadb", "--cpus", "2",
			"--threads", "1024", "--client", "cpu=5us", "--measure", measure)
		require.Len(t, r.Cells, 1)
		require.NotNil(t, r.Cells[0].Throughput, "steady at %s", measure)
		return *r.Cells[0].Throughput
	}
	short, long := rate("100ms"), rate("2s")
	assert.InEpsilon(t, long, short, 0.1, "100 ms: %.0f/s, 2 s: %.0f/s", short, long)
}

// -show-settings listed thread_handling as its default when -thread-handling
// set it, and said nothing of the client.
func TestShowSettingsNamesTheFlagsThatSetAKey(t *testing.T) {
	code, stdout, stderr := runCmd("run", "--workload", "oltp_insert", "--server", "mariadb", "--threads", "2", "--cpus", "2",
		"--measure", "2ms", "--thread-handling", "pool-of-threads", "--aio", "simulated", "--client", "cpu=5us", "--show-settings")
	require.Equal(t, 0, code, stderr)
	assert.Regexp(t, `thread_handling\s+pool-of-threads\s+-thread-handling`, stdout)
	assert.Regexp(t, `innodb_use_native_aio\s+OFF\s+-aio`, stdout)
	assert.Contains(t, stdout, "client on the machine (-client): cpu=5µs")
	_, stdout, _ = runCmd("run", "--workload", "connect", "--threads", "2", "--measure", "2ms", "--show-settings")
	assert.Contains(t, stdout, "client off the machine")
}
