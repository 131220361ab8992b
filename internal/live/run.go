package live

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"sort"
	"time"

	"github.com/innosim/innosim/internal/report"
)

// Point is one measured point of the sweep: the median of its repeats by
// throughput (the run whose throughput is the median; its other figures come
// with it).
type Point struct {
	// Value is the swept setting's value ("" when none is swept).
	Value    string
	Workload string
	Threads  int
	// CPUs is the cores this process may run on (runtime.NumCPU), shared by
	// the server and sysbench.
	CPUs int
	// Throughput is in Unit (Units[Workload]).
	Throughput float64
	Unit       string
	// P95 is sysbench's 95th-percentile event latency.
	P95 time.Duration
	// ServerCPUPerQuery is the server's CPU time (all its threads) over the
	// run divided by the queries completed.
	ServerCPUPerQuery time.Duration
	// ClientCPUPerQuery is sysbench's CPU time (user + system, from its
	// rusage when it exits, so its start-up and connections included) divided
	// by the queries completed: the client's cost on the same cores.
	ClientCPUPerQuery time.Duration
	// Utilisation is the server's and sysbench's CPU time over CPUs × the
	// run's wall time, 0..1 (more only when other processes' time is charged
	// to them); the sysbench side includes its connection set-up.
	Utilisation float64
	// Errors counts sysbench's ignored errors in the run.
	Errors uint64
	// ServerRSS is the server's largest resident set (VmRSS, bytes) seen
	// while the run's connections were open (sampled every rssEvery), and
	// ClientRSS sysbench's peak resident set (its ru_maxrss, bytes): across
	// a curve's thread counts, their growth per thread is the memory a
	// connection's server side and a client thread (its own Lua state) hold.
	ServerRSS, ClientRSS int64
}

// rssEvery is how often measure samples the server's resident set.
const rssEvery = 50 * time.Millisecond

// Run runs the sweep of c: for each value of c.Setting a server (the first
// one also prepares the tables), and on it each workload at each thread
// count, a warm-up and c.Repeats measured runs. It returns one Point per
// value × workload × threads, in that order. Whatever the outcome, the
// server is stopped and the private directory removed before Run returns; a
// cancelled ctx kills sysbench and the server and returns ctx's error.
func Run(ctx context.Context, c Config) ([]Point, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	var points []Point
	step := c.stepper(len(c.values()) * len(c.Workloads) * len(c.Threads))
	err := withServers(ctx, c, func(ctx context.Context, p programs, srv *server, dir, v string) error {
		script, err := writeConnectScript(dir)
		if err != nil {
			return err
		}
		pts, err := runValue(ctx, p, c, srv, script, v, step)
		points = append(points, pts...)
		return err
	})
	return points, err
}

// withServers makes the private directory and its datadir, and for each
// value of c.Setting (one server when none is swept) starts a server, has
// the first prepare the tables, calls fn with it and stops it. fn's error
// ends the loop. The directory is removed before withServers returns.
func withServers(ctx context.Context, c Config, fn func(ctx context.Context, p programs, srv *server, dir, v string) error) error {
	if !supported {
		return fmt.Errorf("live: needs Linux, not %s", runtime.GOOS)
	}
	p, err := findPrograms(c)
	if err != nil {
		return err
	}
	nofile, err := raiseOpenFiles()
	if err != nil {
		return err
	}
	if need := uint64(c.maxThreads()) + 64; nofile < need { // a socket per connection, and sysbench's own files
		return fmt.Errorf("live: Threads = %d needs %d open files (a socket per connection), but RLIMIT_NOFILE allows %d: want Threads in 1..%d, or raise ulimit -n: %w",
			c.maxThreads(), need, nofile, max(int(nofile)-64, 0), ErrLimit)
	}
	dir, err := privateDir(c)
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	c.logf("live: installing a datadir in %s", dir)
	if err := installDatadir(ctx, p, dir); err != nil {
		return err
	}
	for i, v := range c.values() {
		if err := withServer(ctx, p, c, dir, v, i == 0, fn); err != nil {
			return err
		}
	}
	return nil
}

// values are the setting's values a server each: c.Values, or one server
// ("") when no setting is swept.
func (c Config) values() []string {
	if c.Setting == "" {
		return []string{""}
	}
	return c.Values
}

// stepper returns the function to call after each of total points: it tells
// c.Progress, if any, the points done.
func (c Config) stepper(total int) func() {
	done := 0
	return func() {
		done++
		if c.Progress != nil {
			c.Progress(done, total)
		}
	}
}

// withServer starts a server with Setting = v, prepares the tables when
// asked, calls fn and stops the server.
func withServer(ctx context.Context, p programs, c Config, dir, v string, prepare bool, fn func(ctx context.Context, p programs, srv *server, dir, v string) error) error {
	c.logf("live: starting %s", c.serverLabel(v))
	srv, err := startServer(ctx, p, c, dir, c.Setting, v)
	if err != nil {
		return err
	}
	defer func() {
		if ctx.Err() != nil {
			srv.stop(0)
		} else {
			srv.stop(stopGrace)
		}
	}()
	if prepare {
		c.logf("live: sysbench prepare: %d tables of %d rows", c.Tables, c.TableSize)
		out, _, err := runGroup(ctx, p.sysbench, sysbenchArgs("oltp_point_select", srv.socket, c, min(c.Tables, 4), 0, "prepare")...)
		if err != nil {
			return fmt.Errorf("live: sysbench prepare: %w\n%s", err, tail(out, 20))
		}
	}
	return fn(ctx, p, srv, dir, v)
}

// serverLabel names the server of setting value v in log lines and errors.
func (c Config) serverLabel(v string) string {
	if c.Setting == "" {
		return "server"
	}
	return fmt.Sprintf("server with %s=%s", c.Setting, v)
}

// logf writes one line to c.Log, if any.
func (c Config) logf(format string, a ...any) {
	if c.Log != nil {
		fmt.Fprintf(c.Log, format+"\n", a...)
	}
}

// runValue runs every workload × threads point on srv, whose setting value
// is v, calling step after each.
func runValue(ctx context.Context, p programs, c Config, srv *server, script, v string, step func()) ([]Point, error) {
	label := c.serverLabel(v)
	var points []Point
	for _, w := range c.Workloads {
		name := w
		if w == "connect" {
			name = script
		}
		for _, th := range c.Threads {
			if c.Warmup > 0 {
				if out, _, err := runGroup(ctx, p.sysbench, sysbenchArgs(name, srv.socket, c, th, c.Warmup, "run")...); err != nil {
					return points, pointErr(ctx, label, w, th, "warm-up", err, out)
				}
			}
			var reps []Point
			for r := 0; r < c.Repeats; r++ {
				pt, err := measure(ctx, p, c, srv, name, w, th)
				if err != nil {
					return points, err
				}
				pt.Value = v
				reps = append(reps, pt)
			}
			pt := median(reps, func(p Point) float64 { return p.Throughput })
			c.logf("live: %s %s threads=%d: %.0f %s, p95 %v, server CPU %v/query, client CPU %v/query", label, w, th, pt.Throughput, pt.Unit, pt.P95, pt.ServerCPUPerQuery, pt.ClientCPUPerQuery)
			points = append(points, pt)
			step()
		}
	}
	return points, nil
}

// measure runs one measured sysbench run and reads the server's CPU time
// around it and its resident set during it.
func measure(ctx context.Context, p programs, c Config, srv *server, script, w string, th int) (Point, error) {
	before, err := processCPU(srv.pid())
	if err != nil {
		return Point{}, err
	}
	stop, peak := make(chan struct{}), make(chan int64, 1)
	go sampleRSS(srv.pid(), stop, peak)
	start := time.Now()
	out, u, err := runGroupUsage(ctx, nil, p.sysbench, sysbenchArgs(script, srv.socket, c, th, c.Duration, "run")...)
	wall := time.Since(start)
	close(stop)
	serverRSS := <-peak // after close(stop): the sampler has returned
	if err != nil {
		return Point{}, pointErr(ctx, "server", w, th, "run", err, out) // the caller's label is in its log line
	}
	after, err := processCPU(srv.pid())
	if err != nil {
		return Point{}, err
	}
	st, err := ParseStats(string(out))
	if err != nil {
		return Point{}, fmt.Errorf("%w\n%s", err, tail(out, 20))
	}
	pt := Point{Workload: w, Threads: th, CPUs: runtime.NumCPU(), Throughput: st.Throughput(w), Unit: Units[w],
		P95: st.P95, Errors: st.Errors, ServerRSS: serverRSS, ClientRSS: u.maxRSS}
	if st.Queries > 0 {
		pt.ServerCPUPerQuery = (after - before) / time.Duration(st.Queries)
		pt.ClientCPUPerQuery = u.cpu / time.Duration(st.Queries)
	}
	if wall > 0 {
		pt.Utilisation = float64(after-before+u.cpu) / (float64(pt.CPUs) * float64(wall))
	}
	return pt, nil
}

// sampleRSS reads pid's resident set at once and then every rssEvery until
// stop is closed, then sends the largest it read (0 if none) on peak and
// returns.
func sampleRSS(pid int, stop <-chan struct{}, peak chan<- int64) {
	var most int64
	if n, err := processRSS(pid); err == nil {
		most = n
	}
	tick := time.NewTicker(rssEvery)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			peak <- most
			return
		case <-tick.C:
			if n, err := processRSS(pid); err == nil {
				most = max(most, n)
			}
		}
	}
}

// pointErr wraps a failed sysbench run with the point and sysbench's output.
func pointErr(ctx context.Context, label, w string, th int, what string, err error, out []byte) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return fmt.Errorf("live: %s: sysbench %s %s --threads=%d: %w\n%s", label, what, w, th, err, tail(out, 20))
}

// median returns the element of median key (the lower middle of an even
// count): a sweep's point by throughput, a rotation's by server CPU.
func median[T any](xs []T, key func(T) float64) T {
	s := append([]T(nil), xs...)
	sort.SliceStable(s, func(i, j int) bool { return key(s[i]) < key(s[j]) })
	return s[(len(s)-1)/2]
}

// Header is the CSV header Table writes: innosim run --csv's columns (the
// swept setting first, then cpus .. fsyncs_per_s) with the workload after the
// setting, and the live columns at the end (latency, CPU per query, resident
// sets in KiB). futex_spin_share and the I/O
// rates are not measured live and are left empty.
func Header(setting string) []string {
	h := []string{}
	if setting != "" {
		h = append(h, setting)
	}
	return append(h, "workload", "cpus", "threads", "throughput", "unit", "utilisation", "futex_spin_share",
		"reads_per_s", "writes_per_s", "fsyncs_per_s", "p95_latency_ms", "server_cpu_us_per_query", "client_cpu_us_per_query",
		"server_rss_kib", "client_rss_kib")
}

// Table returns the points as a table with Header(setting)'s columns.
func Table(setting string, points []Point) report.Table {
	t := report.Table{Header: Header(setting)}
	for _, p := range points {
		row := []any{}
		if setting != "" {
			row = append(row, p.Value)
		}
		row = append(row, p.Workload, p.CPUs, p.Threads, p.Throughput, p.Unit, p.Utilisation, "", "", "", "",
			float64(p.P95)/float64(time.Millisecond), float64(p.ServerCPUPerQuery)/float64(time.Microsecond),
			float64(p.ClientCPUPerQuery)/float64(time.Microsecond), p.ServerRSS/1024, p.ClientRSS/1024)
		t.AddRow(row...)
	}
	return t
}

// WriteCSV writes Table(setting, points) as CSV.
func WriteCSV(w io.Writer, setting string, points []Point) error {
	t := Table(setting, points)
	return t.WriteCSV(w)
}
