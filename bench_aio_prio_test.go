package innosim_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/innosim/innosim/aio"
	"github.com/innosim/innosim/prio"
)

// BenchmarkAIOPriority is background I/O against foreground reads on one
// device, with every request's hint carried to the I/O (aio.WithIOPriority):
// prioFgReaders goroutines each read a random 16 KiB page with ReadAt (hint
// Normal: no I/O priority of their own), while a background stream keeps
// 4 × the device's tags (nr_tags) 16 KiB requests in flight (each Done
// submits the next) at random pages of the same O_DIRECT file, through one
// native Array, in a segment and ring of its own (KindIbuf requests, with
// the insert-buffer segment on). background= is what the stream does (writes, the flusher's
// case; reads, read-ahead's), hint= its hint: normal (no priority), low
// (prio.Low: the idle class, as RocksDB's compaction threads) and background
// (prio.Background: best effort level 7). Each variant runs prioLeg,
// prioLegs times, alternately, in one iteration (so -benchtime 1x).
//
// A priority matters only where the device's I/O scheduler honours it and
// requests wait in it: the stream fills the device's tags, so the scheduler
// holds the rest, and a foreground read waits there behind them, then in
// the device behind the tags' worth it has. See prio.IOPrio: mq-deadline
// orders by class alone (hint=low should yield, hint=background not), and
// it dispatches reads before writes whatever their class; bfq by class and
// level; none and kyber not at all: the benchmark is skipped for those, and
// where the temporary directory's device or its scheduler cannot be read,
// with the reason.
//
// Metrics per variant: fg-p50-µs and fg-p99-µs (one foreground read),
// fg-reads/s and bg-ops/s.
func BenchmarkAIOPriority(b *testing.B) {
	if runtime.GOOS != "linux" {
		b.Skip("I/O priorities are Linux only")
	}
	if err := aio.NativeAvailable(); err != nil {
		b.Skipf("native AIO unavailable: %v", err)
	}
	dir := b.TempDir()
	sched, tags, err := ioScheduler(dir)
	if err != nil {
		b.Skipf("the I/O scheduler of %s: %v", dir, err)
	}
	if sched != "mq-deadline" && sched != "bfq" {
		b.Skipf("the device of %s uses the %s scheduler, which ignores I/O priorities (see prio.IOPrio)", dir, sched)
	}
	b.Logf("scheduler %s, %d tags", sched, tags)
	path := filepath.Join(dir, "aioprio")
	if err := writeAIOFile(path); err != nil {
		b.Fatal(err)
	}
	f, err := aio.OpenDirect(path, os.O_RDWR, 0)
	if err != nil {
		b.Skipf("O_DIRECT: %v", err)
	}
	defer f.Close()
	depth := min(4*tags, aio.MaxSlotsPerSegment)
	type variant struct {
		op   aio.Op
		hint prio.Hint
	}
	var variants []variant
	for _, op := range []aio.Op{aio.Write, aio.Read} {
		for _, h := range []prio.Hint{prio.Normal, prio.Low, prio.Background} {
			variants = append(variants, variant{op, h})
		}
	}
	type result struct {
		lat           []time.Duration
		reads, writes int64
		time          time.Duration
	}
	results := make([]result, len(variants))
	b.ResetTimer()
	for range b.N {
		for range prioLegs {
			for i, v := range variants {
				lat, reads, writes, d, err := prioLegRun(f, v.op, v.hint, depth)
				if err != nil {
					b.Fatal(err)
				}
				r := &results[i]
				r.lat, r.reads, r.writes, r.time = append(r.lat, lat...), r.reads+reads, r.writes+writes, r.time+d
			}
		}
	}
	b.StopTimer()
	for i, v := range variants {
		b.Run(fmt.Sprintf("background=%ss/hint=%s", v.op, v.hint), func(b *testing.B) {
			r := results[i]
			b.ReportMetric(quantile(r.lat, 0.5).Seconds()*1e6, "fg-p50-µs")
			b.ReportMetric(quantile(r.lat, 0.99).Seconds()*1e6, "fg-p99-µs")
			b.ReportMetric(float64(r.reads)/r.time.Seconds(), "fg-reads/s")
			b.ReportMetric(float64(r.writes)/r.time.Seconds(), "bg-ops/s")
		})
	}
}

const (
	prioFgReaders = 4
	prioLeg       = 2 * time.Second
	prioLegs      = 2
)

// prioLegRun runs the load for prioLeg with the background requests (op) at
// hint h, depth of them in flight, on a new Array (so that each variant
// starts cold), and returns the foreground reads' latencies, the reads and
// background requests done and the time.
func prioLegRun(f *os.File, op aio.Op, h prio.Hint, depth int) ([]time.Duration, int64, int64, time.Duration, error) {
	cfg, _ := aio.EmbedConfig()
	cfg.ReadSegments, cfg.WriteSegments, cfg.SlotsPerSegment = 2, 1, depth
	cfg.IbufSegment = true // the background stream's own segment and ring
	a, err := aio.New(cfg, aio.WithPlug(), aio.WithIOPriority())
	if err != nil {
		return nil, 0, 0, 0, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), prioLeg)
	defer cancel()
	var (
		bgOps atomic.Int64
		wmu   sync.Mutex
		werr  error
		out   sync.WaitGroup
	)
	rng := rand.New(rand.NewPCG(uint64(h+8), 0xb9))
	next := func(r *aio.Request, err error) { // each Done submits the next
		if err != nil {
			wmu.Lock()
			werr = errors.Join(werr, err)
			wmu.Unlock()
		}
		bgOps.Add(1)
		if ctx.Err() != nil {
			out.Done()
			return
		}
		wmu.Lock()
		r.Offset = randomPage(rng)
		wmu.Unlock()
		if err := a.Submit(context.Background(), r); err != nil {
			out.Done()
		}
	}
	for range depth {
		buf, err := aio.AlignedBuffer(aioPage, aioPage)
		if err != nil {
			return nil, 0, 0, 0, err
		}
		out.Add(1)
		wmu.Lock()
		r := &aio.Request{Op: op, Kind: aio.KindIbuf, Hint: h, File: f, Offset: randomPage(rng), Buf: buf, Done: next}
		wmu.Unlock()
		if err := a.Submit(context.Background(), r); err != nil {
			out.Done()
		}
	}
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		lat  []time.Duration
		rerr error
	)
	start := time.Now()
	for g := range prioFgReaders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf, err := aio.AlignedBuffer(aioPage, aioPage)
			rrng := rand.New(rand.NewPCG(uint64(g), 0xf9))
			var mine []time.Duration
			for err == nil && ctx.Err() == nil {
				t := time.Now()
				if _, err = a.ReadAt(context.Background(), f, buf, randomPage(rrng)); err == nil {
					mine = append(mine, time.Since(t))
				}
			}
			mu.Lock()
			lat, rerr = append(lat, mine...), errors.Join(rerr, err)
			mu.Unlock()
		}()
	}
	wg.Wait()
	d := time.Since(start)
	out.Wait()
	cerr := a.Close()
	return lat, int64(len(lat)), bgOps.Load(), d, errors.Join(rerr, werr, cerr)
}

// ioScheduler returns the I/O scheduler of the block device that holds dir,
// as /sys/block/<dev>/queue/scheduler marks it ([mq-deadline]), and the
// device's tags (nr_tags of its first hardware queue).
func ioScheduler(dir string) (string, int, error) {
	var st statDev
	if err := st.of(dir); err != nil {
		return "", 0, err
	}
	sys := fmt.Sprintf("/sys/dev/block/%d:%d", st.major, st.minor)
	queue := filepath.Join(sys, "queue")
	if _, err := os.Stat(queue); err != nil {
		queue = filepath.Join(sys, "..", "queue") // a partition: its disk's queue
	}
	b, err := os.ReadFile(filepath.Join(queue, "scheduler"))
	if err != nil {
		return "", 0, err
	}
	s := string(b)
	i, j := strings.IndexByte(s, '['), strings.IndexByte(s, ']')
	if i < 0 || j < i {
		return strings.TrimSpace(s), 0, nil
	}
	tags := 0
	mq, _ := filepath.Glob(filepath.Join(filepath.Dir(queue), "mq", "*", "nr_tags"))
	if len(mq) > 0 {
		if t, err := os.ReadFile(mq[0]); err == nil {
			_, _ = fmt.Sscan(string(t), &tags)
		}
	}
	if tags == 0 {
		return "", 0, errors.New("no nr_tags for the device")
	}
	return s[i+1 : j], tags, nil
}

// quantile returns the q quantile of lat (which it sorts).
func quantile(lat []time.Duration, q float64) time.Duration {
	if len(lat) == 0 {
		return 0
	}
	p99(lat) // sorts
	return lat[min(len(lat)-1, int(float64(len(lat))*q))]
}
