package calibrate

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"text/tabwriter"
)

// ErrUsage is returned by Run for bad arguments; the usage has been written to
// stderr.
var ErrUsage = errors.New("calibrate: usage")

// Run is the `innosim calibrate [-repeats N] [-rounds N] [-json]` command: it
// measures this machine and writes the Costs to stdout as a table, or with -json
// as one JSON object whose fields are Costs' with durations in nanoseconds. args
// excludes the command name. Errors are Measure's and ErrUsage.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("calibrate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	repeats := fs.Int("repeats", DefaultRepeats, "measurements per figure (1..1000)")
	rounds := fs.Int("rounds", DefaultRounds, "operations per measurement (1..1000000)")
	asJSON := fs.Bool("json", false, "write JSON (durations in nanoseconds) instead of a table")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: innosim calibrate [-repeats N] [-rounds N] [-json]")
		fmt.Fprintln(stderr, "Measures this machine's handoff, futex, system call, context switch and mutex costs.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %v", ErrUsage, err)
	}
	if fs.NArg() != 0 {
		fs.Usage()
		return fmt.Errorf("%w: unexpected argument %q", ErrUsage, fs.Arg(0))
	}
	c, err := Measure(ctx, Options{Repeats: *repeats, Rounds: *rounds})
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(c); err != nil {
			return fmt.Errorf("calibrate: write JSON: %w", err)
		}
		return nil
	}
	return c.WriteTable(stdout)
}

// WriteTable writes c as a table: one row per cost with its median, quartiles and
// extremes.
func (c Costs) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "cost\tmedian\tq1\tq3\tmin\tmax\tn\t")
	for _, row := range c.rows() {
		m := row.m
		fmt.Fprintf(tw, "%s\t%v\t%v\t%v\t%v\t%v\t%d\t\n", row.name, m.Median, m.Q1, m.Q3, m.Min, m.Max, m.Repeats)
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("calibrate: write table: %w", err)
	}
	return nil
}

type row struct {
	name string
	m    Measurement
}

func (c Costs) rows() []row {
	return []row{
		{"goroutine handoff", c.GoroutineHandoff},
		{"locked-thread handoff", c.LockedThreadHandoff},
		{"futex round trip", c.FutexRoundTrip},
		{"system call", c.Syscall},
		{"context switch", c.ContextSwitch},
		{"mutex handoff", c.MutexHandoff},
	}
}
