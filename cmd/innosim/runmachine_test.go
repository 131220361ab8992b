package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/innosim/innosim/sim"
)

// pitbull is the 24-CPU box of MariaDB's thread-pool benchmarks.
const pitbull = "../../sim/spec/machines/pitbull.machine"

// The point-select sweep on a spec sheet, the client pinned to a
// quarter of the box: it runs on 18 server CPUs, and the keys the sheet
// assumes print under the table, one line each.
func TestRunMachineClientCPUs(t *testing.T) {
	code, out, errOut := runCmd("run", "--workload", "oltp_point_select", "--server", "mariadb-5.5", "--machine", pitbull,
		"--client", "cpu=5us", "--client-cpus", "quarter", "--threads", "8,32", "--measure", "10ms", "--warmup", "10ms",
		"--vary", "thread_handling=one-thread-per-connection,pool-of-threads")
	require.Equal(t, 0, code, errOut)
	assert.Regexp(t, `(?m)^one-thread-per-connection\s+18\s`, out)
	assert.Regexp(t, `(?m)^pool-of-threads\s+18\s`, out)
	assert.Contains(t, out, "machine pitbull (-machine "+pitbull+"): 24 CPUs, 6 for the client; kernel 2.6.32, cfs")
	assert.Contains(t, out, "\nassumed: sockets = 2 ")
	assert.Contains(t, out, "\nassumed: l3_per_socket = 12MiB ")
	assert.Contains(t, out, "\nassumed: kernel = 2.6.32 ")
	assert.Equal(t, 7, strings.Count(out, "\nassumed: "))
	assert.NotContains(t, errOut, "warning")
}

// The cells' machine is the sheet's: the server's CPUs (all but the
// client's, or -cpus), the client's cores, the sockets, the scheduler's
// tunables of the box and the caches of the server's share.
func TestMachineCellsAreTheSheets(t *testing.T) {
	build := func(args ...string) *sweep {
		t.Helper()
		o, err := parseRun(append([]string{"--workload", "oltp_point_select", "--machine", pitbull, "--client", "on", "--threads", "4"}, args...), os.Stderr)
		require.NoError(t, err)
		sw, err := buildSweep(o, &strings.Builder{}, &strings.Builder{})
		require.NoError(t, err)
		return sw
	}
	sw := build("--client-cpus", "quarter")
	require.Len(t, sw.cells, 1)
	m := sw.cells[0].Machine
	assert.Equal(t, 18, m.CPUs)
	assert.Equal(t, 6, m.ClientCPUs)
	assert.Equal(t, 2, m.Sockets)
	assert.Equal(t, sim.CFS, m.Scheduler)
	assert.Equal(t, int64(256<<10*12*18/24), m.Costs.CacheL2, "the server's share of the box's L2s")

	sw = build("--cpus", "8,12", "--client-cpus", "6")
	require.Len(t, sw.cells, 2)
	assert.Equal(t, 8, sw.cells[0].Machine.CPUs)
	assert.Equal(t, 12, sw.cells[1].Machine.CPUs)
	assert.Equal(t, 6, sw.cells[1].Machine.ClientCPUs)
	assert.Equal(t, sw.cells[0].Machine.Fair, sw.cells[1].Machine.Fair, "the tunables of the box's online CPUs")

	const calibrated = "../../docs/live/v1300-client-footprint.profile"
	calib, _, err := loadProfile(calibrated)
	require.NoError(t, err)
	require.NotZero(t, calib.SwitchFootprint)
	sw = build("--costs", calibrated)
	m = sw.cells[0].Machine
	assert.Equal(t, calib.SwitchFootprint, m.Costs.SwitchFootprint, "-costs gives the calibration's footprints")
	assert.Equal(t, calib.RefillLLC, m.Costs.RefillLLC)
	assert.Equal(t, int64(256<<10*12), m.Costs.CacheL2, "the sheet's caches, not the calibration's")

	sw = build()
	assert.Equal(t, 24, sw.cells[0].Machine.CPUs, "no -client-cpus: the client on the server's cores")
	assert.Equal(t, 0, sw.cells[0].Machine.ClientCPUs)
}

// -machine, -client-cpus and the flags they conflict with are refused,
// naming both and what is wanted.
func TestMachineRefusals(t *testing.T) {
	base := []string{"run", "--workload", "oltp_point_select", "--threads", "4", "--measure", "5ms"}
	bad := filepath.Join(t.TempDir(), "bad.machine")
	require.NoError(t, os.WriteFile(bad, []byte("sockets = 0\n"), 0o600))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--machine", pitbull, "--sched", "cfs"}, "-machine and -sched both given: the machine's kernel gives its scheduler: want one"},
		{[]string{"--machine", pitbull, "--profile", "new-kernel"}, "-machine and -profile both given"},
		{[]string{"--machine", pitbull, "--vary", "sched=cfs,eevdf"}, "-machine and -vary sched both given"},
		{[]string{"--machine", pitbull, "--client-cpus", "quarter"}, "-client-cpus without -client"},
		{[]string{"--client", "on", "--client-cpus", "quarter"}, "-client-cpus quarter without -machine"},
		{[]string{"--machine", pitbull, "--client", "on", "--client-cpus", "24"}, `-client-cpus "24": want quarter, or 0..23 of pitbull's 24 CPUs`},
		{[]string{"--client", "on", "--client-cpus", "x"}, `-client-cpus "x": want quarter, or 0..1023`},
		{[]string{"--machine", pitbull, "--client", "on", "--client-cpus", "quarter", "--cpus", "20"}, "-cpus 20 with -machine " + pitbull + " (24 CPUs, 6 of them the client's): want the server's CPUs, 1..18 and a multiple of its 2 sockets"},
		{[]string{"--machine", pitbull, "--cpus", "7"}, "a multiple of its 2 sockets"},
		{[]string{"--machine", bad}, "-machine: spec: " + bad},
	} {
		code, _, errOut := runCmd(append(base, tc.args...)...)
		assert.Equal(t, 2, code, "%v: %s", tc.args, errOut)
		assert.Contains(t, errOut, tc.want, tc.args)
	}
}

// thread_pool_* from -cnf and -vary reach the pool-of-threads cells, as
// 0 where they are the release's default; with one-thread-per-connection in
// every row a file's is warned of and a -vary refused; a value the release
// does not take is refused naming the key and its line.
func TestThreadPoolKeys(t *testing.T) {
	dir := t.TempDir()
	cnf := filepath.Join(dir, "my.cnf")
	require.NoError(t, os.WriteFile(cnf, []byte("[mysqld]\nthread_pool_size = 6\nthread_pool_stall_limit = 60\nthread_pool_oversubscribe = 3\n"), 0o600))
	args := []string{"--workload", "oltp_point_select", "--server", "mariadb-5.5", "--cnf", cnf, "--threads", "4", "--cpus", "4"}
	o, err := parseRun(append(args, "--vary", "thread_handling=one-thread-per-connection,pool-of-threads"), os.Stderr)
	require.NoError(t, err)
	var errOut strings.Builder
	sw, err := buildSweep(o, &strings.Builder{}, &errOut)
	require.NoError(t, err)
	one, pool := sw.cells[0], sw.cells[1]
	assert.Zero(t, one.ThreadPoolSize)
	assert.Zero(t, one.ThreadPoolStallLimit)
	assert.Equal(t, 6, pool.ThreadPoolSize)
	assert.Equal(t, 60e6, float64(pool.ThreadPoolStallLimit))
	assert.Zero(t, pool.ThreadPoolOversubscribe, "the default, spelt out")
	assert.Empty(t, errOut.String())

	o, err = parseRun(append(args, "--thread-handling", "pool-of-threads", "--vary", "thread_pool_max_threads=100,500"), os.Stderr)
	require.NoError(t, err)
	sw, err = buildSweep(o, &strings.Builder{}, &strings.Builder{})
	require.NoError(t, err)
	assert.Equal(t, 100, sw.cells[0].ThreadPoolMaxThreads)
	assert.Equal(t, 0, sw.cells[1].ThreadPoolMaxThreads, "500 is 5.5's default")

	code, _, stderr := runCmd(append([]string{"run", "--measure", "5ms"}, args...)...)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "my.cnf:2: thread_pool_size = 6 has no effect: thread_handling is one-thread-per-connection in every row")
	assert.Contains(t, stderr, "my.cnf:3: thread_pool_stall_limit = 60 milliseconds has no effect")

	code, _, stderr = runCmd(append([]string{"run", "--measure", "5ms"}, append(args, "--vary", "thread_pool_size=2,4")...)...)
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "-vary thread_pool_size with thread_handling = one-thread-per-connection in every row: thread_pool_size is read only with pool-of-threads")

	code, _, stderr = runCmd("run", "--measure", "5ms", "--workload", "oltp_point_select", "--server", "mariadb-5.5", "--threads", "4",
		"--thread-handling", "pool-of-threads", "--vary", "thread_pool_size=200")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "-vary thread_pool_size=200")
	assert.Contains(t, stderr, "1..128")

	code, _, stderr = runCmd("run", "--measure", "5ms", "--workload", "oltp_point_select", "--server", "mariadb-10.6", "--threads", "4",
		"--thread-handling", "pool-of-threads", "--vary", "thread_pool_stall_limit=5")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "thread_pool_stall_limit = 5, want 10..4294967295 (milliseconds)")
}

// -show-settings lists the pool's settings, thread_pool_size's default by
// what it stands for, and max threads by the release's default.
func TestShowSettingsListsThePool(t *testing.T) {
	code, out, errOut := runCmd("run", "--workload", "oltp_point_select", "--server", "mariadb-5.5", "--threads", "4", "--measure", "5ms",
		"--show-settings", "--thread-handling", "pool-of-threads")
	require.Equal(t, 0, code, errOut)
	assert.Regexp(t, `(?m)^  thread_pool_size\s+the server's CPUs\s+default$`, out)
	assert.Regexp(t, `(?m)^  thread_pool_stall_limit\s+500 milliseconds\s+default$`, out)
	assert.Regexp(t, `(?m)^  thread_pool_max_threads\s+500\s+default$`, out)
}

// run --json held no trace of -machine or -client-cpus: a JSON of the
// figures without the box they ran on. Its settings now give the sheet's
// path and name, the box's CPUs, cores and sockets, its kernel, the assumed
// keys with their values (numbers as numbers) and the client's cores.
func TestRunJSONRecordsTheMachine(t *testing.T) {
	code, out, errOut := runCmd("run", "--workload", "oltp_point_select", "--server", "mariadb-5.5", "--machine", pitbull,
		"--client", "cpu=5us", "--client-cpus", "quarter", "--threads", "8", "--measure", "2ms", "--warmup", "2ms", "--json", "-")
	require.Equal(t, 0, code, errOut)
	var js struct {
		ClientCPUs *int `json:"client_cpus"`
		Machine    *struct {
			Path    string `json:"path"`
			Name    string `json:"name"`
			CPUs    int    `json:"cpus"`
			Cores   int    `json:"cores"`
			Sockets int    `json:"sockets"`
			Kernel  string `json:"kernel"`
			Assumed []struct {
				Key   string `json:"key"`
				Value any    `json:"value"`
				Unit  string `json:"unit"`
			} `json:"assumed"`
		} `json:"machine"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &js), out)
	require.NotNil(t, js.ClientCPUs)
	assert.Equal(t, 6, *js.ClientCPUs)
	require.NotNil(t, js.Machine, "the machine is in the JSON")
	assert.Equal(t, pitbull, js.Machine.Path)
	assert.Equal(t, "pitbull", js.Machine.Name)
	assert.Equal(t, 24, js.Machine.CPUs)
	assert.Equal(t, 12, js.Machine.Cores)
	assert.Equal(t, 2, js.Machine.Sockets)
	assert.Equal(t, "2.6.32", js.Machine.Kernel)
	require.Len(t, js.Machine.Assumed, 7)
	byKey := map[string]any{}
	for _, a := range js.Machine.Assumed {
		byKey[a.Key] = a.Value
	}
	assert.Equal(t, 2.0, byKey["sockets"])
	assert.Equal(t, float64(256<<10), byKey["l2_per_core"])
	assert.Equal(t, 2.93, byKey["clock_ghz"])
	assert.Equal(t, "2.6.32", byKey["kernel"])

	// without -machine: no machine, and no client cores of its own
	code, out, errOut = runCmd("run", "--workload", "connect", "--threads", "1", "--measure", "2ms", "--warmup", "2ms", "--json", "-")
	require.Equal(t, 0, code, errOut)
	var plain map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &plain))
	assert.NotContains(t, plain, "machine")
	assert.Equal(t, 0.0, plain["client_cpus"])
}

// -client-cpus 7 on a two-socket box of 24 CPUs, -cpus not given, was
// refused as "-cpus 17", a flag the user never gave. The refusal now names
// -client-cpus, the server CPUs it leaves, and the counts that fit.
func TestClientCPUsThatLeaveNoMultipleOfTheSocketsAreNamed(t *testing.T) {
	code, _, errOut := runCmd("run", "--workload", "oltp_point_select", "--machine", pitbull,
		"--client", "cpu=5us", "--client-cpus", "7", "--threads", "4")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "innosim run: -client-cpus 7 with -machine "+pitbull+" (24 CPUs, 2 sockets): it leaves 17 server CPUs, not a multiple of the 2 sockets: want -client-cpus 6 or 8, or -cpus, a multiple of 2 up to 16")
	assert.NotContains(t, errOut, "-cpus 17")

	// a -cpus the user gave is the one refused
	code, _, errOut = runCmd("run", "--workload", "oltp_point_select", "--machine", pitbull,
		"--client", "cpu=5us", "--client-cpus", "7", "--cpus", "17", "--threads", "4")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "innosim run: -cpus 17 with -machine ")
}

// With -server mysql, a -cnf thread_pool_size was warned of as MariaDB's
// reading it only with pool-of-threads; MySQL has no thread pool, and the
// one warning now says so. A -vary of it names -server, not a
// -thread-handling that MySQL refuses too.
func TestMySQLHasNoThreadPool(t *testing.T) {
	cnf := filepath.Join(t.TempDir(), "my.cnf")
	require.NoError(t, os.WriteFile(cnf, []byte("[mysqld]\nthread_pool_size = 4\n"), 0o644))
	code, _, stderr := runCmd("run", "--workload", "oltp_point_select", "--server", "mysql", "--cnf", cnf,
		"--threads", "1", "--measure", "2ms", "--warmup", "2ms")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "my.cnf:2: [mysqld] thread_pool_size: MySQL has no thread pool")
	assert.NotContains(t, stderr, "MariaDB reads")
	assert.Equal(t, 1, strings.Count(stderr, "warning"), stderr)

	code, _, stderr = runCmd("run", "--workload", "oltp_point_select", "--server", "mysql",
		"--threads", "1", "--measure", "2ms", "--vary", "thread_pool_size=2,4")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "-vary thread_pool_size with -server mysql: MySQL has no thread pool (thread_pool_size is MariaDB's): want -server mariadb")
}
