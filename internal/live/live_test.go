package live

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestValidateNamesTheFieldAndRange(t *testing.T) {
	cases := []struct {
		name   string
		change func(*Config)
		want   string
	}{
		{"an unknown workload", func(c *Config) { c.Workloads = []string{"oltp_insert"} }, "Workloads"},
		{"a workload twice", func(c *Config) { c.Workloads = []string{"connect", "connect"} }, "each workload once"},
		{"no threads", func(c *Config) { c.Threads = nil }, "Threads"},
		{"zero threads", func(c *Config) { c.Threads = []int{0} }, "1..10000"},
		{"too many threads", func(c *Config) { c.Threads = []int{10001} }, "1..10000"},
		{"a thread count twice", func(c *Config) { c.Threads = []int{4, 4} }, "each count once"},
		{"values without a setting", func(c *Config) { c.Setting = "" }, "Setting"},
		{"a setting that is no variable name", func(c *Config) { c.Setting = "a b" }, "server variable name"},
		{"a setting without values", func(c *Config) { c.Values = nil }, "Values"},
		{"an unknown thread_handling", func(c *Config) { c.Values = []string{"no-threads"} }, "one-thread-per-connection or pool-of-threads"},
		{"a value with a space", func(c *Config) { c.Setting, c.Values = "thread_pool_size", []string{"1 2"} }, "letters, digits"},
		{"a value twice", func(c *Config) { c.Values = []string{"pool-of-threads", "pool-of-threads"} }, "each value once"},
		{"a sub-second duration", func(c *Config) { c.Duration = 500 * time.Millisecond }, "Duration"},
		{"a fractional warm-up", func(c *Config) { c.Warmup = 1500 * time.Millisecond }, "Warmup"},
		{"no repeats", func(c *Config) { c.Repeats = 0 }, "Repeats = 0, want 1..100"},
		{"no tables", func(c *Config) { c.Tables = 0 }, "Tables = 0, want 1..64"},
		{"empty tables", func(c *Config) { c.TableSize = 0 }, "TableSize"},
		{"a tiny buffer pool", func(c *Config) { c.BufferPool = 1 << 20 }, "BufferPool"},
	}
	require.NoError(t, DefaultConfig().Validate())
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultConfig()
			tc.change(&c)
			err := c.Validate()
			require.ErrorIs(t, err, ErrInvalidConfig)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestParseStatsReadsSysbenchsReport(t *testing.T) {
	b, err := os.ReadFile("testdata/oltp_read_only.txt")
	require.NoError(t, err)
	s, err := ParseStats(string(b))
	require.NoError(t, err)
	assert.Equal(t, uint64(16880), s.Queries)
	assert.Equal(t, uint64(1055), s.Transactions)
	assert.InDelta(t, 8327.42, s.QPS, 1e-9)
	assert.InDelta(t, 520.46, s.TPS, 1e-9)
	assert.Equal(t, 41850*time.Microsecond, s.P95)
	assert.InDelta(t, 2.0259, s.Elapsed.Seconds(), 1e-9)
	assert.InDelta(t, 8327.42, s.Throughput("oltp_read_only"), 1e-9, "OLTP workloads count queries")
	assert.InDelta(t, 520.46, s.Throughput("connect"), 1e-9, "connect counts events (connections)")
}

func TestParseStatsNamesTheMissingLine(t *testing.T) {
	b, err := os.ReadFile("testdata/oltp_read_only.txt")
	require.NoError(t, err)
	for _, line := range []string{"transactions:", "queries:", "ignored errors:", "total time:", "95th percentile:"} {
		t.Run(line, func(t *testing.T) {
			var kept []string
			for _, l := range strings.Split(string(b), "\n") {
				if !strings.Contains(l, line) {
					kept = append(kept, l)
				}
			}
			_, err := ParseStats(strings.Join(kept, "\n"))
			require.Error(t, err)
			assert.Contains(t, err.Error(), line)
		})
	}
}

func TestMedianTakesTheMiddleRunWhole(t *testing.T) {
	ps := []Point{{Throughput: 30, P95: 3}, {Throughput: 10, P95: 1}, {Throughput: 20, P95: 2}}
	assert.Equal(t, Point{Throughput: 20, P95: 2}, median(ps, func(p Point) float64 { return p.Throughput }))
	assert.Equal(t, Point{Throughput: 10, P95: 1}, median(ps[1:], func(p Point) float64 { return p.Throughput }), "an even count takes the lower middle")
}

func TestTableHasRunsColumnsAndTheLiveOnes(t *testing.T) {
	pts := []Point{{Value: "pool-of-threads", Workload: "connect", Threads: 8, CPUs: 2, Throughput: 1234.5,
		Unit: "connections/s", P95: 2500 * time.Microsecond, ServerCPUPerQuery: 75 * time.Microsecond, ClientCPUPerQuery: 40 * time.Microsecond, Utilisation: 0.5,
		ServerRSS: 300 << 20, ClientRSS: 40<<20 + 512}}
	var b strings.Builder
	require.NoError(t, WriteCSV(&b, "thread_handling", pts))
	assert.Equal(t, "thread_handling,workload,cpus,threads,throughput,unit,utilisation,futex_spin_share,reads_per_s,writes_per_s,fsyncs_per_s,p95_latency_ms,server_cpu_us_per_query,client_cpu_us_per_query,server_rss_kib,client_rss_kib\n"+
		"pool-of-threads,connect,2,8,1234,connections/s,0.50,,,,,2.50,75.0,40.0,307200,40960\n", b.String())
	assert.Equal(t, "workload", Header("")[0], "no setting column without a setting")
}

func TestMissingProgramSaysHowToInstall(t *testing.T) {
	c := DefaultConfig()
	c.Sysbench = "/nonexistent/sysbench"
	c.Mariadbd, c.InstallDB = os.Args[0], os.Args[0] // any executable will do for these two
	_, err := findPrograms(c)
	require.ErrorIs(t, err, ErrMissing)
	assert.Contains(t, err.Error(), InstallHint)
}

func TestSysbenchArgsAreOnePoint(t *testing.T) {
	c := DefaultConfig()
	args := sysbenchArgs("oltp_read_only", "/tmp/x/mysqld.sock", c, 16, 5*time.Second, "run")
	assert.Equal(t, "oltp_read_only", args[0])
	assert.Equal(t, "run", args[len(args)-1])
	assert.Contains(t, args, "--threads=16")
	assert.Contains(t, args, "--time=5")
	assert.Contains(t, args, "--mysql-socket=/tmp/x/mysqld.sock")
}

func TestConnectScriptIsEmbedded(t *testing.T) {
	for _, call := range []string{"drv:connect()", `con:query("SELECT 1")`, "con:disconnect()"} {
		assert.Contains(t, string(connectScript), call)
	}
}

func TestCheckLimitsRefusesALoweredMaxConnections(t *testing.T) {
	dir := t.TempDir()
	s := &server{errlog: dir + "/error.log"}
	log := "2026-12-01 23:23:26 0 [Warning] Changed limits: max_connections: 214 (requested 3088)\n"
	require.NoError(t, os.WriteFile(s.errlog, []byte(log), 0o644))
	err := s.checkLimits(3088)
	require.ErrorIs(t, err, ErrLimit)
	assert.Contains(t, err.Error(), "Threads up to 1024 need max_connections 3088")
	assert.Contains(t, err.Error(), "want Threads ≤ 66")
	assert.NoError(t, s.checkLimits(200), "a sweep the lowered limit still serves")
}

func TestValidateRotationNamesTheFieldAndRange(t *testing.T) {
	c := DefaultConfig()
	c.Threads, c.Duration, c.Warmup = nil, 0, 0
	require.NoError(t, c.ValidateRotation([]int{1, 1024}))
	withConnect := c
	withConnect.Workloads = []string{"oltp_read_only", "connect"}
	require.NoError(t, withConnect.ValidateRotation([]int{1, 1024}), "connect, measured at one connection")
	assert.False(t, Rotates("connect"))
	assert.True(t, Rotates("oltp_read_only"))
	for _, tc := range []struct {
		name string
		edit func(*Config)
		k    []int
		want string
	}{
		{"a sweep's threads", func(c *Config) { c.Threads = []int{1} }, []int{1, 4}, "Threads, Duration, Warmup = [1], 0s, 0s, want none, 0, 0"},
		{"a sweep's time", func(c *Config) { c.Duration = time.Second }, []int{1, 4}, "want none, 0, 0"},
		{"a workload live does not run", func(c *Config) { c.Workloads = []string{"oltp_read_write"} }, []int{1, 4}, `Workloads = "oltp_read_write"`},
		{"no counts", func(*Config) {}, nil, "connections = [], want 1 and at least one more count in 2..10000"},
		// validate refused the CSV these wrote, after the whole probe ran
		{"no one-connection count", func(*Config) {}, []int{16, 64}, "connections = [16 64], want 1 and at least one more"},
		{"one count only", func(*Config) {}, []int{1}, "connections = [1], want 1 and at least one more"},
		{"a zero count", func(*Config) {}, []int{1, 0}, "connections = 0, want 1..10000"},
		{"a count twice", func(*Config) {}, []int{1, 4, 4}, "connections = 4 twice, want each count once"},
		{"a bad repeat count", func(c *Config) { c.Repeats = 0 }, []int{1, 4}, "Repeats = 0, want 1..100"},
	} {
		bad := c
		tc.edit(&bad)
		err := bad.ValidateRotation(tc.k)
		require.Error(t, err, tc.name)
		assert.ErrorIs(t, err, ErrInvalidConfig, tc.name)
		assert.Contains(t, err.Error(), tc.want, tc.name)
	}
}

func TestRotationCSVIsWhatValidateReads(t *testing.T) {
	var b strings.Builder
	require.NoError(t, WriteRotationCSV(&b, "thread_handling", []RotationPoint{
		{Value: "pool-of-threads", Workload: "oltp_read_only", Connections: 16, ServerCPUPerQuery: 23456 * time.Nanosecond, ClientCPUPerQuery: 5 * time.Microsecond, QueriesPerEvent: 16}}))
	assert.Equal(t, "thread_handling,workload,connections,server_cpu_us_per_query,client_cpu_us_per_query,queries_per_event\npool-of-threads,oltp_read_only,16,23.456,5.000,16\n", b.String())
	assert.Contains(t, string(rotationScript), "innosim-rotation events=%d server_ns=%d client_ns=%d")
}

func TestParseRotationReadsTheScriptsLine(t *testing.T) {
	report := "    transactions:                        7001   (46079.54 per sec.)\n    queries:                             112016 (26537.04 per sec.)\n" +
		"    ignored errors:                      0      (0.00 per sec.)\n    total time:                          0.2s\n    95th percentile:                        0.10\n"
	pt, err := parseRotation([]byte("innosim-rotation events=5000 server_ns=1600000000 client_ns=400000000\n"+report), "oltp_read_only", 64)
	require.NoError(t, err)
	assert.Equal(t, 16.0, pt.QueriesPerEvent)
	assert.Equal(t, 20*time.Microsecond, pt.ServerCPUPerQuery, "1.6 s over 5,000 events of 16 queries")
	assert.Equal(t, 5*time.Microsecond, pt.ClientCPUPerQuery)
	_, err = parseRotation([]byte("innosim-rotation events=5000 server_ns=-5 client_ns=4\n"+report), "oltp_read_only", 64)
	assert.ErrorContains(t, err, "a server thread exited")
	_, err = parseRotation([]byte(report), "oltp_read_only", 64)
	assert.ErrorContains(t, err, "printed no innosim-rotation line")
}
