package live

import (
	"context"
	_ "embed"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/innosim/innosim/internal/report"
)

// rotationScript is the rotation probe's sysbench script (rotation.lua).
//
//go:embed rotation.lua
var rotationScript []byte

// RotationWorkloads are the workloads Rotate measures: all of Workloads,
// connect at one connection only (Rotates).
var RotationWorkloads = []string{"oltp_point_select", "oltp_read_only", "connect"}

// Rotates reports whether Rotate runs workload w on more than one
// connection: connect's connections live for one event, so there is nothing
// to send to the next one, and it is measured at one connection only (its
// CPU per connection on a core that never idles).
func Rotates(w string) bool { return w != "connect" }

// Rotation probe limits: how many events warm each point up and how many
// are measured, at least, and per connection in the rotation.
const (
	rotationWarmMin, rotationWarmPer     = 2000, 2
	rotationMeasureMin, rotationMeasured = 5000, 10
)

// RotationPoint is one point of the rotation probe: mariadbd's CPU time per
// query while one client thread runs the workload on Connections
// connections in turn (the median of the repeats).
type RotationPoint struct {
	// Value is the swept setting's value ("" when none is swept).
	Value       string
	Workload    string
	Connections int
	// ServerCPUPerQuery is the run time of all mariadbd's threads (the first
	// field of /proc/PID/task/*/schedstat, ns) over the measured events,
	// divided by their queries.
	ServerCPUPerQuery time.Duration
	// ClientCPUPerQuery is sysbench's CPU time (its user and system time,
	// Lua's os.clock) over the same events, divided by their queries. At one
	// connection the two are the programs' own costs on a core that never
	// idles (server and client take turns on it).
	ClientCPUPerQuery time.Duration
	// QueriesPerEvent is the workload's queries per event (1 for
	// oltp_point_select, 16 for oltp_read_only: BEGIN, 10 point selects, 4
	// ranges, COMMIT, each sent to the next connection; 1 for connect, its
	// SELECT 1).
	QueriesPerEvent float64
}

// Rotate runs the rotation probe: for each value of c.Setting a server, and
// on it, for each workload of c and each count k of connections (connect at
// k = 1 only, see Rotates), one sysbench thread that
// opens k connections and sends each statement of the workload to the next
// of them in turn, with the server and sysbench pinned to one CPU. Each
// connection's server side runs once every k statements, after the other
// k−1 ran, and nothing runs beside it, so how its CPU per query grows with k
// measures one thing: what a switch to it refills of the state that the
// other connections' state evicted from the caches (what
// sim.ClientConfig.ServerFootprint models).
//
// A point warms up for max(2000, 2k) events and measures max(5000, 10k);
// of c.Repeats runs, the one of median server CPU is kept. Rotate takes
// c's programs, workloads, setting, repeats, tables and buffer pool;
// c.Threads, c.Duration and c.Warmup belong to Run's sweep and must be
// zero. Connections are 1 and at least one more count, each 1..MaxThreads,
// each once. The server is stopped and the directory removed before Rotate
// returns, as with Run.
func Rotate(ctx context.Context, c Config, connections []int) ([]RotationPoint, error) {
	if err := c.ValidateRotation(connections); err != nil {
		return nil, err
	}
	c.Threads = connections // Run's limits (open files, max_connections) follow the largest
	perValue := 0
	for _, w := range c.Workloads {
		for _, k := range connections {
			if k == 1 || Rotates(w) {
				perValue++
			}
		}
	}
	step := c.stepper(len(c.values()) * perValue)
	var points []RotationPoint
	err := withServers(ctx, c, func(ctx context.Context, p programs, srv *server, dir, v string) error {
		script := filepath.Join(dir, "rotation.lua")
		if err := os.WriteFile(script, rotationScript, 0o644); err != nil {
			return fmt.Errorf("live: %w", err)
		}
		connect, err := writeConnectScript(dir)
		if err != nil {
			return err
		}
		cpu, err := pinTasks(srv.pid())
		if err != nil {
			return err
		}
		for _, w := range c.Workloads {
			for _, k := range connections {
				if k != 1 && !Rotates(w) {
					continue
				}
				var reps []RotationPoint
				for r := 0; r < c.Repeats; r++ {
					pt, err := rotateOnce(ctx, p, c, srv, c.serverLabel(v), script, connect, w, k, cpu)
					if err != nil {
						return err
					}
					pt.Value = v
					reps = append(reps, pt)
				}
				pt := median(reps, func(p RotationPoint) float64 { return float64(p.ServerCPUPerQuery) })
				c.logf("live: rotation on %s: %s connections=%d: server CPU %v/query, client CPU %v/query", c.serverLabel(v), w, k, pt.ServerCPUPerQuery, pt.ClientCPUPerQuery)
				points = append(points, pt)
				step()
			}
		}
		return nil
	})
	return points, err
}

// ValidateRotation checks c and connections for Rotate; the error wraps
// ErrInvalidConfig and names the field and its allowed range.
func (c Config) ValidateRotation(connections []int) error {
	probe := c
	probe.Threads, probe.Duration = []int{1}, time.Second // Validate's checks of the rest
	if err := probe.Validate(); err != nil {
		return err
	}
	bad := func(field, got, want string) error { return &FieldError{field, got, want} }
	if len(c.Threads) != 0 || c.Duration != 0 || c.Warmup != 0 {
		return bad("Threads, Duration, Warmup", fmt.Sprintf("%v, %v, %v", c.Threads, c.Duration, c.Warmup), "none, 0, 0 (the rotation probe's events are its own)")
	}
	for _, w := range c.Workloads {
		if !slices.Contains(RotationWorkloads, w) {
			return bad("Workloads", fmt.Sprintf("%q", w), strings.Join(RotationWorkloads, ", "))
		}
	}
	if len(connections) < 2 || !slices.Contains(connections, 1) {
		// the probe's figure is the growth over one connection
		return bad("connections", fmt.Sprint(connections), fmt.Sprintf("1 and at least one more count in 2..%d", MaxThreads))
	}
	for i, k := range connections {
		if k < 1 || k > MaxThreads {
			return bad("connections", strconv.Itoa(k), fmt.Sprintf("1..%d", MaxThreads))
		}
		if slices.Index(connections, k) != i {
			return bad("connections", fmt.Sprintf("%d twice", k), "each count once")
		}
	}
	return nil
}

var reRotation = regexp.MustCompile(`(?m)^innosim-rotation events=(\d+) server_ns=(-?\d+) client_ns=(\d+)$`)

// rotateOnce runs one rotation point (script the probe's, connect our
// connect script's path) and returns it (the median of repeats
// is the caller's; Value is not set).
func rotateOnce(ctx context.Context, p programs, c Config, srv *server, label, script, connect, w string, k, cpu int) (RotationPoint, error) {
	warm, measured := max(rotationWarmMin, rotationWarmPer*k), max(rotationMeasureMin, rotationMeasured*k)
	args := sysbenchArgs(script, srv.socket, c, 1, 0, "run")
	args = append(args[:len(args)-1], // before "run"
		"--events="+strconv.Itoa(warm+measured+1), "--rotation="+strconv.Itoa(k),
		"--rotation-warm="+strconv.Itoa(warm), "--rotation-events="+strconv.Itoa(measured),
		"--server-pid="+strconv.Itoa(srv.pid()), "run")
	// one of sysbench's own scripts; INNOSIM_SCRIPT set empty, so that a
	// caller's environment cannot name another
	env := []string{"INNOSIM_WORKLOAD=" + w, "INNOSIM_SCRIPT="}
	if w == "connect" {
		env = []string{"INNOSIM_SCRIPT=" + connect} // ours, written beside the probe's
	}
	out, err := runPinned(ctx, cpu, env, p.sysbench, args...)
	if err != nil {
		return RotationPoint{}, pointErr(ctx, label, w, 1, fmt.Sprintf("rotation over %d connections", k), err, out)
	}
	return parseRotation(out, w, k)
}

// parseRotation reads one rotation run's output: sysbench's report and the
// script's innosim-rotation line.
func parseRotation(out []byte, w string, k int) (RotationPoint, error) {
	st, err := ParseStats(string(out))
	if err != nil {
		return RotationPoint{}, fmt.Errorf("%w\n%s", err, tail(out, 20))
	}
	if st.Transactions == 0 || st.Errors > 0 {
		// the figures divide by events × queries an event
		return RotationPoint{}, fmt.Errorf("live: rotation over %d connections: %d events and %d ignored errors, want events and no errors\n%s", k, st.Transactions, st.Errors, tail(out, 20))
	}
	m := reRotation.FindSubmatch(out)
	if m == nil {
		return RotationPoint{}, fmt.Errorf("live: rotation over %d connections: sysbench printed no innosim-rotation line\n%s", k, tail(out, 20))
	}
	events, _ := strconv.ParseFloat(string(m[1]), 64)
	server, _ := strconv.ParseFloat(string(m[2]), 64)
	client, _ := strconv.ParseFloat(string(m[3]), 64)
	if server <= 0 {
		// a thread that exits between the two reads takes its whole run
		// time out of the sum (rotation.lua fails when it reads none)
		return RotationPoint{}, fmt.Errorf("live: rotation over %d connections: the server's threads' run time went from one read to the next by %.0f ns (a server thread exited): run it again", k, server)
	}
	perEvent := float64(st.Queries) / float64(st.Transactions) // the script's queries per event
	queries := events * perEvent
	return RotationPoint{Workload: w, Connections: k, QueriesPerEvent: perEvent,
		ServerCPUPerQuery: time.Duration(server / queries), ClientCPUPerQuery: time.Duration(client / queries)}, nil
}

// RotationHeader is the CSV header WriteRotationCSV writes.
func RotationHeader(setting string) []string {
	h := []string{}
	if setting != "" {
		h = append(h, setting)
	}
	return append(h, "workload", "connections", "server_cpu_us_per_query", "client_cpu_us_per_query", "queries_per_event")
}

// WriteRotationCSV writes the probe's points with RotationHeader's columns.
func WriteRotationCSV(w io.Writer, setting string, points []RotationPoint) error {
	t := report.Table{Header: RotationHeader(setting)}
	for _, p := range points {
		row := []any{}
		if setting != "" {
			row = append(row, p.Value)
		}
		// ns resolution, and queries per event as measured: both are read back
		us := func(d time.Duration) string {
			return strconv.FormatFloat(float64(d)/float64(time.Microsecond), 'f', 3, 64)
		}
		t.AddRow(append(row, p.Workload, p.Connections, us(p.ServerCPUPerQuery), us(p.ClientCPUPerQuery), strconv.FormatFloat(p.QueriesPerEvent, 'g', 6, 64))...)
	}
	return t.WriteCSV(w)
}
