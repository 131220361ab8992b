package calibrate

import (
	"context"
	"encoding/json"
	"errors"
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

// Run is the `innosim calibrate [-repeats N] [-rounds N] [-json FILE] [-out
// FILE] [-check [-benchtime D] [-count N]]` command: it measures this machine
// and writes the Costs to stdout as a table, and says on stderr when the
// machine was busy (Costs.Load, Costs.Noisy). With -out it also writes the
// cost profile file (WriteProfile) that `innosim run --costs FILE` and
// `innosim validate --costs FILE` load; a path that cannot be written is
// refused before the measurement. With -check it then runs Check and prints
// its report; a check outside the bounds returns ErrCheckFailed. With -json
// it writes one JSON object, {"costs": Costs' fields with durations in
// nanoseconds, "noisy": Costs.Noisy, "check": the check's cases, ratios and
// verdict}, to FILE, or to stdout instead of the text when FILE is "-".
// args excludes the command name.
// Errors are Measure's, Check's, the file's, ErrCheckFailed, and for a
// command line it cannot run a *cmdflag.UsageError: a bad flag (nothing is
// printed), or, with the usage printed, a flag outside its range (naming the
// flag and the range), -benchtime or -count without -check, an -out that
// names a directory, or a stray argument, all before anything is measured.
// For -h it prints the usage and returns flag.ErrHelp.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := cmdflag.New("calibrate", stderr, "innosim calibrate [-repeats N] [-rounds N] [-max-ring N] [-json FILE] [-out FILE] [-check [-benchtime D] [-count N]]",
		"Measures this machine's handoff, futex, system call, context switch, mutex and sysmon-tick costs.")
	repeats := fs.IntRange("repeats", DefaultRepeats, 1, 1000, "`measurements` per figure (1..1000)")
	rounds := fs.IntRange("rounds", DefaultRounds, 1, 1_000_000, "`operations` per measurement (1..1000000)")
	maxRing := fs.IntRange("max-ring", RingThreads[len(RingThreads)-1], RingThreads[0], RingThreads[len(RingThreads)-1], "measure the switch rings of at most this many `threads` (2..1024; the rings of 1,024 threads take most of the time)")
	jsonPath := fs.String("json", "", "also write the costs (durations in nanoseconds) and the check to this JSON file; - writes them to stdout instead of the text")
	out := fs.String("out", "", "also write the cost profile to this file (for run --costs and validate --costs)")
	check := fs.Bool("check", false, "then predict BenchmarkAIOWake (futex mode) with the costs, run it, and compare")
	benchtime := new(time.Duration)
	fs.DurationVar(benchtime, "benchtime", time.Second, "with -check: run time of each benchmark case, a `duration` of 1ns..1m (as go test -benchtime)")
	count := fs.IntRange("count", 5, 1, 20, "with -check: `runs` of each benchmark case, compared by their median (1..20, as go test -count)")
	if err := fs.Parse(args); err != nil {
		return err // -h (the usage is printed) or a bad flag (nothing is)
	}
	if fs.NArg() != 0 {
		fs.Usage()
		return cmdflag.Usagef("unexpected argument %q", fs.Arg(0))
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
		{*benchtime < 1 || *benchtime > time.Minute, "benchtime", *benchtime, "1ns..1m0s"},
	} {
		if r.bad {
			fs.Usage()
			return cmdflag.Usagef("-%s %v, want %s", r.name, r.val, r.want)
		}
	}
	if stray := fs.GivenOf("benchtime", "count"); !*check && len(stray) > 0 {
		fs.Usage()
		return cmdflag.Usagef("%s needs -check: it sets the check's benchmark runs", stray[0])
	}
	if fi, err := os.Stat(*out); *out != "" && err == nil && fi.IsDir() {
		fs.Usage()
		return cmdflag.Usagef("-out %s is a directory, want a file", *out)
	}
	// -out's temporary file, made before the measurement so that a bad path fails at once
	profile, err := outfile.New("-out", *out)
	if err != nil {
		return fmt.Errorf("calibrate: %w", err)
	}
	defer profile.Discard() // not renamed: the command failed
	jsonOut, err := outfile.NewStdout("-json", *jsonPath, stdout)
	if err != nil {
		return fmt.Errorf("calibrate: %w", err)
	}
	defer jsonOut.Discard()
	text := !jsonOut.IsStdout()
	// A bar on a terminal; otherwise a line as each stage starts and every
	// few seconds (a calibration and its check take minutes).
	prog := progress.New(stderr, "innosim calibrate")
	defer prog.Close()
	c, err := Measure(ctx, Options{Repeats: *repeats, Rounds: *rounds, MaxRing: *maxRing, Progress: prog.Phase("measuring", "probes")})
	prog.End()
	if err != nil {
		return err
	}
	if w := busyWarning(c, *out); w != "" {
		fmt.Fprintln(prog, w)
	}
	if text {
		if err := c.WriteTable(stdout); err != nil {
			return err
		}
	}
	js := runJSON{Costs: costsJSONOf(c), Noisy: c.Noisy()}
	writeJSON := func() error {
		return jsonOut.WriteStream(func(w io.Writer) error {
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			if err := enc.Encode(js); err != nil {
				return fmt.Errorf("calibrate: write JSON: %w", err)
			}
			return nil
		})
	}
	if *out != "" {
		if err := profile.Write(func(f *os.File) error { return c.WriteProfile(f, "calibrated", benchenv.Current()) }); err != nil {
			return fmt.Errorf("calibrate: %w", err)
		}
		fmt.Fprintf(prog, "innosim calibrate: cost profile written to %s\n", cmdflag.QuotePath(*out))
	}
	if !*check {
		return writeJSON()
	}
	update := prog.Phase("check", "benchmark runs")
	co := CheckOptions{Costs: c, Benchtime: *benchtime, Count: *count,
		Progress: func(name string, done, total int) {
			fmt.Fprintf(prog, "innosim calibrate: check: running %s (%d of %d runs done)\n", name, done, total)
			update(done, total)
		}}
	fmt.Fprintln(prog, checkEstimate(co, c.Load))
	rep, err := Check(ctx, co)
	prog.Close()
	if err != nil {
		return err
	}
	if text {
		if _, err := rep.WriteTo(stdout); err != nil {
			return err
		}
	}
	js.Check = checkJSONOf(rep)
	if err := writeJSON(); err != nil {
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
// extremes; a figure whose probe did not run (a ring past Options.MaxRing, a
// probe this machine cannot run) reads "not measured", and a line under the
// table says what the profile keeps for it.
func (c Costs) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "cost\tmedian\tq1\tq3\tmin\tmax\tn\t")
	unmeasured := 0
	for _, r := range c.rows() {
		if (r.share != nil && r.share.Repeats == 0) || (r.share == nil && r.m.Repeats == 0) {
			fmt.Fprintf(tw, "%s\tnot measured\t-\t-\t-\t-\t0\t\n", r.name)
			unmeasured++
			continue
		}
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
	if unmeasured > 0 {
		if _, err := fmt.Fprintf(w, "not measured: %d figures (rings past -max-ring, probes this machine cannot run); a cost profile keeps old-kernel's values for them\n", unmeasured); err != nil {
			return fmt.Errorf("calibrate: write table: %w", err)
		}
	}
	if why := footprintFitMissing(c.Ring, c.CacheL2, c.CacheLLC); why != "" {
		if _, err := fmt.Fprintf(w, "cache fit: not possible: %s; switch_footprint, refill_llc and refill_memory keep old-kernel's values (0)\n", why); err != nil {
			return fmt.Errorf("calibrate: write table: %w", err)
		}
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

// checkJSON is a CheckReport with each figure's verdict, and the check's:
// PASS, FAIL or INCONCLUSIVE.
type checkJSON struct {
	Cases   []caseJSON  `json:"cases"`
	Ratios  []ratioJSON `json:"ratios"`
	Verdict string      `json:"verdict"`
}

// caseJSON is a CheckCase: ns/op predicted and measured (the median, the
// fastest and slowest run), wakeups and futex calls per op, the spread of
// its runs, predicted/measured, and whether it passed or was too noisy to
// tell.
type caseJSON struct {
	Name             string   `json:"name"`
	PredictedNs      float64  `json:"predicted_ns"`
	MeasuredNs       float64  `json:"measured_ns"`
	MeasuredMinNs    float64  `json:"measured_min_ns"`
	MeasuredMaxNs    float64  `json:"measured_max_ns"`
	Runs             int      `json:"runs"`
	Spread           float64  `json:"spread"`
	Ratio            *float64 `json:"ratio"`
	PredictedWakeups float64  `json:"predicted_wakeups"`
	MeasuredWakeups  float64  `json:"measured_wakeups"`
	PredictedFutex   float64  `json:"predicted_futex"`
	MeasuredFutex    float64  `json:"measured_futex"`
	Pass             bool     `json:"pass"`
	Inconclusive     bool     `json:"inconclusive"`
}

// ratioJSON is a CheckRatio, with its verdict.
type ratioJSON struct {
	Handlers     int      `json:"handlers"`
	Predicted    *float64 `json:"predicted"`
	Measured     *float64 `json:"measured"`
	Spread       float64  `json:"spread"`
	Ratio        *float64 `json:"ratio"`
	Pass         bool     `json:"pass"`
	Inconclusive bool     `json:"inconclusive"`
}

// checkJSONOf returns r as checkJSON; a figure that is not finite (a ratio
// of nothing measured) is null.
func checkJSONOf(r CheckReport) *checkJSON {
	js := &checkJSON{Cases: []caseJSON{}, Ratios: []ratioJSON{}, Verdict: "PASS"}
	switch {
	case r.Inconclusive():
		js.Verdict = "INCONCLUSIVE"
	case !r.Pass():
		js.Verdict = "FAIL"
	}
	for _, c := range r.Cases {
		js.Cases = append(js.Cases, caseJSON{Name: c.Name(), PredictedNs: c.Predicted, MeasuredNs: c.Measured,
			MeasuredMinNs: c.MeasuredMin, MeasuredMaxNs: c.MeasuredMax, Runs: c.Runs, Spread: c.Spread(),
			Ratio: orNull(c.Ratio()), PredictedWakeups: c.PredictedWakeups, MeasuredWakeups: c.MeasuredWakeups,
			PredictedFutex: c.PredictedFutex, MeasuredFutex: c.MeasuredFutex, Pass: c.Pass(), Inconclusive: c.Inconclusive()})
	}
	for _, q := range r.Ratios {
		js.Ratios = append(js.Ratios, ratioJSON{Handlers: q.Handlers, Predicted: orNull(q.Predicted), Measured: orNull(q.Measured),
			Spread: q.Spread, Ratio: orNull(q.Ratio()), Pass: q.Pass(), Inconclusive: q.Inconclusive()})
	}
	return js
}
