package calibrate

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"text/tabwriter"
	"time"

	"github.com/innosim/innosim/internal/benchenv"
	"github.com/innosim/innosim/internal/cmdflag"
	"github.com/innosim/innosim/internal/outfile"
	"github.com/innosim/innosim/internal/progress"
)

// ErrUsage is returned by Run for bad arguments: for a bad flag wrapping the
// *cmdflag.FlagError that says what is wrong, and nothing has been written;
// for a value out of its range or a stray argument the usage has been written
// to stderr. For -h it wraps flag.ErrHelp, and the usage has been written.
var ErrUsage = errors.New("calibrate: usage")

// Run is the `innosim calibrate [-repeats N] [-rounds N] [-max-ring N] [-json]
// [-out FILE] [-check [-benchtime D] [-count N]]` command: it measures this machine and writes the Costs
// to stdout as a table, or with -json as one JSON object whose fields are Costs'
// with durations in nanoseconds. With -out it also writes the cost profile file
// (WriteProfile) that `innosim run --costs FILE` and `innosim validate --costs
// FILE` load; a path that cannot be written is refused before the measurement. With -check it then runs Check and prints its report; a check
// outside the bounds returns ErrCheckFailed. args excludes the command name.
// Errors are Measure's, Check's, the file's, ErrUsage and ErrCheckFailed; a
// flag outside its range gives ErrUsage wrapping ErrInvalidConfig, naming the
// flag and the range, before anything is measured, and so does -benchtime or
// -count without -check, or an -out that names a directory.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("calibrate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	repeats := fs.Int("repeats", DefaultRepeats, "measurements per figure (1..1000)")
	rounds := fs.Int("rounds", DefaultRounds, "operations per measurement (1..1000000)")
	maxRing := fs.Int("max-ring", RingThreads[len(RingThreads)-1], "measure the switch rings of at most this many threads (2..1024; the rings of 1,024 threads take most of the time)")
	asJSON := fs.Bool("json", false, "write JSON (durations in nanoseconds) instead of a table")
	out := fs.String("out", "", "also write the cost profile to this file (for run --costs and validate --costs)")
	check := fs.Bool("check", false, "then predict BenchmarkAIOWake (futex mode) with the costs, run it, and compare")
	benchtime := new(time.Duration)
	cmdflag.DurationVar(fs, benchtime, "benchtime", time.Second, "with -check: run time of each benchmark case, a `duration` of 1ns..1m (as go test -benchtime)")
	count := fs.Int("count", 5, "with -check: runs of each benchmark case, compared by their median (1..20, as go test -count)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: innosim calibrate [-repeats N] [-rounds N] [-max-ring N] [-json] [-out FILE] [-check [-benchtime D] [-count N]]")
		fmt.Fprintln(stderr, "Measures this machine's handoff, futex, system call, context switch, mutex and sysmon-tick costs.")
		fs.PrintDefaults()
	}
	if err := cmdflag.Parse(fs, args); err != nil {
		return fmt.Errorf("%w: %w", ErrUsage, err) // -h (the usage is printed) or a bad flag (nothing is)
	}
	if fs.NArg() != 0 {
		fs.Usage()
		return fmt.Errorf("%w: unexpected argument %q", ErrUsage, fs.Arg(0))
	}
	// Every range is checked here, by flag name, before the measurement:
	// Options and CheckOptions read 0 as their defaults, which the flags'
	// ranges leave out, and Check would refuse -benchtime only after Measure.
	for _, r := range []struct {
		bad  bool
		name string
		val  any
		want string
	}{
		{*repeats < 1 || *repeats > 1000, "repeats", *repeats, "1..1000"},
		{*rounds < 1 || *rounds > 1_000_000, "rounds", *rounds, "1..1000000"},
		{*maxRing < RingThreads[0] || *maxRing > RingThreads[len(RingThreads)-1], "max-ring", *maxRing, "2..1024"},
		{*benchtime < 1 || *benchtime > time.Minute, "benchtime", *benchtime, "1ns..1m0s"},
		{*count < 1 || *count > 20, "count", *count, "1..20"},
	} {
		if r.bad {
			fs.Usage()
			return fmt.Errorf("%w: -%s %v, want %s: %w", ErrUsage, r.name, r.val, r.want, ErrInvalidConfig)
		}
	}
	if !*check {
		var stray error
		fs.Visit(func(f *flag.Flag) {
			if stray == nil && (f.Name == "benchtime" || f.Name == "count") {
				stray = fmt.Errorf("%w: -%s needs -check: it sets the check's benchmark runs", ErrUsage, f.Name)
			}
		})
		if stray != nil {
			fs.Usage()
			return stray
		}
	}
	if fi, err := os.Stat(*out); *out != "" && err == nil && fi.IsDir() {
		fs.Usage()
		return fmt.Errorf("%w: -out %s is a directory, want a file", ErrUsage, *out)
	}
	// -out's temporary file, made before the measurement so that a bad path fails at once
	profile, err := outfile.New("-out", *out)
	if err != nil {
		return fmt.Errorf("calibrate: %w", err)
	}
	defer profile.Discard() // not renamed: the command failed
	// A bar on a terminal; otherwise a line as each stage starts and every
	// few seconds (a calibration and its check take minutes).
	prog := progress.New(stderr, "innosim calibrate")
	defer prog.Close()
	c, err := Measure(ctx, Options{Repeats: *repeats, Rounds: *rounds, MaxRing: *maxRing, Progress: prog.Phase("measuring", "probes")})
	prog.End()
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(c); err != nil {
			return fmt.Errorf("calibrate: write JSON: %w", err)
		}
	} else if err := c.WriteTable(stdout); err != nil {
		return err
	}
	if *out != "" {
		if err := profile.Write(func(f *os.File) error { return c.WriteProfile(f, "calibrated", benchenv.Current()) }); err != nil {
			return fmt.Errorf("calibrate: %w", err)
		}
		fmt.Fprintf(prog, "cost profile written to %s\n", *out)
	}
	if !*check {
		return nil
	}
	update := prog.Phase("check", "benchmark runs")
	co := CheckOptions{Costs: c, Benchtime: *benchtime, Count: *count,
		Progress: func(name string, done, total int) {
			fmt.Fprintf(prog, "running %s\n", name)
			update(done, total)
		}}
	lo, hi := co.Estimate()
	fmt.Fprintf(prog, "check: the benchmark runs take about %v to %v; they need a quiet machine (other load spreads the runs, and a spread wider than a bound makes the verdict inconclusive)\n", lo, hi)
	rep, err := Check(ctx, co)
	prog.Close()
	if err != nil {
		return err
	}
	if *asJSON {
		fmt.Fprintln(stdout)
	}
	if _, err := rep.WriteTo(stdout); err != nil {
		return err
	}
	if rep.Inconclusive() {
		return ErrCheckInconclusive
	}
	if !rep.Pass() {
		return ErrCheckFailed
	}
	return nil
}

// ErrCheckInconclusive is returned by Run -check when the figures outside
// their bounds were all measured too noisily to count; it wraps ErrCheckFailed,
// as the check did not pass.
var ErrCheckInconclusive = fmt.Errorf("%w: measurement too noisy to tell", ErrCheckFailed)

// ErrCheckFailed is returned by Run -check when a prediction is outside the
// bounds; the report has been written.
var ErrCheckFailed = errors.New("calibrate: prediction outside the bounds")

// WriteTable writes c as a table: one row per cost with its median, quartiles and
// extremes (a figure whose probe could not run here has n = 0).
func (c Costs) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "cost\tmedian\tq1\tq3\tmin\tmax\tn\t")
	for _, r := range c.rows() {
		if r.share != nil {
			s := r.share
			fmt.Fprintf(tw, "%s\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%d\t\n", r.name, s.Median, s.Q1, s.Q3, s.Min, s.Max, s.Repeats)
			continue
		}
		m := r.m
		fmt.Fprintf(tw, "%s\t%v\t%v\t%v\t%v\t%v\t%d\t\n", r.name, m.Median, m.Q1, m.Q3, m.Min, m.Max, m.Repeats)
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("calibrate: write table: %w", err)
	}
	return nil
}

// row is one figure of Costs: a Measurement, or a Share if share is not nil.
type row struct {
	name  string
	m     Measurement
	share *Share
}

func (r row) String() string {
	if r.share != nil {
		return r.share.String()
	}
	return r.m.String()
}

func (c Costs) rows() []row {
	rows := []row{
		{name: "goroutine handoff", m: c.GoroutineHandoff},
		{name: "locked-thread handoff", m: c.LockedThreadHandoff},
		{name: "futex round trip", m: c.FutexRoundTrip},
		{name: "wake preempt", share: &c.WakePreempt},
		{name: "futex loaded handoff", m: c.FutexLoadedHandoff},
		{name: "futex wake call", m: c.FutexWakeCall},
		{name: "futex remote wake", m: c.FutexRemoteWake},
		{name: "system call", m: c.Syscall},
		{name: "context switch", m: c.ContextSwitch},
		{name: "mutex handoff", m: c.MutexHandoff},
		{name: "sysmon tick", m: c.SysmonTick},
	}
	for si, size := range RingWorkingSets {
		for i, n := range RingThreads {
			rows = append(rows, row{name: ringName(n, size), m: c.Ring[si][i]})
		}
	}
	return rows
}
