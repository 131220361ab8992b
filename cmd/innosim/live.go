package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
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
	fs := flag.NewFlagSet("live", flag.ContinueOnError)
	fs.SetOutput(stderr)
	def := live.DefaultConfig()
	f := liveFlags{cfg: def, threads: def.Threads}
	fs.StringVar(&f.workloads, "workload", "oltp_point_select", "workloads, comma-separated: "+strings.Join(live.Workloads, ", "))
	fs.Var(&intList{&f.threads, live.MaxThreads}, "threads", fmt.Sprintf("client thread `counts` (sysbench --threads), comma-separated, each 1..%d (run and printed in ascending order)", live.MaxThreads))
	fs.StringVar(&f.setting, "setting", "thread_handling=one-thread-per-connection,pool-of-threads", "one server variable and its values, key=v1,v2 (the server restarts per value); empty for none")
	cmdflag.DurationVar(fs, &f.cfg.Duration, "time", f.cfg.Duration, "measured time per point, a `duration` of whole seconds, 1s..1h")
	cmdflag.DurationVar(fs, &f.cfg.Warmup, "warmup", f.cfg.Warmup, "unmeasured run before each point, a `duration` of whole seconds, 0..1h; 0 for none")
	fs.IntVar(&f.cfg.Repeats, "repeats", f.cfg.Repeats, fmt.Sprintf("measured runs per point, 1..%d; the median by throughput is reported (with -rotation, by server CPU; of an even count, the lower middle)", live.MaxRepeats))
	fs.IntVar(&f.cfg.Tables, "tables", f.cfg.Tables, "sysbench --tables, 1..64")
	fs.IntVar(&f.cfg.TableSize, "table-size", f.cfg.TableSize, "sysbench --table-size (rows per table), 1..10000000")
	fs.Int64Var(&f.bufferPoolMiB, "buffer-pool", f.cfg.BufferPool>>20, "innodb_buffer_pool_size in MiB, 8..65536")
	fs.StringVar(&f.csv, "csv", "", "also write the points to this CSV file (innosim validate --table reads it; with -rotation, validate --rotation)")
	fs.Var(&intList{&f.rotation, live.MaxThreads}, "rotation", fmt.Sprintf("instead of the sweep, the rotation probe: one client thread running the workload on each of these `counts` of connections in turn (comma-separated: 1 and at least one more in 2..%d, run in ascending order), server and client on one CPU, printing the server's CPU per query; connect, whose connections live for one event, at 1 connection only (not with -threads, -time, -warmup)", live.MaxThreads))
	fs.StringVar(&f.mariadbd, "mariadbd", "", "mariadbd program (default: from PATH, /usr/sbin)")
	fs.StringVar(&f.installDB, "install-db", "", "mariadb-install-db program (default: from PATH, /usr/bin)")
	fs.StringVar(&f.sb, "sysbench", "", "sysbench program (default: from PATH)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: innosim live [flags]")
		fmt.Fprintln(stderr, "\nStarts a private mariadbd (a temporary datadir, a Unix socket, no network), prepares")
		fmt.Fprintln(stderr, "sysbench's tables and runs every setting value × workload × threads point, then stops")
		fmt.Fprintln(stderr, "the server and removes its directory, also on Ctrl-C. Needs Linux and")
		fmt.Fprintln(stderr, "  "+live.InstallHint)
		fmt.Fprintln(stderr, "\nflags:")
		fs.PrintDefaults()
	}
	if done, err := parseFlags(fs, args); done {
		return cfg, "", nil, true, err
	}
	if fs.NArg() != 0 {
		return cfg, "", nil, true, fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	if len(f.rotation) > 0 {
		var clash []string
		fs.Visit(func(fl *flag.Flag) {
			if fl.Name == "threads" || fl.Name == "time" || fl.Name == "warmup" {
				clash = append(clash, "-"+fl.Name)
			}
		})
		if len(clash) > 0 {
			return cfg, "", nil, true, fmt.Errorf("%w: -rotation runs its own events on one client thread: want no %s with it", errUsage, strings.Join(clash, ", "))
		}
	}
	c := f.cfg
	c.Workloads = strings.Split(f.workloads, ",")
	c.Threads = f.threads
	c.Setting, c.Values = "", nil
	if f.setting != "" {
		k, v, ok := strings.Cut(f.setting, "=")
		if !ok || k == "" || v == "" {
			return cfg, "", nil, true, fmt.Errorf("%w: -setting %q: want key=v1,v2", errUsage, f.setting)
		}
		c.Setting, c.Values = strings.ReplaceAll(k, "-", "_"), strings.Split(v, ",")
	}
	if f.bufferPoolMiB < 8 || f.bufferPoolMiB > 64<<10 {
		return cfg, "", nil, true, fmt.Errorf("%w: -buffer-pool %d: want 8..65536 (MiB)", errUsage, f.bufferPoolMiB)
	}
	c.BufferPool = f.bufferPoolMiB << 20
	c.Mariadbd, c.InstallDB, c.Sysbench = f.mariadbd, f.installDB, f.sb
	if len(f.rotation) > 0 {
		c.Threads, c.Duration, c.Warmup = nil, 0, 0
		if err := c.ValidateRotation(f.rotation); err != nil {
			return cfg, "", nil, true, fmt.Errorf("%w: %v", errUsage, liveFlagError(err))
		}
		return c, f.csv, f.rotation, false, nil
	}
	if err := c.Validate(); err != nil {
		return cfg, "", nil, true, fmt.Errorf("%w: %v", errUsage, liveFlagError(err))
	}
	return c, f.csv, nil, false, nil
}

// liveFlagError names the flag behind a Config field in a validation error.
func liveFlagError(err error) string {
	msg := err.Error()
	for field, fl := range map[string]string{
		"Workloads =": "-workload", "Threads =": "-threads", "Setting =": "-setting", "Values =": "-setting values",
		"Duration =": "-time", "Warmup =": "-warmup", "Repeats =": "-repeats", "Tables =": "-tables",
		"TableSize =": "-table-size", "BufferPool =": "-buffer-pool", "connections =": "-rotation",
	} {
		if strings.Contains(msg, field) {
			return fl + ": " + msg
		}
	}
	return msg
}

func liveRun(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, csvPath, rotation, done, err := parseLiveFlags(args, stderr)
	if done {
		return err
	}
	outs, err := outputs("-csv", csvPath)
	if err != nil {
		return err
	}
	defer discardAll(outs)
	prog := newProgress(stderr, "live")
	defer prog.Close()
	cfg.Log = prog // its lines and the progress lines, one at a time
	cfg.Progress = prog.Phase("points", "points")
	if len(rotation) > 0 {
		return liveRotate(ctx, cfg, rotation, outs[0], stdout, prog.Close)
	}
	points, err := live.Run(ctx, cfg)
	prog.Close()
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("interrupted: server stopped, no output written: %w", err)
		}
		if errors.Is(err, live.ErrInvalidConfig) {
			return fmt.Errorf("%w: %v", errUsage, err)
		}
		if len(points) > 0 && csvPath != "" { // a failure, not an interruption: keep what was measured
			if werr := outs[0].Write(func(out *os.File) error { return live.WriteCSV(out, cfg.Setting, points) }); werr != nil {
				return fmt.Errorf("%w (and %v)", err, werr)
			}
			return fmt.Errorf("%w\n(the %d points measured before the failure are in %s)", err, len(points), csvPath)
		}
		return err
	}
	t := liveTable(cfg, points)
	if err := t.WriteText(stdout); err != nil {
		return err
	}
	return outs[0].Write(func(out *os.File) error { return live.WriteCSV(out, cfg.Setting, points) })
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
	for i := 0; i+len(cfg.Threads) <= len(points); i += len(cfg.Threads) {
		row := []any{}
		if cfg.Setting != "" {
			row = append(row, points[i].Value)
		}
		row = append(row, points[i].Workload, points[i].CPUs)
		for _, p := range points[i : i+len(cfg.Threads)] {
			row = append(row, p.Throughput)
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
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("interrupted: server stopped, no output written: %w", err)
		}
		if errors.Is(err, live.ErrInvalidConfig) {
			return fmt.Errorf("%w: %v", errUsage, err)
		}
		if len(points) > 0 && out.Path() != "" { // a failure, not an interruption: keep what was measured
			if werr := out.Write(func(f *os.File) error { return live.WriteRotationCSV(f, cfg.Setting, points) }); werr != nil {
				return fmt.Errorf("%w (and %v)", err, werr)
			}
			return fmt.Errorf("%w\n(the %d points measured before the failure are in %s)", err, len(points), out.Path())
		}
		return err
	}
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
	if err := t.WriteText(stdout); err != nil {
		return err
	}
	return out.Write(func(f *os.File) error { return live.WriteRotationCSV(f, cfg.Setting, points) })
}
