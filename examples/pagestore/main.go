package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/innosim/innosim/aio"
	"github.com/innosim/innosim/prio"
)

type options struct {
	clients, ops, frames, limit int
	pages                       int64
	priority                    string
	aio                         string
	dir                         string
}

func main() {
	var o options
	flag.IntVar(&o.clients, "clients", 8, "client sessions, one goroutine each")
	flag.IntVar(&o.ops, "ops", 2000, "operations per client")
	flag.Int64Var(&o.pages, "pages", 4096, "pages in the data file (16 KiB each)")
	flag.IntVar(&o.frames, "frames", 512, "buffer pool frames")
	flag.IntVar(&o.limit, "limit", 4, "sessions inside at once (innodb_thread_concurrency)")
	flag.StringVar(&o.priority, "priority", "off", "how the flusher's background hint reaches the OS: off or nice")
	flag.StringVar(&o.aio, "aio", "simulated", "simulated or native (innodb_use_native_aio: Linux io_uring)")
	flag.StringVar(&o.dir, "dir", "", "directory for the data file (default: a new temporary directory)")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "pagestore: unexpected argument %q: every setting is a flag (-h lists them)\n", flag.Arg(0))
		os.Exit(2)
	}
	// Ctrl-C, SIGTERM and a reader of the output that goes away (| head) end
	// the workload early; the store is still closed and the temporary
	// directory removed, which the signal's default action skipped.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGPIPE)
	err := run(ctx, os.Stdout, o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "pagestore:", err) // before stop: the pipe may be the broken one
	}
	stop()
	if err != nil {
		os.Exit(1)
	}
}

// run opens a store, runs a mixed workload (70% point reads, 20% updates, 10%
// scans of two extents), closes the store and verifies every page of the file
// against the updates made.
func run(ctx context.Context, out io.Writer, o options) error {
	policy, err := prio.ParsePolicy(o.priority)
	if err != nil || policy != prio.PolicyOff && policy != prio.PolicyNice {
		// Config.Priority takes these two; prio's own error would offer all four.
		return fmt.Errorf("-priority %q, want off or nice", o.priority)
	}
	var io aio.IOMode
	switch o.aio {
	case "", "simulated":
		io = aio.IOSimulated
	case "native":
		io = aio.IONative
	default:
		return fmt.Errorf("-aio %q, want simulated or native", o.aio)
	}
	dir := o.dir
	if dir == "" {
		d, err := os.MkdirTemp("", "pagestore")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		dir = d
	}
	cfg := DefaultConfig(filepath.Join(dir, "pages.ibd"), o.pages)
	cfg.Frames, cfg.Limit, cfg.Priority = o.frames, o.limit, policy
	cfg.AIO.IO = io
	s, err := Open(cfg)
	if err != nil {
		return err
	}
	start := time.Now()
	res, runErr := Run(ctx, s, Workload{Clients: o.clients, Ops: o.ops,
		UpdatePercent: 20, ScanPercent: 10, ScanPages: 2 * ExtentPages, Seed: 1})
	elapsed := time.Since(start)
	if err := errors.Join(runErr, s.Close()); err != nil {
		return err
	}
	st := s.Stats() // after Close: every I/O done, the flusher's thread restored
	fmt.Fprintf(out, "%d clients × %d ops on %d pages (%d MiB), %d frames, limit %d, flusher priority %s: %v\n",
		o.clients, o.ops, o.pages, o.pages*PageSize>>20, o.frames, o.limit, policy, elapsed.Round(time.Millisecond))
	fmt.Fprintf(out, "operations:  %d point reads, %d updates, %d pages scanned\n", res.Reads, res.Updates, res.ScanPages)
	fmt.Fprintf(out, "buffer pool: %d hits, %d misses, %d read ahead, %d evictions, %d waits for a frame\n",
		st.Hits, st.Misses, st.ReadAheads, st.Evictions, st.VictimWaits)
	fmt.Fprintf(out, "write-back:  %d pages (flusher: %d rounds, then a checkpoint at Close), %d write errors\n",
		st.Writes, st.FlushRounds, st.WriteErrors)
	a := st.AIO
	fmt.Fprintf(out, "aio (%s): %d submitted, %d completed, %d failed, %d batches (+%d merged), %d wakeups (%d wasted)\n",
		io, a.Submitted, a.Completed, a.Failed, a.Batches, a.Merges, a.Wakeups, a.WastedWakeups)
	g := st.Admission
	fmt.Fprintf(out, "admission:   %d enters, %d on tickets, %d waited (p99 wait ≤ %v)\n",
		g.Enters, g.TicketEnters, g.Waits, g.WaitTime.Quantile(0.99))
	fmt.Fprintf(out, "priority:    %d calls, %d refused", st.Priority.Calls, st.Priority.Failed)
	if st.PriorityErr != nil {
		fmt.Fprintf(out, " (%v; the flusher ran on at its own priority)", st.PriorityErr)
	}
	fmt.Fprintln(out)

	versions, err := Verify(cfg.Path, cfg.Pages, checkPayload)
	if err != nil {
		return err
	}
	for n, v := range versions {
		if v != res.PerPage[n] {
			return fmt.Errorf("page %d: version %d in the file, %d updates made", n, v, res.PerPage[n])
		}
	}
	fmt.Fprintf(out, "verified:    %d pages, every checksum good, every page at the version its updates made\n", len(versions))
	return nil
}
