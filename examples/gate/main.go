// Command gate measures each admission policy of package concurrency on this
// machine's cores and prints, per policy, a table of throughput (statements per
// second) by number of client goroutines (rows) and concurrency limit (columns).
//
// Each client loops: Enter, a CPU burst (default about 1 µs), ForceExit — one
// short statement per round, study B's condition. With -p99 each cell also
// shows the 99th percentile of the waits (for the policies that time them).
// Run it on an idle machine; on a shared one the figures move by tens of
// percent between runs (README.md says how to give it the cores there).
// README.md compares Handoff's strict handoff and
// bounded barging with figures.
//
//	go run ./examples/gate
//	go run ./examples/gate -clients 1,2,4,8,16,32 -limits 1,2,4,8 -duration 500ms
//	go run ./examples/gate -policies handoff -p99                   # bounded barging (the default)
//	go run ./examples/gate -policies handoff -starvation 0 -p99     # strict handoff
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/innosim/innosim/concurrency"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "gate:", err)
		os.Exit(2)
	}
}

func run(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("gate", flag.ContinueOnError)
	clients := fs.String("clients", "1,4,16", "comma-separated client goroutine counts (table rows)")
	limits := fs.String("limits", "2,8", "comma-separated concurrency limits, 1..1000 (table columns)")
	duration := fs.Duration("duration", 100*time.Millisecond, "how long each cell runs")
	burst := fs.Int("burst", 450, "xorshift rounds of CPU work inside the gate per statement (450 ≈ 1 µs)")
	policies := fs.String("policies", "unlimited,queue,atomic,semaphore,handoff", "comma-separated policies")
	starvation := fs.Duration("starvation", concurrency.DefaultStarvation, "Handoff's Config.Starvation: > 0 (the default, 1ms) lets threads barge, no wait longer than about that; 0 hands seats over strictly")
	showP99 := fs.Bool("p99", false, "show each cell's 99th-percentile wait after its rate (queue, atomic, handoff, adaptive)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil // -h: the usage is printed, nothing to measure
		}
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q: every setting is a flag (-h lists them)", fs.Arg(0))
	}
	rows, err := parseInts(*clients, 1, 1<<16)
	if err != nil {
		return fmt.Errorf("-clients: %w", err)
	}
	cols, err := parseInts(*limits, 1, concurrency.MaxLimit)
	if err != nil {
		return fmt.Errorf("-limits: %w", err)
	}
	if *duration <= 0 {
		return fmt.Errorf("-duration %v, want > 0", *duration)
	}
	if *burst < 0 {
		return fmt.Errorf("-burst %d, want ≥ 0", *burst)
	}
	cfg := func(limit int) concurrency.Config {
		c := concurrency.DefaultConfig(limit)
		c.Starvation = *starvation
		return c
	}
	if err := cfg(cols[0]).Validate(); err != nil {
		return fmt.Errorf("-starvation: %w", err) // refused before anything is measured
	}
	var ps []concurrency.Policy
	for _, name := range strings.Split(*policies, ",") {
		p, err := concurrency.ParsePolicy(strings.TrimSpace(name))
		if err != nil {
			return fmt.Errorf("-policies: %w", err)
		}
		if slices.Contains(ps, p) {
			return fmt.Errorf("-policies: %s given twice: want each policy once (it would be measured twice)", p)
		}
		ps = append(ps, p)
	}

	fmt.Fprintf(out, "GOMAXPROCS %d, burst %d rounds, %v per cell, Handoff starvation %v; statements per second (higher is better)\n",
		runtime.GOMAXPROCS(0), *burst, *duration, *starvation)
	for _, p := range ps {
		name := p.String()
		if p == concurrency.PolicyHandoff {
			// Named for the mode measured, as the admission benchmarks name it.
			name = "handoff-barging"
			if *starvation == 0 {
				name = "handoff-strict"
			}
		}
		fmt.Fprintf(out, "\npolicy=%s\n", name)
		tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprint(tw, "clients\t")
		for _, l := range cols {
			fmt.Fprintf(tw, "limit=%d\t", l)
		}
		fmt.Fprintln(tw)
		for _, c := range rows {
			fmt.Fprintf(tw, "%d\t", c)
			for _, l := range cols {
				rate, st, err := measure(p, cfg(l), c, *burst, *duration)
				if err != nil {
					return err
				}
				if *showP99 && st.WaitTime.Count() > 0 {
					fmt.Fprintf(tw, "%.0f (p99 %v)\t", rate, st.P99Wait)
				} else {
					fmt.Fprintf(tw, "%.0f\t", rate)
				}
			}
			fmt.Fprintln(tw)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}

// measure runs clients goroutines through a fresh gate for d and returns the
// statements completed per second and the gate's counters.
func measure(p concurrency.Policy, cfg concurrency.Config, clients, burst int, d time.Duration) (float64, concurrency.Stats, error) {
	g, err := concurrency.New(p, cfg)
	if err != nil {
		return 0, concurrency.Stats{}, err
	}
	var stop atomic.Bool
	var done atomic.Int64
	var sink atomic.Uint64 // the bursts' results, so the work is not optimised away
	var wg sync.WaitGroup
	ctx := context.Background()
	start := time.Now()
	for i := 0; i < clients; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t := &concurrency.Thread{}
			x, n := uint64(i+1), int64(0)
			for !stop.Load() {
				err := concurrency.Statement(ctx, g, t, func() error {
					for k := 0; k < burst; k++ {
						x ^= x << 13
						x ^= x >> 7
						x ^= x << 17
					}
					return nil
				})
				if err != nil {
					return
				}
				n++
			}
			done.Add(n)
			sink.Add(x)
		}()
	}
	time.Sleep(d)
	stop.Store(true)
	wg.Wait()
	return float64(done.Load()) / time.Since(start).Seconds(), g.Stats(), nil
}

func parseInts(s string, lo, hi int) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return nil, fmt.Errorf("%q is not an integer, want %d..%d", strings.TrimSpace(f), lo, hi)
		}
		if n < lo || n > hi {
			return nil, fmt.Errorf("%d out of range %d..%d", n, lo, hi)
		}
		if slices.Contains(out, n) {
			return nil, fmt.Errorf("%d given twice: want each value once (it would be measured twice)", n)
		}
		out = append(out, n)
	}
	return out, nil
}
