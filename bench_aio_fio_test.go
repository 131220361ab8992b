package innosim_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/innosim/innosim/aio"
)

// fioLeg is how long each leg of BenchmarkAIONativeVsFio runs, and fioLegs
// how many times each engine runs, alternately, so that the machine's drift
// over the run falls on both alike.
const (
	fioLeg  = 750 * time.Millisecond
	fioLegs = 8
)

// BenchmarkAIONativeVsFio is native AIO against fio's io_uring engine on the
// same load: random 16 KiB reads (aioPage) of the 256 MiB file opened
// O_DIRECT, aioNativeDepth (32) in flight. aio is aioNativeDepth goroutines
// each calling Array.ReadAt in a loop on aio.EmbedConfig's native Array
// (WithPlug) with rings= read segments (EmbedConfig's one, and two); fio is fio
// with
// --ioengine=io_uring --direct=1 --rw=randread --bs=16k --iodepth=32 and its
// defaults otherwise (no registered files or buffers, no SQ polling). The
// two alternate, fioLegs legs of fioLeg each, in one benchmark iteration,
// in the order fio, aio, aio, fio, fio, aio, ... so that a drift of the
// device's rate over the run (a shared host's) falls on both alike; the
// iteration ignores b.N beyond repeating that, so run it with -benchtime 1x.
//
// Metrics: aio-reads/s and fio-reads/s (over each engine's legs), ratio
// (aio over fio, from the same run), median-pair-ratio (the median over the
// legs of aio's rate over that of the fio run next to it: the device's rate
// on a shared host moves by half within seconds, and a pair sees the same
// moment), syscalls/op (aio: every system call the Array made, over its
// requests: Stats.SyscallsPerRequest). Skipped
// without io_uring, O_DIRECT or fio (apt-get install -y fio).
func BenchmarkAIONativeVsFio(b *testing.B) {
	if err := aio.NativeAvailable(); err != nil {
		b.Skipf("native AIO unavailable: %v", err)
	}
	fio, err := exec.LookPath("fio")
	if err != nil {
		b.Skip("fio not installed (apt-get install -y fio): the comparison needs it")
	}
	path := filepath.Join(b.TempDir(), "aionative")
	if err := writeAIOFile(path); err != nil {
		b.Fatal(err)
	}
	f, err := aio.OpenDirect(path, os.O_RDONLY, 0)
	if err != nil {
		b.Skipf("O_DIRECT: %v", err)
	}
	defer f.Close()
	if cfg, _ := aio.EmbedConfig(); cfg.IO != aio.IONative {
		b.Skip("EmbedConfig chose simulated AIO")
	}
	for _, rings := range []int{1, 2} {
		b.Run(fmt.Sprintf("rings=%d", rings), func(b *testing.B) { benchVsFio(b, fio, path, f, rings) })
	}
}

// benchVsFio is BenchmarkAIONativeVsFio with EmbedConfig's Array of rings
// read segments.
func benchVsFio(b *testing.B, fio, path string, f *os.File, rings int) {
	cfg, opts := aio.EmbedConfig()
	cfg.ReadSegments = rings
	a, err := aio.New(cfg, opts...)
	if err != nil {
		b.Fatal(err)
	}
	defer func() {
		if err := a.Close(); err != nil {
			b.Fatal(err)
		}
	}()
	b.ResetTimer()
	var aioReads, fioReads, aioTime, fioTime float64
	var sys, reqs uint64
	var pairs []float64 // each leg's aio rate over its fio neighbour's
	for range b.N {
		for leg := range fioLegs {
			var rates [2]float64 // fio, aio
			for k := range 2 {
				if (leg+k)%2 == 0 {
					n, d, err := runFio(fio, path, fioLeg)
					if err != nil {
						b.Fatal(err)
					}
					fioReads, fioTime = fioReads+n, fioTime+d.Seconds()
					rates[0] = n / d.Seconds()
					continue
				}
				before := a.Stats()
				start := time.Now()
				n, err := readFor(a, f, fioLeg)
				if err != nil {
					b.Fatal(err)
				}
				d := time.Since(start).Seconds()
				aioTime, aioReads = aioTime+d, aioReads+float64(n)
				rates[1] = float64(n) / d
				st := a.Stats()
				sys += st.Syscalls - before.Syscalls
				reqs += st.Completed - before.Completed
			}
			pairs = append(pairs, rates[1]/rates[0])
		}
	}
	b.StopTimer()
	slices.Sort(pairs)
	b.ReportMetric(aioReads/aioTime, "aio-reads/s")
	b.ReportMetric(fioReads/fioTime, "fio-reads/s")
	b.ReportMetric((aioReads/aioTime)/(fioReads/fioTime), "ratio")
	b.ReportMetric(pairs[len(pairs)/2], "median-pair-ratio")
	b.ReportMetric(float64(sys)/float64(reqs), "syscalls/op")
}

// readFor runs aioNativeDepth goroutines of ReadAt calls at random pages of
// f for d, and returns the reads done.
func readFor(a *aio.Array, f *os.File, d time.Duration) (int64, error) {
	var (
		wg    sync.WaitGroup
		reads atomic.Int64
		mu    sync.Mutex
		first error
	)
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	for g := range aioNativeDepth {
		wg.Add(1)
		buf, err := aio.AlignedBuffer(aioPage, aioPage)
		if err != nil {
			return 0, err
		}
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(g), 0xf10))
			for ctx.Err() == nil {
				// The run's end is ctx; the reads themselves are not bound to it,
				// so that the last ones complete rather than count as canceled.
				if _, err := a.ReadAt(context.Background(), f, buf, randomPage(rng)); err != nil {
					mu.Lock()
					first = errors.Join(first, err)
					mu.Unlock()
					return
				}
				reads.Add(1)
			}
		}()
	}
	wg.Wait()
	return reads.Load(), first
}

// runFio runs fio's io_uring engine on path for d and returns the reads it
// completed and the time it ran, from its terse output (version 3: field 6
// is the read I/O in KiB, field 9 the read runtime in ms).
func runFio(fio, path string, d time.Duration) (reads float64, ran time.Duration, err error) {
	out, err := exec.Command(fio, "--name=aio", "--filename="+path, "--rw=randread", "--bs=16k",
		fmt.Sprintf("--iodepth=%d", aioNativeDepth), "--ioengine=io_uring", "--direct=1",
		fmt.Sprintf("--runtime=%dms", d.Milliseconds()), "--time_based", "--norandommap", "--randrepeat=0",
		"--output-format=terse", "--terse-version=3").Output()
	if err != nil {
		return 0, 0, fmt.Errorf("fio: %w", err)
	}
	line := strings.TrimSpace(string(out))
	if i := strings.LastIndexByte(line, '\n'); i >= 0 {
		line = line[i+1:]
	}
	fields := strings.Split(line, ";")
	if len(fields) < 9 {
		return 0, 0, fmt.Errorf("fio: terse output of %d fields: %q", len(fields), line)
	}
	kib, err1 := strconv.ParseFloat(fields[5], 64)
	ms, err2 := strconv.ParseFloat(fields[8], 64)
	if err := errors.Join(err1, err2); err != nil || ms == 0 {
		return 0, 0, fmt.Errorf("fio: terse fields %q, %q: %v", fields[5], fields[8], err)
	}
	return kib * 1024 / aioPage, time.Duration(ms * float64(time.Millisecond)), nil
}
