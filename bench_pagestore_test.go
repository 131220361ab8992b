package innosim_test

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"golang.org/x/sync/semaphore"

	"github.com/innosim/innosim/aio"
)

// The page-store load: psPages pages of aioPage (16 KiB) in one file, each
// with its page number in its first 8 bytes and a CRC-32C of the rest in its
// last 4, as a storage engine's pages carry FIL_PAGE_OFFSET and a checksum;
// psClients goroutines each read a random page and check it, psOps times per
// leg, with at most psDepth reads in flight.
const (
	psPages   = 4096
	psClients = 64
	psDepth   = 32
	psOps     = 1000 // per client and leg: 64,000 reads
	psLegs    = 6
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// BenchmarkPageStore is the page-store load through the Array's synchronous
// calls (reader=aio: Array.ReadAt on aio.EmbedConfig's Array, with
// SlotsPerSegment = psDepth / ReadSegments so that at most psDepth reads
// are in flight)
// and the plain Go way (reader=plain: os.File.ReadAt, each read holding one
// of psDepth weights of an x/sync semaphore), on a file in the page cache
// (io=cached) and opened O_DIRECT (io=direct, the reads reach the device).
// The two readers alternate, psLegs legs of psClients × psOps reads each, in
// the order plain, aio, aio, plain, ... so that a drift of the machine over
// the run falls on both alike, in one benchmark iteration, whatever b.N (the
// contention between clients does not depend on it), so run it with
// -benchtime 1x.
//
// Metrics: aio-reads/s and plain-reads/s over each reader's legs, ratio
// (aio over plain, from the same run), median-pair-ratio (the median over
// the legs of aio's rate over that of the plain leg next to it), aio-p99-µs
// and plain-p99-µs (the 99th percentile of one client read, semaphore or
// slot wait included), and syscalls/op for aio (Stats.SyscallsPerRequest).
// The two p99s measure different things: a plain read is one pread on a
// goroutine that keeps its P, so the time a client waits for a CPU falls
// between its reads, outside the timed call; an aio read is a handoff to
// the handler and back, so it includes waits for the CPU, and a handler
// thread the host deschedules holds every read in its ring.
func BenchmarkPageStore(b *testing.B) {
	path := filepath.Join(b.TempDir(), "pages")
	if err := writePages(path); err != nil {
		b.Fatal(err)
	}
	b.Run("io=cached", func(b *testing.B) {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		benchPageStore(b, f)
	})
	b.Run("io=direct", func(b *testing.B) {
		f, err := aio.OpenDirect(path, os.O_RDONLY, 0)
		if err != nil {
			b.Skipf("O_DIRECT: %v", err)
		}
		defer f.Close()
		benchPageStore(b, f)
	})
}

func benchPageStore(b *testing.B, f *os.File) {
	cfg, opts := aio.EmbedConfig()
	cfg.SlotsPerSegment = psDepth / cfg.ReadSegments
	if cfg.IO == aio.IOSimulated {
		cfg.ReadSegments, cfg.SlotsPerSegment = psDepth, 1 // psDepth handlers, one read each
	}
	a, err := aio.New(cfg, opts...)
	if err != nil {
		b.Fatal(err)
	}
	defer func() {
		if err := a.Close(); err != nil {
			b.Fatal(err)
		}
	}()
	b.Logf("aio: %s AIO", cfg.IO)
	sem := semaphore.NewWeighted(psDepth)
	readAIO := func(ctx context.Context, p []byte, off int64) error {
		_, err := a.ReadAt(ctx, f, p, off)
		return err
	}
	readPlain := func(ctx context.Context, p []byte, off int64) error {
		if err := sem.Acquire(ctx, 1); err != nil {
			return err
		}
		defer sem.Release(1)
		_, err := f.ReadAt(p, off)
		return err
	}
	var aioLat, plainLat []time.Duration
	var aioTime, plainTime time.Duration
	var sys, reqs uint64
	var pairs []float64 // each leg's aio rate over its plain neighbour's
	b.ResetTimer()
	for range b.N {
		for leg := range psLegs {
			var rates [2]float64 // plain, aio
			for k := range 2 {   // plain, aio, aio, plain, plain, aio: a drift falls on both alike
				if (leg+k)%2 == 0 {
					d, lat, err := pageStoreLeg(plainRead(readPlain))
					if err != nil {
						b.Fatal(err)
					}
					plainTime, plainLat = plainTime+d, append(plainLat, lat...)
					rates[0] = float64(len(lat)) / d.Seconds()
					continue
				}
				before := a.Stats()
				d, lat, err := pageStoreLeg(plainRead(readAIO))
				if err != nil {
					b.Fatal(err)
				}
				st := a.Stats()
				sys, reqs = sys+st.Syscalls-before.Syscalls, reqs+st.Completed-before.Completed
				aioTime, aioLat = aioTime+d, append(aioLat, lat...)
				rates[1] = float64(len(lat)) / d.Seconds()
			}
			pairs = append(pairs, rates[1]/rates[0])
		}
	}
	b.StopTimer()
	slices.Sort(pairs)
	aioRate := float64(len(aioLat)) / aioTime.Seconds()
	plainRate := float64(len(plainLat)) / plainTime.Seconds()
	b.ReportMetric(aioRate, "aio-reads/s")
	b.ReportMetric(plainRate, "plain-reads/s")
	b.ReportMetric(aioRate/plainRate, "ratio")
	b.ReportMetric(pairs[len(pairs)/2], "median-pair-ratio")
	b.ReportMetric(p99(aioLat).Seconds()*1e6, "aio-p99-µs")
	b.ReportMetric(p99(plainLat).Seconds()*1e6, "plain-p99-µs")
	b.ReportMetric(float64(sys)/float64(reqs), "syscalls/op")
}

// plainRead names a reader's read function.
type plainRead func(ctx context.Context, p []byte, off int64) error

// pageStoreLeg runs psClients clients of psOps checked page reads each
// through read, and returns the leg's time and every read's latency.
func pageStoreLeg(read plainRead) (time.Duration, []time.Duration, error) {
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	lat := make([]time.Duration, psClients*psOps)
	start := time.Now()
	for c := range psClients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf, err := aio.AlignedBuffer(aioPage, aioPage)
			if err == nil {
				err = pageClient(read, buf, uint64(c), lat[c*psOps:(c+1)*psOps])
			}
			if err != nil {
				mu.Lock()
				first = errors.Join(first, err)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return time.Since(start), lat, first
}

// pageClient reads random pages into buf and checks each, recording each
// read's latency in lat.
func pageClient(read plainRead, buf []byte, seed uint64, lat []time.Duration) error {
	rng := rand.New(rand.NewPCG(seed, 0x9a6e))
	ctx := context.Background()
	for i := range lat {
		n := rng.Int64N(psPages)
		t := time.Now()
		if err := read(ctx, buf, n*aioPage); err != nil {
			return err
		}
		lat[i] = time.Since(t)
		if err := checkPage(buf, n); err != nil {
			return err
		}
	}
	return nil
}

// writePages writes the psPages pages of the page-store file, each sealed.
func writePages(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	page := make([]byte, aioPage)
	for n := range int64(psPages) {
		for i := range page {
			page[i] = byte(n*31 + int64(i))
		}
		binary.LittleEndian.PutUint64(page, uint64(n))
		binary.LittleEndian.PutUint32(page[aioPage-4:], crc32.Checksum(page[:aioPage-4], castagnoli))
		if _, err := f.WriteAt(page, n*aioPage); err != nil {
			return errors.Join(err, f.Close())
		}
	}
	return f.Close()
}

// checkPage checks that buf is page n, whole.
func checkPage(buf []byte, n int64) error {
	if got := int64(binary.LittleEndian.Uint64(buf)); got != n {
		return fmt.Errorf("page %d holds page number %d", n, got)
	}
	if sum := crc32.Checksum(buf[:aioPage-4], castagnoli); sum != binary.LittleEndian.Uint32(buf[aioPage-4:]) {
		return fmt.Errorf("page %d fails its checksum", n)
	}
	return nil
}

// p99 returns the 99th percentile of lat (which it sorts).
func p99(lat []time.Duration) time.Duration {
	if len(lat) == 0 {
		return 0
	}
	slices.Sort(lat)
	return lat[min(len(lat)-1, len(lat)*99/100)]
}
