package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/innosim/innosim/internal/cmdflag"
	"github.com/innosim/innosim/internal/live"
	"github.com/innosim/innosim/internal/outfile"
	"github.com/innosim/innosim/internal/report"
)

func liveCommand() command {
	return command{
		name:    "live",
		summary: "run a private MariaDB server under sysbench on this machine: the CSV of run --csv, plus p95 latency and server CPU per query",
		run:     liveRun,
	}
}

// liveFlags are live's flags, parsed into a live.Config by config.
type liveFlags struct {
	workloads, setting, csv string
	mariadbd, installDB, sb string
	threads, rotation       []int
	cfg                     live.Config
	bufferPoolMiB           int64
}

// parseLiveFlags parses live's command line into a sweep and the CSV path.
// With -rotation it is the rotation probe's (live.Rotate) at those counts of
// connections, whose Threads, Duration and Warmup are zero.
func parseLiveFlags(args []string, stderr io.Writer) (cfg live.Config, csvPath string, rotation []int, done bool, err error) {
	fs := cmdflag.New("live", stderr, "innosim live [flags]",
		"Starts a private mariadbd (a temporary datadir, a Unix socket, no network), prepares",
		"sysbench's tables and runs every setting value × workload × threads point, then stops",
		"the server and removes its directory, also on Ctrl-C, which keeps the points measured",
		"(the CSV marked incomplete); the server dies with innosim, and the next run removes",
		"what a killed one left. Needs Linux and",
		"  "+live.InstallHint)
	def := live.DefaultConfig()
	f := liveFlags{cfg: def, threads: def.Threads}
	fs.StringVar(&f.workloads, "workload", "oltp_point_select", "workloads, comma-separated: "+strings.Join(live.Workloads, ", "))
	fs.CountsVar(&f.threads, "threads", def.Threads, live.MaxThreads, fmt.Sprintf("client thread `counts` (sysbench --threads), comma-separated, each 1..%d (run and printed in ascending order)", live.MaxThreads))
	fs.StringVar(&f.setting, "setting", "thread_handling=one-thread-per-connection,pool-of-threads", "one server variable and its values, key=v1,v2 (the server restarts per value); empty for none")
	fs.DurationVar(&f.cfg.Duration, "time", f.cfg.Duration, "measured time per point, a `duration` of whole seconds, 1s..1h")
	fs.DurationVar(&f.cfg.Warmup, "warmup", f.cfg.Warmup, "unmeasured run before each point, a `duration` of whole seconds, 0..1h; 0 for none")
	fs.IntRangeVar(&f.cfg.Repeats, "repeats", f.cfg.Repeats, 1, live.MaxRepeats, fmt.Sprintf("measured `runs` per point, 1..%d; the median by throughput is reported (with -rotation, by server CPU; of an even count, the lower middle)", live.MaxRepeats))
	fs.IntRangeVar(&f.cfg.Tables, "tables", f.cfg.Tables, 1, 64, "sysbench --tables, a `count` of 1..64")
	fs.IntRangeVar(&f.cfg.TableSize, "table-size", f.cfg.TableSize, 1, 10_000_000, "sysbench --table-size, `rows` per table, 1..10000000")
	fs.Int64Var(&f.bufferPoolMiB, "buffer-pool", f.cfg.BufferPool>>20, "innodb_buffer_pool_size in MiB, 8..65536")
	fs.StringVar(&f.csv, "csv", "", "also write the points to this CSV file (innosim validate --table reads it; with -rotation, validate --rotation); - writes it to stdout instead of the table")
	fs.CountsVar(&f.rotation, "rotation", nil, live.MaxThreads, fmt.Sprintf("instead of the sweep, the rotation probe: one client thread running the workload on each of these `counts` of connections in turn (comma-separated: 1 and at least one more in 2..%d, run in ascending order), server and client on one CPU, printing the server's CPU per query; connect, whose connections live for one event, at 1 connection only (not with -threads, -time, -warmup)", live.MaxThreads))
	fs.StringVar(&f.mariadbd, "mariadbd", "", "mariadbd program (default: from PATH, /usr/sbin)")
	fs.StringVar(&f.installDB, "install-db", "", "mariadb-install-db program (default: from PATH, /usr/bin)")
	fs.StringVar(&f.sb, "sysbench", "", "sysbench program (default: from PATH)")
	if err := fs.Parse(args); err != nil {
		return cfg, "", nil, true, err
	}
	clash := fs.GivenOf("threads", "time", "warmup")
	if err := fs.Check(
		cmdflag.NoArgs(),
		cmdflag.Refuse(func() bool { return len(f.rotation) > 0 && len(clash) > 0 },
			"-rotation runs its own events on one client thread: want no %s with it", strings.Join(clash, ", ")),
		cmdflag.Refuse(func() bool { return f.bufferPoolMiB < 8 || f.bufferPoolMiB > 64<<10 }, "-buffer-pool %d: want 8..65536 (MiB)", f.bufferPoolMiB),
	); err != nil {
		return cfg, "", nil, true, err
	}
	c := f.cfg
	c.Workloads = strings.Split(f.workloads, ",")
	c.Threads = f.threads
	c.Setting, c.Values = "", nil
	if f.setting != "" {
		k, vals, err := cmdflag.KeyValues("-setting", f.setting)
		if err != nil {
			return cfg, "", nil, true, err
		}
		c.Setting, c.Values = strings.ReplaceAll(k, "-", "_"), vals
	}
	c.BufferPool = f.bufferPoolMiB << 20
	c.Mariadbd, c.InstallDB, c.Sysbench = f.mariadbd, f.installDB, f.sb
	if len(f.rotation) > 0 {
		c.Threads, c.Duration, c.Warmup = nil, 0, 0
		if err := c.ValidateRotation(f.rotation); err != nil {
			return cfg, "", nil, true, liveFlagError(err)
		}
		return c, f.csv, f.rotation, false, nil
	}
	if err := c.Validate(); err != nil {
		return cfg, "", nil, true, liveFlagError(err)
	}
	return c, f.csv, nil, false, nil
}

// liveFieldFlags names the flag behind each live.Config field (live.FieldError).
var liveFieldFlags = map[string]string{
	"Workloads": "-workload", "Threads": "-threads", "Setting": "-setting", "Values": "-setting values",
	"Duration": "-time", "Warmup": "-warmup", "Repeats": "-repeats", "Tables": "-tables",
	"TableSize": "-table-size", "BufferPool": "-buffer-pool", "connections": "-rotation",
}

// liveFlagError returns a refusal of live.Config.Validate or
// ValidateRotation as a usage error that names the flag of its field,
// keeping the error (errors.As a *live.FieldError, errors.Is
// live.ErrInvalidConfig).
func liveFlagError(err error) error {
	var fe *live.FieldError
	if errors.As(err, &fe) {
		if fl, ok := liveFieldFlags[fe.Field]; ok {
			return cmdflag.Usagef("%s: %w", fl, err)
		}
	}
	return cmdflag.Usagef("%w", err)
}

func liveRun(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, csvPath, rotation, done, err := parseLiveFlags(args, stderr)
	if done {
		return err
	}
	outs, err := outputs(stdout, "-csv", csvPath)
	if err != nil {
		return err
	}
	defer discardAll(outs)
	text := stdout // the table, unless the CSV goes to stdout instead
	if anyStdout(outs) {
		text = io.Discard
	}
	prog := newProgress(stderr, "live")
	defer prog.Close()
	cfg.Log = innosimLines{prog} // its lines and the progress lines, one at a time
	cfg.Progress = prog.Phase("points", "points")
	if len(rotation) > 0 {
		return liveRotate(ctx, cfg, rotation, outs[0], text, prog.Close)
	}
	points, err := live.Run(ctx, cfg)
	prog.Close()
	if err != nil {
		total := max(len(cfg.Values), 1) * len(cfg.Workloads) * len(cfg.Threads)
		return keepMeasured(ctx, err, len(points), total, outs[0], text, liveTable(cfg, points),
			func(w io.Writer) error { return live.WriteCSV(w, cfg.Setting, points) })
	}
	t := liveTable(cfg, points)
	if err := t.WriteText(text); err != nil {
		return err
	}
	return outs[0].WriteStream(func(w io.Writer) error { return live.WriteCSV(w, cfg.Setting, points) })
}

// keepMeasured returns what live reports of a sweep (or rotation probe)
// that stopped early with err, an interruption (ctx done) or a failure,
// after measuring n of its total points: the measured points are kept, the
// table printed (marked incomplete) and the CSV written by writeCSV after a
// "# incomplete: ..." line, which validate reads as a comment and names (an
// interrupted sweep discarded every point measured). A refusal of the
// configuration (live.ErrInvalidConfig) before any point is a usage error.
func keepMeasured(ctx context.Context, err error, n, total int, out *outfile.File, stdout io.Writer, table report.Table, writeCSV func(io.Writer) error) error {
	interrupted := ctx.Err() != nil
	if errors.Is(err, live.ErrInvalidConfig) && !interrupted && n == 0 {
		return cmdflag.Usagef("%v", err)
	}
	how := "failed"
	if interrupted {
		how = "interrupted"
	}
	note := fmt.Sprintf("incomplete: %s after %d of %d points", how, n, total)
	if n == 0 {
		if interrupted {
			return fmt.Errorf("interrupted: server stopped, nothing measured, no output written: %w", err)
		}
		return err
	}
	table.Title += " (" + note + ")"
	_ = table.WriteText(stdout) // stdout may be what went away (SIGPIPE)
	where := ""
	if out.Path() != "" {
		werr := out.WriteStream(func(w io.Writer) error {
			if _, err := fmt.Fprintf(w, "# %s\n", note); err != nil {
				return err
			}
			return writeCSV(w)
		})
		if werr != nil {
			return fmt.Errorf("%w (and %v)", err, werr)
		}
		where = fmt.Sprintf("; the %d measured are in %s, marked incomplete", n, out.Path())
	}
	if interrupted {
		return fmt.Errorf("interrupted after %d of %d points, server stopped%s: %w", n, total, where, err)
	}
	return fmt.Errorf("%w\n(%s%s)", err, note, where)
}

// liveTable is live's printed table: a row per setting value × workload, a
// column per thread count.
func liveTable(cfg live.Config, points []live.Point) report.Table {
	t := report.Table{Title: "live: throughput by client threads (queries/s; connect: connections/s)"}
	if cfg.Setting != "" {
		t.Header = append(t.Header, cfg.Setting)
	}
	t.Header = append(t.Header, "workload", "cpus")
	for _, th := range cfg.Threads {
		t.Header = append(t.Header, "t"+strconv.Itoa(th))
	}
	for i := 0; i < len(points); i += len(cfg.Threads) {
		row := []any{}
		if cfg.Setting != "" {
			row = append(row, points[i].Value)
		}
		row = append(row, points[i].Workload, points[i].CPUs)
		for j := range cfg.Threads {
			if i+j < len(points) {
				row = append(row, points[i+j].Throughput)
			} else {
				row = append(row, "") // not measured: the sweep stopped first
			}
		}
		t.AddRow(row...)
	}
	return t
}

// liveRotate runs live -rotation: the probe, its table, and its CSV. It
// calls probed once the probe ends (the progress ends there).
func liveRotate(ctx context.Context, cfg live.Config, rotation []int, out *outfile.File, stdout io.Writer, probed func()) error {
	points, err := live.Rotate(ctx, cfg, rotation)
	probed()
	t := rotationTable(cfg, rotation, points)
	if err != nil {
		total := 0
		for _, w := range cfg.Workloads {
			if live.Rotates(w) {
				total += len(rotation)
			} else {
				total++ // connect: at one connection only
			}
		}
		total *= max(len(cfg.Values), 1)
		return keepMeasured(ctx, err, len(points), total, out, stdout, t,
			func(w io.Writer) error { return live.WriteRotationCSV(w, cfg.Setting, points) })
	}
	if err := t.WriteText(stdout); err != nil {
		return err
	}
	return out.WriteStream(func(w io.Writer) error { return live.WriteRotationCSV(w, cfg.Setting, points) })
}

// rotationTable is live -rotation's printed table: a row per setting value
// × workload, a column per count of connections.
func rotationTable(cfg live.Config, rotation []int, points []live.RotationPoint) report.Table {
	t := report.Table{Title: "live -rotation: the server's CPU per query (µs) by connections used in turn"}
	if cfg.Setting != "" {
		t.Header = append(t.Header, cfg.Setting)
	}
	t.Header = append(t.Header, "workload")
	for _, k := range rotation {
		t.Header = append(t.Header, "c"+strconv.Itoa(k))
	}
	for i := 0; i < len(points); { // a row a workload (and value), its points in rotation's order
		first, from := points[i], i
		row := []any{}
		if cfg.Setting != "" {
			row = append(row, first.Value)
		}
		row = append(row, first.Workload)
		for _, k := range rotation {
			if i < len(points) && points[i].Value == first.Value && points[i].Workload == first.Workload && points[i].Connections == k {
				row = append(row, float64(points[i].ServerCPUPerQuery)/float64(time.Microsecond))
				i++
			} else {
				row = append(row, "") // connect is measured at one connection only
			}
		}
		if i == from { // a point of no count in rotation: not Rotate's
			i++
		}
		t.AddRow(row...)
	}
	return t
}

// innosimLines writes live's log lines ("live: starting ...", one a Write)
// to w as every line of the command reads: "innosim live: ...", with any
// control character of a name in them escaped.
type innosimLines struct{ w io.Writer }

func (l innosimLines) Write(p []byte) (int, error) {
	if _, err := io.WriteString(l.w, "innosim "+cmdflag.TerminalSafe(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}
