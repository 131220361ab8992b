package validate

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/innosim/innosim/internal/live"
	"github.com/innosim/innosim/sim"
)

// rotationProfile is a calibrated profile's shape: a ring footprint and the
// caches' sizes and refill costs (docs/live/v1045.profile's figures).
func rotationProfile() sim.CostProfile {
	p, _ := sim.Profile("new-kernel")
	p.Name = "calibrated"
	p.SwitchFootprint, p.CacheL2, p.CacheLLC = 108800, 2<<20, 480<<20
	p.RefillLLC, p.RefillMemory = 3*time.Nanosecond, 26*time.Nanosecond
	return p
}

// rotationCSV writes a probe whose growth of server CPU per query is
// rotationGrowth's for a footprint of own bytes, and of client CPU
// clientGrowth's for client bytes.
func rotationCSV(p sim.CostProfile, own, client int64, qpe float64) string {
	var b strings.Builder
	b.WriteString("thread_handling,workload,connections,server_cpu_us_per_query,client_cpu_us_per_query,queries_per_event\n")
	for _, k := range []int{1, 4, 16, 64, 256, 1024} {
		us := 20 + float64(rotationGrowth(p, false, own, client, k))/1e3
		cus := 6 + float64(clientGrowth(p, false, own, client, k))/1e3
		fmt.Fprintf(&b, "one-thread-per-connection,oltp_read_only,%d,%.6f,%.6f,%g\n", k, us, cus, qpe)
	}
	return b.String()
}

func TestFitFootprintFindsTheFootprintThatMadeTheProbe(t *testing.T) {
	p := rotationProfile()
	for _, own := range []int64{0, 16 << 10, 200 << 10, 2 << 20} {
		rot, err := ParseRotation(strings.NewReader(rotationCSV(p, own, 0, 16)), "rotation.csv")
		require.NoError(t, err)
		got, err := rot.fitFootprint(p, "oltp_read_only thread_handling=one-thread-per-connection", false, 0)
		require.NoError(t, err)
		assert.InDelta(t, float64(own), float64(got.Footprint), 1024+0.01*float64(own), "own %d", own)
		assert.Equal(t, own == 0, got.AtFloor, "own %d", own)
	}
}

// A probe of few connections: the fit came back at its 64 KiB starting
// point whatever the data (Nelder–Mead's first step saw a flat, rounded
// function), flat data included.
func TestFitFootprintOfAShortProbeFollowsTheData(t *testing.T) {
	p := rotationProfile()
	const curve = "oltp_point_select"
	head := "workload,connections,server_cpu_us_per_query,client_cpu_us_per_query,queries_per_event\n"
	fit := func(rows string) Fit {
		t.Helper()
		rot, err := ParseRotation(strings.NewReader(head+rows), "rotation.csv")
		require.NoError(t, err)
		f, err := rot.fitFootprint(p, curve, false, 0)
		require.NoError(t, err)
		return f
	}
	flat := fit("oltp_point_select,1,10,5,1\noltp_point_select,4,10,5,1\n")
	assert.Zero(t, flat.Footprint, "no growth, no footprint")
	assert.True(t, flat.AtFloor)
	falling := fit("oltp_point_select,1,10,5,1\noltp_point_select,2,9,5,1\noltp_point_select,4,8,5,1\n")
	assert.Zero(t, falling.Footprint)
	for _, own := range []int64{1 << 20, 8 << 20} {
		us := 10 + float64(rotationGrowth(p, false, own, 0, 4))/1e3
		got := fit(fmt.Sprintf("oltp_point_select,1,10,5,1\noltp_point_select,4,%.6f,5,1\n", us))
		assert.InDelta(t, float64(own), float64(got.Footprint), 0.02*float64(own), "own %d from k = 4", own)
	}
}

// The client's column is fitted on the client's path: a probe made by
// clientGrowth gives its bytes back, on either thread handling, and a
// client that does not grow gets none.
func TestFitClientFootprintFindsTheBytesThatMadeTheProbe(t *testing.T) {
	p := rotationProfile()
	const server = 80 << 10
	for _, pool := range []bool{false, true} {
		for _, client := range []int64{0, 8 << 10, 40 << 10, 1 << 20} {
			var b strings.Builder
			b.WriteString("workload,connections,server_cpu_us_per_query,client_cpu_us_per_query,queries_per_event\n")
			for _, k := range []int{1, 4, 16, 64, 256, 1024} {
				fmt.Fprintf(&b, "oltp_point_select,%d,10,%.6f,1\n", k, 5+float64(clientGrowth(p, pool, server, client, k))/1e3)
			}
			rot, err := ParseRotation(strings.NewReader(b.String()), "rotation.csv")
			require.NoError(t, err)
			got, err := rot.fitClientFootprint(p, "oltp_point_select", pool, server)
			require.NoError(t, err)
			assert.InDelta(t, float64(client), float64(got.Footprint), 1024+0.02*float64(client), "pool %v, client %d", pool, client)
			assert.Equal(t, client == 0, got.AtFloor, "pool %v, client %d", pool, client)
		}
	}
	assert.Zero(t, clientGrowth(p, false, server, 40<<10, 1))
	assert.Less(t, clientGrowth(p, false, server, 40<<10, 64), clientGrowth(p, false, server, 40<<10, 1024))
	assert.Less(t, clientGrowth(p, false, 0, 40<<10, 256), clientGrowth(p, false, 1<<20, 40<<10, 256), "the server's bytes evict the client's")
}

func TestFitFootprintRefusesGrowthTheModelCannotMake(t *testing.T) {
	rot, err := ParseRotation(strings.NewReader("workload,connections,server_cpu_us_per_query,client_cpu_us_per_query,queries_per_event\noltp_point_select,1,1,5,1\noltp_point_select,64,1000000,5,1\n"), "rotation.csv")
	require.NoError(t, err)
	_, err = rot.fitFootprint(rotationProfile(), "oltp_point_select", false, 0)
	assert.ErrorIs(t, err, sim.ErrInvalidConfig)
	assert.ErrorContains(t, err, "more than the refill model gives a footprint of 1 GiB")
}

func TestRotationGrowsWithConnectionsAndFootprint(t *testing.T) {
	p := rotationProfile()
	for _, pool := range []bool{false, true} {
		assert.Equal(t, time.Duration(0), rotationGrowth(p, pool, 100<<10, 0, 1), "pool %v", pool)
		assert.Less(t, rotationGrowth(p, pool, 100<<10, 0, 16), rotationGrowth(p, pool, 100<<10, 0, 1024), "pool %v", pool)
		assert.Less(t, rotationGrowth(p, pool, 10<<10, 0, 1024), rotationGrowth(p, pool, 100<<10, 0, 1024), "pool %v", pool)
	}
	// the pool refills the THD only, not a thread's own w as well: the fit
	// of a pool curve used the thread-per-connection path and came out small
	assert.Less(t, rotationGrowth(p, true, 64<<10, 0, 1024), rotationGrowth(p, false, 64<<10, 0, 1024)/2)
	assert.Equal(t, p.Refill(64<<10, 2*p.SwitchFootprint+1023*(64<<10)), rotationGrowth(p, true, 64<<10, 0, 1024))
	// the client's bytes evict the server's, as the simulator counts them
	// (they were left out of the server's fit)
	for _, pool := range []bool{false, true} {
		assert.Less(t, rotationGrowth(p, pool, 64<<10, 0, 256), rotationGrowth(p, pool, 64<<10, 256<<10, 256), "pool %v", pool)
	}
}

func TestWithRotationSetsBothSidesFootprints(t *testing.T) {
	p := rotationProfile()
	table := `thread_handling,workload,cpus,threads,throughput,server_cpu_us_per_query,client_cpu_us_per_query,server_rss_kib,client_rss_kib
one-thread-per-connection,oltp_read_only,2,1,5000,60,30,100000,1000
one-thread-per-connection,oltp_read_only,2,64,9000,70,30,200000,60000
one-thread-per-connection,connect,2,1,1000,200,100,100000,1000
one-thread-per-connection,connect,2,64,2000,200,100,200000,60000
`
	ut, err := ParseUserTable(strings.NewReader(table), "live.csv")
	require.NoError(t, err)
	require.NotZero(t, ut.WithCosts(p).Cells[1].Client.ServerFootprint, "the memory columns give footprints without a probe")
	rot, err := ParseRotation(strings.NewReader(rotationCSV(p, 64<<10, 24<<10, 16)), "rotation.csv")
	require.NoError(t, err)
	got, fits, err := ut.WithCosts(p).WithRotation(rot)
	require.NoError(t, err)
	assert.InDelta(t, 64<<10, float64(got.Cells[1].Client.ServerFootprint), 2048)
	fit := fits["oltp_read_only thread_handling=one-thread-per-connection"]
	assert.Equal(t, fit.Server.Footprint, got.Cells[0].Client.ServerFootprint)
	assert.Len(t, fits, 1, "connect is not fitted")
	// the client's column gives its connection's client side, not the
	// client_rss_kib growth (59 MB for 63 threads)
	assert.InDelta(t, 24<<10, float64(got.Cells[1].Client.ClientFootprint), 1024)
	assert.Equal(t, fit.Client.Footprint, got.Cells[0].Client.ClientFootprint)
	assert.Zero(t, got.Cells[3].Client.ServerFootprint, "connect is not in the probe: no footprint, not its resident set's")
	assert.Zero(t, got.Cells[3].Client.ClientFootprint, "nor a client one")
	// a one-thread live row on an idle VM costs three times a busy core's:
	// the probe's one-connection row is the curve's own cost
	assert.InDelta(t, float64(20*time.Microsecond), float64(got.Cells[1].Client.ServerCPU), 1, "the probe's one-connection server CPU, not the table's 60 µs")
	assert.InDelta(t, float64(6*time.Microsecond), float64(got.Cells[1].Client.Event), 1, "the probe's one-connection client CPU, not the table's 30 µs")
	assert.Equal(t, 200*time.Microsecond, got.Cells[3].Client.ServerCPU, "connect keeps its row")
	assert.Equal(t, 60*time.Microsecond, ut.Cells[1].Client.ServerCPU)
	assert.NotZero(t, ut.WithCosts(p).Cells[1].Client.ClientFootprint, "WithRotation returns a copy")
	assert.Contains(t, got.Source, "footprints from rotation.csv")
}

func TestRotationRefusals(t *testing.T) {
	p := rotationProfile()
	good := rotationCSV(p, 64<<10, 24<<10, 16)
	head := "workload,connections,server_cpu_us_per_query,client_cpu_us_per_query,queries_per_event\n"
	for _, c := range []struct{ name, in, want string }{
		{"no queries_per_event", "workload,connections,server_cpu_us_per_query,client_cpu_us_per_query\noltp_read_only,1,20,5\n", `no column "queries_per_event"`},
		{"no row at one connection", head + "oltp_read_only,4,20,5,16\noltp_read_only,16,21,5,16\n", "want a row at 1 connection and at least one more"},
		{"one row only", head + "oltp_read_only,1,20,5,16\n", "want a row at 1 connection and at least one more"},
		// two settings' rows with the setting's column cut away
		{"a count twice", head + "oltp_read_only,1,20,5,16\noltp_read_only,1,21,5,16\n", "rotation.csv:3: oltp_read_only at 1 connections again (line 2): want each count once a curve (rows of several server settings need the setting's column"},
		{"a count twice in one setting", "thread_handling," + head + "pool-of-threads,oltp_read_only,1,20,5,16\npool-of-threads,oltp_read_only,1,21,5,16\n",
			"rotation.csv:3: oltp_read_only thread_handling=pool-of-threads at 1 connections again (line 2): want each count once a curve: "},
		{"a zero CPU", head + "oltp_read_only,1,0,5,16\n", `server_cpu_us_per_query = "0", want a number of µs in (0, 1000000]`},
		{"a zero client CPU", head + "oltp_read_only,1,20,0,16\n", `client_cpu_us_per_query = "0", want a number of µs in (0, 1000000]`},
		{"no connections", head + "oltp_read_only,0,20,5,16\n", `connections = "0", want 1..10000`},
		{"an unknown workload", head + "tpcc,1,20,5,16\n", `workload = "tpcc"`},
		// connect was fitted a footprint that validate then used; the probe
		// measures it at one connection only
		{"connect rotated", head + "connect,1,20,5,1\nconnect,64,50,5,1\n", `rotation.csv:3: connections = "64", want 1 (connect's connections live for one event`},
		// its figures per query are taken as per connection
		{"connect with more than one query an event", head + "connect,1,40,40,2\n", `queries_per_event = "2", want 1 (connect: one query a connection)`},
		{"a workload the probe does not run", head + "oltp_read_write,1,20,5,1\noltp_read_write,64,50,5,1\n", `workload = "oltp_read_write", want one of oltp_point_select, oltp_read_only, connect`},
		// the fit mixed growth per query ×16 and ×1
		{"two queries per event in a curve", head + "oltp_read_only,1,20,5,16\noltp_read_only,64,30,5,1\n",
			"rotation.csv:3: oltp_read_only has queries_per_event 1, but line 2 has 16: want one value a curve"},
		// a column of notes was taken for the setting
		{"a column the probe does not write", "notes," + head + "x,oltp_read_only,1,20,5,16\n", `column "notes", want workload,connections,server_cpu_us_per_query,client_cpu_us_per_query,queries_per_event and at most a thread_handling column`},
	} {
		_, err := ParseRotation(strings.NewReader(c.in), "rotation.csv")
		require.Error(t, err, c.name)
		assert.ErrorIs(t, err, sim.ErrInvalidConfig, c.name)
		assert.Contains(t, err.Error(), c.want, c.name)
	}
	rot, err := ParseRotation(strings.NewReader(good), "rotation.csv")
	require.NoError(t, err)
	_, err = rot.fitFootprint(p, "oltp_point_select", false, 0)
	assert.ErrorContains(t, err, "has no rows of oltp_point_select")
	bom, err := ParseRotation(strings.NewReader("\ufeff"+good), "rotation.csv")
	require.NoError(t, err, "a spreadsheet's byte-order mark")
	assert.Equal(t, "thread_handling", bom.Setting)
	// a curve the probe lacks was simulated with no footprint, silently
	pool, err := ParseUserTable(strings.NewReader("thread_handling,workload,cpus,threads,throughput\npool-of-threads,oltp_read_only,2,1,5\n"), "live.csv")
	require.NoError(t, err)
	_, _, err = pool.WithCosts(p).WithRotation(rot)
	assert.ErrorContains(t, err, "rotation.csv has no rows of oltp_read_only thread_handling=pool-of-threads, a curve of live.csv: want every curve but connect's in the probe")
	flat, _ := sim.Profile("new-kernel")
	_, err = rot.fitFootprint(flat, "oltp_read_only thread_handling=one-thread-per-connection", false, 0)
	assert.ErrorContains(t, err, "switch_footprint = 0, want a calibrated profile's")
	noSetting, err := ParseUserTable(strings.NewReader("workload,cpus,threads,throughput\noltp_read_only,2,1,5\n"), "live.csv")
	require.NoError(t, err)
	_, _, err = noSetting.WithCosts(p).WithRotation(rot)
	assert.ErrorContains(t, err, `rotation.csv sweeps thread_handling (a thread_handling column) and live.csv sweeps no setting (no setting column)`)
	published, err := ParseUserTable(strings.NewReader("cpus,scheduler,costs,workload,threads,published\n2,cfs,new-kernel,oltp_read_only,1,5\n"), "pub.csv")
	require.NoError(t, err)
	_, _, err = published.WithRotation(rot)
	assert.ErrorContains(t, err, "is not a live table")
}

// A pool curve is fitted on the pool's own refill path: a probe made by it
// gives its footprint back, which the thread-per-connection path does not.
func TestWithRotationFitsAPoolCurveOnThePoolsPath(t *testing.T) {
	p := rotationProfile()
	const own = 256 << 10
	var b strings.Builder
	b.WriteString("thread_handling,workload,connections,server_cpu_us_per_query,client_cpu_us_per_query,queries_per_event\n")
	for _, k := range []int{1, 16, 256, 1024} {
		fmt.Fprintf(&b, "pool-of-threads,oltp_point_select,%d,%.6f,5,1\n", k, 20+float64(rotationGrowth(p, true, own, 0, k))/1e3)
	}
	rot, err := ParseRotation(strings.NewReader(b.String()), "rotation.csv")
	require.NoError(t, err)
	ut, err := ParseUserTable(strings.NewReader("thread_handling,workload,cpus,threads,throughput\npool-of-threads,oltp_point_select,2,1,5\npool-of-threads,oltp_point_select,2,64,9\n"), "live.csv")
	require.NoError(t, err)
	_, fits, err := ut.WithCosts(p).WithRotation(rot)
	require.NoError(t, err)
	assert.InDelta(t, own, float64(fits["oltp_point_select thread_handling=pool-of-threads"].Server.Footprint), 0.02*own)
}

// What innosim live -rotation writes is what validate reads: the columns
// come from one place, and the committed probe parses.
func TestParseRotationReadsWhatLiveWrites(t *testing.T) {
	var b strings.Builder
	require.NoError(t, live.WriteRotationCSV(&b, "thread_handling", []live.RotationPoint{
		{Value: "pool-of-threads", Workload: "oltp_read_only", Connections: 1, ServerCPUPerQuery: 24 * time.Microsecond, ClientCPUPerQuery: 5 * time.Microsecond, QueriesPerEvent: 16},
		{Value: "pool-of-threads", Workload: "oltp_read_only", Connections: 64, ServerCPUPerQuery: 27 * time.Microsecond, ClientCPUPerQuery: 6 * time.Microsecond, QueriesPerEvent: 16}}))
	rot, err := ParseRotation(strings.NewReader(b.String()), "written.csv")
	require.NoError(t, err)
	assert.Equal(t, []string{"oltp_read_only thread_handling=pool-of-threads"}, rot.Curves())
	f, err := os.Open("../../docs/live/v1300-rotation.csv")
	require.NoError(t, err)
	defer f.Close()
	committed, err := ParseRotation(f, "docs/live/v1300-rotation.csv")
	require.NoError(t, err)
	assert.Len(t, committed.Curves(), 6, "three workloads (connect at one connection) × two thread handlings")
}

// connect's curves take the probe's one-connection row, its only one, as
// their CPU per connection (a core that never idles), not the table's
// one-thread row; a probe without connect leaves them their row, and neither
// fits a footprint to them.
func TestWithRotationTakesConnectsCostFromTheProbe(t *testing.T) {
	p := rotationProfile()
	probe := rotationCSV(p, 64<<10, 24<<10, 16) + "one-thread-per-connection,connect,1,41.4,44.3,1\n"
	rot, err := ParseRotation(strings.NewReader(probe), "rotation.csv")
	require.NoError(t, err)
	assert.Contains(t, rot.Curves(), "connect thread_handling=one-thread-per-connection")
	table := `thread_handling,workload,cpus,threads,throughput,server_cpu_us_per_query,client_cpu_us_per_query
one-thread-per-connection,connect,2,1,1000,62.9,54.2
one-thread-per-connection,connect,2,64,2000,72,64
`
	ut, err := ParseUserTable(strings.NewReader(table), "live.csv")
	require.NoError(t, err)
	got, fits, err := ut.WithCosts(p).WithRotation(rot)
	require.NoError(t, err)
	assert.Empty(t, fits, "no footprint for connect")
	for _, c := range got.Cells {
		assert.InDelta(t, float64(41400*time.Nanosecond), float64(c.Client.ServerCPU), 1)
		assert.InDelta(t, float64(44300*time.Nanosecond), float64(c.Client.Event), 1)
		assert.Zero(t, c.Client.ServerFootprint)
		assert.Zero(t, c.Client.ClientFootprint)
	}
	without, err := ParseRotation(strings.NewReader(rotationCSV(p, 64<<10, 24<<10, 16)), "rotation.csv")
	require.NoError(t, err)
	kept, _, err := ut.WithCosts(p).WithRotation(without)
	require.NoError(t, err)
	assert.InDelta(t, float64(62900*time.Nanosecond), float64(kept.Cells[1].Client.ServerCPU), 1, "its table's row")
}
