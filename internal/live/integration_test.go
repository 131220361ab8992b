package live

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	if helper := os.Getenv(helperEnv); helper != "" {
		runHelper(helper)
		return
	}
	goleak.VerifyTestMain(m)
}

// tinySweep is a sweep small enough for a test: one table of 100 rows, one
// second a point, no warm-up, in dir. The tests that run one start a private
// MariaDB server and sysbench, ten to forty seconds each, so they run only
// with INNOSIM_FULL=1 (as .ci/run sets), and only where mariadbd and sysbench
// are installed.
func tinySweep(t *testing.T, dir string) Config {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("live runs need Linux")
	}
	if testing.Short() || os.Getenv("INNOSIM_FULL") != "1" {
		t.Skip("starts a MariaDB server for tens of seconds: set INNOSIM_FULL=1 (and no -short)")
	}
	c := DefaultConfig()
	if _, err := findPrograms(c); err != nil {
		t.Skipf("%v", err)
	}
	c.Threads, c.Duration, c.Warmup = []int{1, 2}, time.Second, 0
	c.Tables, c.TableSize, c.BufferPool = 1, 100, 16<<20
	c.TempDir = dir
	return c
}

// processesIn returns the command lines of the processes whose command line
// mentions dir (the private server's datadir, socket and sysbench's
// arguments all do).
func processesIn(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	require.NoError(t, err)
	var found []string
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue // not a process, or gone
		}
		if cmd := strings.ReplaceAll(string(b), "\x00", " "); strings.Contains(cmd, dir) {
			found = append(found, cmd)
		}
	}
	return found
}

func TestRunSweepsAndLeavesNothingRunning(t *testing.T) {
	dir := t.TempDir()
	c := tinySweep(t, dir)
	c.Workloads = []string{"oltp_point_select", "connect"}
	var progress [][2]int
	c.Progress = func(done, total int) { progress = append(progress, [2]int{done, total}) }
	pts, err := Run(context.Background(), c)
	require.NoError(t, err)
	require.Len(t, pts, 2*2*2, "values × workloads × threads")
	assert.Equal(t, [][2]int{{1, 8}, {2, 8}, {3, 8}, {4, 8}, {5, 8}, {6, 8}, {7, 8}, {8, 8}}, progress, "Progress after each point")
	for _, p := range pts {
		assert.Greater(t, p.Throughput, 0.0, "%+v", p)
		assert.Greater(t, p.P95, time.Duration(0), "%+v", p)
		// The server's CPU is read in clock ticks (10 ms): a point of fewer
		// than 1,000 queries, each well over 10 µs of server CPU, may use
		// less than one tick and read 0 (connect at one thread on a loaded
		// machine: 11 connections, 0 s).
		if queries := p.Throughput * c.Duration.Seconds(); queries >= 1000 {
			assert.Greater(t, p.ServerCPUPerQuery, time.Duration(0), "%+v", p)
		} else {
			assert.GreaterOrEqual(t, p.ServerCPUPerQuery, time.Duration(0), "%+v", p)
		}
	}
	assert.Equal(t, "pool-of-threads", pts[len(pts)-1].Value)
	assert.Empty(t, processesIn(t, dir), "a process of the sweep still runs")
	left, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, left, "the private directory was not removed")
}

// cancelWriter cancels, after delay, when a log line containing at appears.
type cancelWriter struct {
	mu     sync.Mutex
	at     string
	delay  time.Duration
	cancel context.CancelFunc
	timer  *time.Timer
}

func (w *cancelWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if strings.Contains(string(b), w.at) && w.timer == nil {
		w.timer = time.AfterFunc(w.delay, w.cancel)
	}
	return len(b), nil
}

// TestRunStopsTheServerWhenCancelled cancels once with the server up (at the
// prepare step) and once, by the clock, 3 s later, inside the first point's
// 30 s sysbench run.
func TestRunStopsTheServerWhenCancelled(t *testing.T) {
	for _, delay := range []time.Duration{0, 3 * time.Second} {
		t.Run("after prepare+"+delay.String(), func(t *testing.T) {
			dir := t.TempDir()
			c := tinySweep(t, dir)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			c.Log = &cancelWriter{at: "sysbench prepare", delay: delay, cancel: cancel}
			c.Duration = 30 * time.Second // so that the cancellation, not the end of the run, stops it
			start := time.Now()
			_, err := Run(ctx, c)
			require.True(t, errors.Is(err, context.Canceled), "err = %v", err)
			assert.Less(t, time.Since(start), 2*time.Minute)
			assert.Empty(t, processesIn(t, dir), "a process of the sweep still runs")
			left, err := os.ReadDir(dir)
			require.NoError(t, err)
			assert.Empty(t, left, "the private directory was not removed")
		})
	}
}

// Two sweeps (or two test runs) at once must not collide: with mariadbd's
// default tmpdir, /tmp, one of six concurrent mariadb-install-db on this
// host failed with ERROR 1051, one bootstrap's temporary table dropped by
// another. Each datadir now has a tmpdir of its own.
func TestConcurrentInstallsDoNotCollide(t *testing.T) {
	c := tinySweep(t, t.TempDir())
	p, err := findPrograms(c)
	require.NoError(t, err)
	const n = 6
	errs := make(chan error, n)
	for i := range n {
		dir := filepath.Join(c.TempDir, strconv.Itoa(i))
		require.NoError(t, os.Mkdir(dir, 0o700))
		go func() { errs <- installDatadir(t.Context(), p, dir) }()
	}
	for range n {
		assert.NoError(t, <-errs)
	}
	assert.Empty(t, processesIn(t, c.TempDir), "nothing left running")
}

// A sweep of a variable the server keeps only for old option files (MariaDB
// 10.11's innodb_thread_concurrency: "was removed. It does nothing now") ran
// one server twice and wrote a table validate then refused.
func TestRunRefusesASettingTheServerIgnores(t *testing.T) {
	dir := t.TempDir()
	c := tinySweep(t, dir)
	p, err := findPrograms(c)
	require.NoError(t, err)
	help, _ := exec.Command(p.mariadbd, "--no-defaults", "--innodb-thread-concurrency=4", "--verbose", "--help").CombinedOutput()
	if !strings.Contains(string(help), "'innodb-thread-concurrency' was removed") {
		t.Skip("this server still reads innodb_thread_concurrency")
	}
	c.Setting, c.Values = "innodb_thread_concurrency", []string{"0", "4"}
	_, err = Run(t.Context(), c)
	require.ErrorIs(t, err, ErrInvalidConfig)
	assert.ErrorContains(t, err, "Setting innodb_thread_concurrency: mariadbd ignores it")
	assert.Empty(t, processesIn(t, dir), "nothing left running")
}

func TestRotateLeavesNothingRunning(t *testing.T) {
	dir := t.TempDir()
	c := tinySweep(t, dir)
	c.Threads, c.Duration, c.Warmup = nil, 0, 0
	c.Workloads = []string{"oltp_point_select", "oltp_read_only", "connect"}
	c.Setting, c.Values = "thread_handling", []string{"one-thread-per-connection"}
	var progress [][2]int
	c.Progress = func(done, total int) { progress = append(progress, [2]int{done, total}) }
	pts, err := Rotate(context.Background(), c, []int{1, 8})
	require.NoError(t, err)
	require.Len(t, pts, 2*2+1, "workloads × connections, connect at one connection")
	assert.Equal(t, [][2]int{{1, 5}, {2, 5}, {3, 5}, {4, 5}, {5, 5}}, progress, "Progress after each point")
	for _, p := range pts {
		// thousands of queries, each well over 1 µs of server CPU, read in ns
		assert.Greater(t, p.ServerCPUPerQuery, time.Microsecond, "%+v", p)
		assert.Equal(t, "one-thread-per-connection", p.Value)
	}
	assert.Equal(t, 1.0, pts[0].QueriesPerEvent, "oltp_point_select: one query an event")
	assert.Equal(t, 16.0, pts[2].QueriesPerEvent, "oltp_read_only: BEGIN, 10 point selects, 4 ranges, COMMIT")
	assert.Equal(t, 8, pts[3].Connections)
	assert.Equal(t, "connect", pts[4].Workload)
	assert.Equal(t, 1, pts[4].Connections)
	assert.Equal(t, 1.0, pts[4].QueriesPerEvent, "connect: its SELECT 1")
	assert.Empty(t, processesIn(t, dir), "nothing left running")
}
