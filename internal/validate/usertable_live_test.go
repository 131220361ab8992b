package validate

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/innosim/innosim/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// liveCSV is the shape of innosim live --csv: two curves of three points.
const liveCSV = `thread_handling,workload,cpus,threads,throughput,unit,utilisation,futex_spin_share,reads_per_s,writes_per_s,fsyncs_per_s,p95_latency_ms,server_cpu_us_per_query
one-thread-per-connection,oltp_point_select,2,1,5000,queries/s,0.3,,,,,0.2,60
one-thread-per-connection,oltp_point_select,2,64,10000,queries/s,0.9,,,,,10,90
one-thread-per-connection,oltp_point_select,2,1024,4000,queries/s,0.9,,,,,400,140
pool-of-threads,connect,2,1,1000,connections/s,0.3,,,,,1,200
pool-of-threads,connect,2,16,3000,connections/s,0.9,,,,,5,200
pool-of-threads,connect,2,256,2000,connections/s,0.9,,,,,100,230
`

func TestParseUserTableReadsALiveTable(t *testing.T) {
	ut, err := ParseUserTable(strings.NewReader(liveCSV), "live.csv")
	require.NoError(t, err)
	assert.True(t, ut.Live)
	assert.Equal(t, "thread_handling", ut.Setting)
	require.Len(t, ut.Cells, 6)
	assert.Equal(t, sim.OneThreadPerConnection, ut.Cells[0].ThreadHandling)
	assert.Equal(t, sim.PoolOfThreads, ut.Cells[5].ThreadHandling)
	assert.Equal(t, 256, ut.Cells[5].Threads)
	assert.Equal(t, "connect thread_handling=pool-of-threads", ut.Curves[5])
	assert.Equal(t, 4000.0, ut.Published[2])
	p, err := sim.Profile("old-kernel")
	require.NoError(t, err)
	assert.Equal(t, "old-kernel", ut.WithCosts(p).Cells[3].Machine.Costs.Name)
	assert.Equal(t, "new-kernel", ut.Cells[3].Machine.Costs.Name, "WithCosts returns a copy")
}

// TestLiveReadOnlyIsSimulatedAgainstItsServer: innosim live's oltp_read_only
// is sysbench 1.0's script against MariaDB 10.11, and its cells run the
// simulator's model of that (live.SimWorkloads), not study A's MySQL 5.1
// statement of the same name, whose kernel_mutex and buf_pool mutex that
// server does not have. The curve keeps the live name.
func TestLiveReadOnlyIsSimulatedAgainstItsServer(t *testing.T) {
	in := "workload,cpus,threads,throughput,unit\noltp_read_only,2,1,9000,queries/s\noltp_point_select,2,1,11000,queries/s\n"
	ut, err := ParseUserTable(strings.NewReader(in), "live.csv")
	require.NoError(t, err)
	require.Len(t, ut.Cells, 2)
	assert.Equal(t, "oltp_read_only_mariadb", ut.Cells[0].Workload)
	assert.Equal(t, "oltp_read_only", ut.Curves[0])
	assert.Equal(t, "oltp_point_select", ut.Cells[1].Workload)
}

func TestParseUserTableRefusesBadLiveTables(t *testing.T) {
	head := "workload,cpus,threads,throughput\n"
	for _, c := range []struct{ name, in, want string }{
		{"no workload column", "cpus,threads,throughput\n2,1,5\n", `no column "workload"`},
		{"a zero throughput", head + "connect,2,1,0\n", `live.csv:2: throughput = "0", want a number in 0.001..1e9`},
		{"an unknown workload", head + "tpcc,2,1,5\n", `workload = "tpcc"`},
		{"two setting columns", "a,b," + head + "x,y,connect,2,1,5\n", "two setting columns"},
		{"a setting the simulator ignores", "innodb_flush_method," + head + "O_DIRECT,connect,2,1,5\n", "a setting the simulator models (thread_handling)"},
		{"an unknown thread_handling", "thread_handling," + head + "no-threads,connect,2,1,5\n", `thread_handling = "no-threads", want one-thread-per-connection or pool-of-threads`},
		{"no rows", head, "no rows"},
		// a throughput in another unit was compared as if it were the workload's
		{"a unit the workload does not count", "workload,cpus,threads,throughput,unit\noltp_point_select,2,1,5,rows/s\n",
			`live.csv:2: unit = "rows/s", want queries/s (what oltp_point_select counts)`},
		// one curve's rows on two machines were read as one curve: its peak,
		// its top thread count and its one-thread probe mixed the two
		{"a curve on two core counts", head + "connect,2,1,5\nconnect,4,16,9\n",
			"live.csv:3: connect on 4 cpus, but line 2 has it on 2 cpus, want one core count a curve"},
		// refused only when the cells ran, as "cell 1 of 1", with no line
		{"a workload the live machine cannot run", head + "oltp_read_write,2,1,5\n",
			"live.csv:2: workload oltp_read_write cannot run on a live table's machine"},
		{"a server CPU below what the machine charges besides the bursts", "workload,cpus,threads,throughput,server_cpu_us_per_query\noltp_point_select,2,1,5,0.1\n",
			"live.csv:2: workload oltp_point_select cannot run on a live table's machine"},
		// the second measurement of a point became a seventh cell of its curve
		{"a point given twice", liveCSV + "pool-of-threads,connect,2,16,9000,connections/s,0.9,,,,,5,200\n",
			"live.csv:8: the point of line 6 again (connect thread_handling=pool-of-threads, 2 cpus, 16 threads)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseUserTable(strings.NewReader(c.in), "live.csv")
			require.ErrorIs(t, err, sim.ErrInvalidConfig)
			assert.Contains(t, err.Error(), c.want)
		})
	}
}

func TestLiveTablesCompareShapeAndLevelApart(t *testing.T) {
	ut, err := ParseUserTable(strings.NewReader(liveCSV), "live.csv")
	require.NoError(t, err)
	// the simulated point selects are flat (shape 1.0 against live 0.4) but
	// at the live level; the simulated connects have the live shape (2/3)
	// at twice the level
	simX := []float64{5000, 10000, 10000, 2000, 6000, 4000}
	ts := ut.liveTables(simX)
	require.Len(t, ts, 2)
	shape, level := ts[0], ts[1]
	require.Len(t, shape.Rows, 2)
	assert.Equal(t, "oltp_point_select thread_handling=one-thread-per-connection t1024/peak", shape.Rows[0].Label)
	assert.InDelta(t, 0.4, shape.Rows[0].Published, 1e-12)
	assert.InDelta(t, 1.0, shape.Rows[0].Simulated, 1e-12)
	assert.False(t, shape.Checks[0].Pass, shape.Checks[0].Detail)
	assert.InDelta(t, 2.0/3, shape.Rows[1].Simulated, 1e-12)
	assert.True(t, shape.Checks[1].Pass, shape.Checks[1].Detail)
	miss, _ := shape.Miss()
	assert.True(t, miss)

	require.Len(t, level.Rows, 1, "connect has no t64 row: no level")
	assert.Equal(t, 10000.0, level.Rows[0].Published, "point select at 64 threads")
	assert.InDelta(t, math.Log(1.5), level.MaxAbsLog, 1e-12)
	require.Len(t, level.Checks, 1)
	assert.False(t, level.Checks[0].Pass)
	miss, why := level.Miss()
	assert.True(t, miss, "connect's level cannot be made")
	assert.Contains(t, why, "connect")
}

// A live table without 64-thread rows was compared at its nearest thread
// count (t4 under "level at 64 threads", and it held), and a curve whose top
// thread count is its peak live and simulated compared 1.00 with 1.00, which
// held too. Neither check can be made: each fails, saying what is missing,
// and the tables miss however close the figures are.
func TestLiveChecksThatCannotBeMadeFailSayingWhy(t *testing.T) {
	in := `workload,cpus,threads,throughput
oltp_point_select,2,1,12000
oltp_point_select,2,2,115000
oltp_point_select,2,4,64000
connect,2,1,9000
connect,2,2,10000
connect,2,4,11000
`
	ut, err := ParseUserTable(strings.NewReader(in), "short.csv")
	require.NoError(t, err)
	ts := ut.liveTables(append([]float64(nil), ut.Published...)) // the simulator matches every cell
	require.Len(t, ts, 2)
	shape, level := ts[0], ts[1]

	require.Len(t, shape.Checks, 2)
	assert.True(t, shape.Checks[0].Pass, "point select falls from its peak at t2: its shape is compared (%s)", shape.Checks[0].Detail)
	assert.Equal(t, "connect: t4/peak within 0.15 of live", shape.Checks[1].Name)
	assert.False(t, shape.Checks[1].Pass, "connect's t4 is its peak live and simulated")
	assert.Contains(t, shape.Checks[1].Detail, "not made: t4 is the peak of both the live and the simulated curve")
	miss, _ := shape.Miss()
	assert.True(t, miss)

	assert.Empty(t, level.Rows, "no curve has a t64 row: no cell stands in for it")
	require.Len(t, level.Checks, 2)
	for i, c := range []string{"oltp_point_select", "connect"} {
		assert.Equal(t, c+": a row at 64 threads", level.Checks[i].Name)
		assert.False(t, level.Checks[i].Pass)
		assert.Contains(t, level.Checks[i].Detail, "not made: no t64 row (the curve has t1, t2, t4)")
	}
	miss, why := level.Miss()
	assert.True(t, miss)
	assert.Contains(t, why, "connect: a row at 64 threads")

	// the simulated connect falls at t4: its shape is compared, and holds
	simX := append([]float64(nil), ut.Published...)
	simX[4] = 11500
	ts = ut.liveTables(simX)
	assert.True(t, ts[0].Checks[1].Pass, ts[0].Checks[1].Detail)
}

func TestLiveCellsRunTheClientBesideTheServer(t *testing.T) {
	in := `workload,cpus,threads,throughput,client_cpu_us_per_query
oltp_point_select,2,64,10000,33
oltp_point_select,2,1,5000,27.5
oltp_point_select,2,1024,4000,
connect,2,4,900,
`
	ut, err := ParseUserTable(strings.NewReader(in), "live.csv")
	require.NoError(t, err)
	for i, c := range ut.Cells {
		require.NotNil(t, c.Client, "row %d", i)
		assert.True(t, c.RemoteWake, "row %d", i)
		require.NotNil(t, c.Steady, "row %d: warmed up until steady, not for a fixed time", i)
		require.NoError(t, c.Validate(), "row %d", i)
	}
	assert.NotSame(t, ut.Cells[0].Steady, ut.Cells[1].Steady, "each cell its own warm-up setting")
	for i := range 3 {
		assert.Equal(t, 27500*time.Nanosecond, ut.Cells[i].Client.Event, "row %d: the curve's 1-thread figure, whatever its own", i)
	}
	assert.Zero(t, ut.Cells[3].Client.Event, "a curve with no figure: a client of system calls only")
	assert.Zero(t, ut.Cells[0].Client.ServerCPU, "no server column: the workload's own bursts")

	_, err = ParseUserTable(strings.NewReader("workload,cpus,threads,throughput,client_cpu_us_per_query\nconnect,2,1,5,-3\n"), "live.csv")
	require.ErrorIs(t, err, sim.ErrInvalidConfig)
	assert.Contains(t, err.Error(), `client_cpu_us_per_query = "-3", want a number of µs in 0..1000000`)
}

func TestLiveCellsTakeTheServersCPUFromTheOneThreadRow(t *testing.T) {
	ut, err := ParseUserTable(strings.NewReader(liveCSV), "live.csv")
	require.NoError(t, err)
	for i := range 3 {
		assert.Equal(t, 60*time.Microsecond, ut.Cells[i].Client.ServerCPU, "row %d: point select's t1 figure, not its own", i)
	}
	for i := 3; i < 6; i++ {
		assert.Equal(t, 200*time.Microsecond, ut.Cells[i].Client.ServerCPU, "row %d", i)
	}
	// the measured figure sets the simulated level of one thread: a dearer
	// server per query is a slower lone connection
	cheap := strings.Replace(liveCSV, "1,5000,queries/s,0.3,,,,,0.2,60", "1,5000,queries/s,0.3,,,,,0.2,30", 1)
	ut2, err := ParseUserTable(strings.NewReader(cheap), "live.csv")
	require.NoError(t, err)
	a, err := ut.Cells[0].Run(context.Background())
	require.NoError(t, err)
	b, err := ut2.Cells[0].Run(context.Background())
	require.NoError(t, err)
	assert.Greater(t, b.Throughput, 1.3*a.Throughput, "30 µs: %.0f/s, 60 µs: %.0f/s", b.Throughput, a.Throughput)

	bad := strings.Replace(liveCSV, ",0.2,60", ",0.2,-1", 1)
	_, err = ParseUserTable(strings.NewReader(bad), "live.csv")
	require.ErrorIs(t, err, sim.ErrInvalidConfig)
	assert.Contains(t, err.Error(), `server_cpu_us_per_query = "-1", want a number of µs in 0..1000000`)
}

func TestLiveCellsTakeFootprintsFromTheResidentSetsGrowth(t *testing.T) {
	in := `workload,cpus,threads,throughput,server_rss_kib,client_rss_kib
oltp_point_select,2,1,5000,100000,10000
oltp_point_select,2,64,9000,100630,16300
oltp_point_select,2,1024,4000,110230,112300
connect,2,4,900,,
connect,2,64,800,50000,9000
connect,2,256,700,49000,9000
`
	parsed, err := ParseUserTable(strings.NewReader(in), "live.csv")
	require.NoError(t, err)
	assert.True(t, parsed.ResidentFootprints())
	for i, c := range parsed.Cells {
		// the parse's profile (new-kernel) has no caches: a footprint
		// there was charged nothing, silently
		assert.Zero(t, c.Client.ServerFootprint+c.Client.ClientFootprint, "row %d: no footprint without a calibrated profile", i)
	}
	ut := parsed.WithCosts(rotationProfile())
	require.NoError(t, ut.Validate())
	// point select: server 10 KiB, client 100 KiB more per thread, on a line
	for i := range 3 {
		assert.Equal(t, int64(10<<10), ut.Cells[i].Client.ServerFootprint, "row %d: the curve's slope, whatever the row's own", i)
		assert.Equal(t, int64(100<<10), ut.Cells[i].Client.ClientFootprint, "row %d", i)
	}
	for i := 3; i < 6; i++ {
		assert.Zero(t, ut.Cells[i].Client.ServerFootprint, "row %d: a set that shrinks gives no footprint", i)
		assert.Zero(t, ut.Cells[i].Client.ClientFootprint, "row %d: a set that does not grow gives none", i)
	}
	_, err = ParseUserTable(strings.NewReader("workload,cpus,threads,throughput,server_rss_kib\nconnect,2,1,5,x\n"), "live.csv")
	require.ErrorIs(t, err, sim.ErrInvalidConfig)
	assert.Contains(t, err.Error(), `server_rss_kib = "x", want a number of KiB in 0..1000000000`)
}

// A cell whose warm-up reached no steady state stopped the whole validate
// run (every other table unprinted); now it has no figure, fails a check of
// its own, and the rest of the table is still compared.
func TestALiveCellThatIsNeverSteadyMissesItsTableOnly(t *testing.T) {
	ut, err := ParseUserTable(strings.NewReader(`workload,cpus,threads,throughput
oltp_point_select,2,1,5000
oltp_point_select,2,64,9000
`), "live.csv")
	require.NoError(t, err)
	// one series of 2 ms after the sleepers' credit (128 threads × 12 ms on
	// 2 CPUs) and no room for another: 500 observations of a fifth of a
	// wave of 64 connections do not fit in it
	ut.Cells = append([]sim.Cell(nil), ut.Cells...)
	ut.Cells[1].Measure = time.Millisecond
	ut.Cells[1].Steady = &sim.SteadyWarmup{Max: 770 * time.Millisecond}
	tables, err := ut.Tables(context.Background(), 1)
	require.NoError(t, err)
	require.Len(t, tables, 2)
	level := tables[1]
	assert.True(t, math.IsNaN(level.Rows[0].Simulated), "no figure for the unsteady cell")
	missed, why := level.Miss()
	assert.True(t, missed)
	assert.Contains(t, why, "oltp_point_select 2cpu t64 reached a steady state")
	var failed bool
	for _, c := range level.Checks {
		if !c.Pass {
			failed = true
			assert.Contains(t, c.Detail, "not steady at its bound")
		}
	}
	assert.True(t, failed)
	shape := tables[0]
	assert.False(t, shape.Checks[0].Pass, "the curve's top cell has no figure")
}

// A live table's figures are the user's own measurements, and validate
// calls them live, not published: it labelled them "published" and the
// error "sim/pub".
func TestLiveTablesCallTheirFiguresLive(t *testing.T) {
	in := `workload,cpus,threads,throughput
oltp_point_select,2,1,12000
oltp_point_select,2,8,20000
oltp_point_select,2,64,15000
`
	ut, err := ParseUserTable(strings.NewReader(in), "live.csv")
	require.NoError(t, err)
	ts := ut.liveTables(append([]float64(nil), ut.Published...))
	var b strings.Builder
	_, err = Write(&b, ts)
	require.NoError(t, err)
	out := b.String()
	assert.Contains(t, out, "cell")
	assert.Regexp(t, `cell\s+live\s+simulated\s+sim/live\n`, out)
	assert.Contains(t, out, "mean |log(sim/live)|")
	assert.NotContains(t, out, "published")
	assert.NotContains(t, out, "sim/pub")

	pub, err := ParseUserTable(strings.NewReader(userCSV), "lab.csv")
	require.NoError(t, err)
	b.Reset()
	_, err = Write(&b, []Table{{Name: pub.Name, Use: Predicted, Rows: []Row{{Label: "x", Published: 2, Simulated: 2}}}})
	require.NoError(t, err)
	assert.Regexp(t, `cell\s+published\s+simulated\s+sim/pub\n`, b.String(), "a published table keeps its words")
}
