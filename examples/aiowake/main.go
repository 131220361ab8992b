// Command aiowake shows study D's shape on this machine's cores and real files:
// client goroutines insert rows into B-tree leaf pages; when a leaf fills it
// splits, writing the full page and prefetching one or two sibling pages
// through aio. Under WakeAll every submission wakes every handler thread
// (4 + 4 → 10 wakes, 16 + 16 → 34), almost all of them for nothing; under
// WakeTargeted only the handler of the segment that received the request wakes.
// With native AIO (innodb_use_native_aio=1, Linux io_uring) no submitter wakes a
// handler at all: each request goes to its segment's ring and the kernel wakes
// the handler whose ring completed.
//
// It prints rows/s, wakeups and system calls for 4 + 4 and 16 + 16 handler
// threads under wake-all, targeted and native (where io_uring is refused, the
// native rows say why):
//
//	go run ./examples/aiowake                 # 1 s per configuration
//	go run ./examples/aiowake -duration 5s -clients 16
//
// The data file lives in a temporary directory and is removed at the end.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/innosim/innosim/aio"
	"github.com/innosim/innosim/internal/futex"
)

const (
	pageSize    = 16 << 10
	rowSize     = 160 // a sysbench row is about 190 bytes; any size shows the shape
	rowsPerPage = pageSize / rowSize
)

// Bounds of the flags: a study D extent of 64 pages at least, a file whose
// size in bytes fits an int64 with room (16 TiB), and as many clients as
// examples/gate allows.
const (
	minPages   = 64
	maxPages   = 1 << 30
	maxClients = 1 << 16
)

type options struct {
	clients  int
	duration time.Duration
	pages    int64
	dir      string
}

func main() {
	var o options
	flag.IntVar(&o.clients, "clients", 8, "client goroutines inserting rows")
	flag.DurationVar(&o.duration, "duration", time.Second, "run time of each configuration")
	flag.Int64Var(&o.pages, "pages", 8192, "pages in the data file (16 KiB each)")
	flag.StringVar(&o.dir, "dir", "", "directory for the data file (default: a new temporary directory)")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "aiowake: unexpected argument %q: every setting is a flag (-h lists them)\n", flag.Arg(0))
		os.Exit(2)
	}
	// Ctrl-C, SIGTERM and a reader of the output that goes away (| head)
	// stop the run between configurations, so that the temporary directory
	// and its data file are removed: killed by the signal, they were left.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGPIPE)
	err := run(ctx, o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "aiowake:", err) // before stop: the pipe may be the broken one
	}
	stop()
	if err != nil {
		os.Exit(1)
	}
}

func run(ctx context.Context, o options) error {
	switch {
	case o.clients < 1 || o.clients > maxClients:
		return fmt.Errorf("-clients %d, want 1..%d", o.clients, maxClients)
	case o.duration <= 0:
		return fmt.Errorf("-duration %v, want > 0", o.duration)
	case o.pages < minPages || o.pages > maxPages:
		return fmt.Errorf("-pages %d, want %d..%d (%d KiB each)", o.pages, minPages, maxPages, pageSize>>10)
	}
	dir := o.dir
	if dir == "" {
		d, err := os.MkdirTemp("", "aiowake")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		dir = d
	}
	f, err := os.OpenFile(filepath.Join(dir, "ibdata"), os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Truncate(o.pages * pageSize); err != nil {
		return err
	}
	mode := aio.HandlerGoroutine
	if futex.Supported() {
		mode = aio.HandlerFutex // InnoDB's handler threads are OS threads on events
	}
	fmt.Printf("%d clients, %v per configuration, handler threads: %s, file: %d MiB\n\n",
		o.clients, o.duration, mode, o.pages*pageSize>>20)
	tw := tabwriter.NewWriter(os.Stdout, 0, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "handlers\tpolicy\trows/s\tI/Os\twakeups/I/O\twasted/I/O\tfutex calls/I/O\tio_uring_enter/I/O\t")
	var unavailable error
	for _, threads := range []int{4, 16} {
		for _, c := range []setup{{mode, aio.WakeAll, aio.IOSimulated}, {mode, aio.WakeTargeted, aio.IOSimulated},
			{aio.HandlerGoroutine, aio.WakeTargeted, aio.IONative}} {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("interrupted: %w", err)
			}
			r, err := insert(ctx, o, f, c, threads)
			if errors.Is(err, aio.ErrNativeUnavailable) {
				unavailable = err
				fmt.Fprintf(tw, "%d+%d\t%s\tunavailable\t\t\t\t\t\t\n", threads, threads, c)
				continue
			}
			if err != nil {
				return err
			}
			ios := float64(max(r.stats.Submitted, 1))
			fmt.Fprintf(tw, "%d+%d\t%s\t%.0f\t%d\t%.2f\t%.2f\t%.2f\t%.2f\t\n", threads, threads, c,
				r.rowsPerSec, r.stats.Submitted, float64(r.stats.Wakeups)/ios,
				float64(r.stats.WastedWakeups)/ios, float64(r.stats.FutexSyscalls)/ios, float64(r.stats.RingSyscalls)/ios)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if unavailable != nil {
		fmt.Printf("\nnative: %v\n", unavailable)
	}
	return nil
}

// setup is one configuration of the table: simulated AIO with a handler mode
// and wake policy, or native AIO.
type setup struct {
	handlers aio.HandlerMode
	policy   aio.WakePolicy
	io       aio.IOMode
}

// String is the policy column: "all", "targeted" or "native".
func (c setup) String() string {
	if c.io == aio.IONative {
		return "native"
	}
	return c.policy.String()
}

type result struct {
	rowsPerSec float64
	stats      aio.Stats
}

// insert runs the clients for o.duration against an Array with threads read
// and threads write segments, set up as c says.
func insert(ctx context.Context, o options, f *os.File, c setup, threads int) (result, error) {
	cfg := aio.DefaultConfig()
	cfg.ReadSegments, cfg.WriteSegments = threads, threads
	cfg.Handlers, cfg.Wake, cfg.IO = c.handlers, c.policy, c.io
	arr, err := aio.New(cfg)
	if err != nil {
		return result{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, o.duration)
	defer cancel()
	var (
		rows    atomic.Int64
		nextPg  atomic.Int64
		wg      sync.WaitGroup
		errMu   sync.Mutex
		firstEr error
	)
	start := time.Now()
	for c := range o.clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cl := newClient(arr, f, o.pages, uint64(c))
			n, err := cl.run(ctx, &nextPg)
			rows.Add(n)
			if err != nil {
				errMu.Lock()
				firstEr = errors.Join(firstEr, err)
				errMu.Unlock()
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	if err := arr.Close(); err != nil {
		return result{}, err
	}
	return result{rowsPerSec: float64(rows.Load()) / elapsed.Seconds(), stats: arr.Stats()}, firstEr
}

// client inserts rows into its current leaf. A full leaf splits: the full
// page is written, a new leaf starts, and the siblings of the new leaf are
// prefetched (btr_page_split_and_insert touching its neighbours). The client
// waits for one split's I/O only at the next split, as a background prefetch.
type client struct {
	arr    *aio.Array
	f      *os.File
	pages  int64
	rng    *rand.Rand
	leaf   []byte
	row    []byte
	reqs   [3]aio.Request
	bufs   [3][]byte
	out    sync.WaitGroup
	mu     sync.Mutex
	ioErrs error
}

func newClient(arr *aio.Array, f *os.File, pages int64, seed uint64) *client {
	c := &client{arr: arr, f: f, pages: pages, rng: rand.New(rand.NewPCG(seed, 0xD)),
		leaf: make([]byte, pageSize), row: make([]byte, rowSize)}
	for i := range c.bufs {
		c.bufs[i] = make([]byte, pageSize)
	}
	return c
}

func (c *client) done(_ *aio.Request, err error) {
	if err != nil {
		c.mu.Lock()
		c.ioErrs = errors.Join(c.ioErrs, err)
		c.mu.Unlock()
	}
	c.out.Done()
}

func (c *client) run(ctx context.Context, nextPg *atomic.Int64) (int64, error) {
	var inserted int64
	leafPage := nextPg.Add(1) % c.pages
	// At least one leaf per client: a client whose goroutine first runs after
	// the deadline (a loaded machine) would otherwise insert nothing, and a
	// run of them report 0 rows/s.
	for first := true; first || ctx.Err() == nil; first = false {
		for slot := 0; slot < rowsPerPage; slot++ {
			for i := range c.row {
				c.row[i] = byte(c.rng.Uint32())
			}
			copy(c.leaf[slot*rowSize:], c.row)
			inserted++
		}
		// Split: the previous split's I/O must be done before its buffers are reused.
		c.out.Wait()
		copy(c.bufs[0], c.leaf)
		c.reqs[0] = aio.Request{Op: aio.Write, File: c.f, Offset: leafPage * pageSize, Buf: c.bufs[0], Done: c.done}
		leafPage = nextPg.Add(1) % c.pages
		siblings := 1 + c.rng.IntN(2)
		for s := 1; s <= siblings; s++ {
			sib := (leafPage + int64(s)*(c.pages/3)) % c.pages
			c.reqs[s] = aio.Request{File: c.f, Offset: sib * pageSize, Buf: c.bufs[s], Done: c.done}
		}
		for s := 0; s <= siblings; s++ {
			c.out.Add(1)
			// The run's deadline ends the insert loop, not an I/O already
			// decided on: submit without it.
			if err := c.arr.Submit(context.Background(), &c.reqs[s]); err != nil {
				c.out.Done()
				return inserted, err
			}
		}
	}
	c.out.Wait()
	c.mu.Lock()
	defer c.mu.Unlock()
	return inserted, c.ioErrs
}
