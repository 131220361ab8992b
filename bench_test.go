package innosim_test

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/innosim/innosim/internal/benchenv"
	"github.com/innosim/innosim/internal/contention"
)

// TestMain prints the environment fingerprint (internal/benchenv) as benchmark
// configuration lines before any result when benchmarks are requested (-test.bench
// set), so that benchstat keeps runs from different machines, kernels or
// mitigation settings apart and internal/benchcmp can refuse to compare them
// (study C). Then it runs the tests and benchmarks under goleak.
func TestMain(m *testing.M) {
	flag.Parse()
	if f := flag.Lookup("test.bench"); f != nil && f.Value.String() != "" {
		if err := writeHeader(os.Stdout); err != nil {
			// A benchmark run without its fingerprint is the failure this file
			// exists to prevent: stop rather than print anonymous results.
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		if cpuProfiled() {
			// said once here, not by each of the hundred benchmarks
			fmt.Fprintln(os.Stderr, "futex-share not reported: go test -cpuprofile holds the CPU profiler, which the metric needs")
		}
	}
	goleak.VerifyTestMain(m)
}

// cpuProfiled reports whether go test -cpuprofile profiles this run.
func cpuProfiled() bool {
	f := flag.Lookup("test.cpuprofile")
	return f != nil && f.Value.String() != ""
}

// writeHeader writes what precedes the results: the fingerprint lines, then the
// unit metadata line that tells benchstat and internal/benchcmp that a lower
// futex-share is better (benchfmt's "Unit UNIT key=value" syntax).
func writeHeader(w io.Writer) error {
	if _, err := benchenv.Current().WriteTo(w); err != nil {
		return err
	}
	if _, err := fmt.Fprintf(w, "Unit %s better=lower\n", futexShareUnit); err != nil {
		return fmt.Errorf("write unit metadata: %w", err)
	}
	return nil
}

// futexShareUnit is the unit of the metric reportFutexShare adds: the percentage of
// CPU profile samples whose stack passes through futex or runtime-lock code (see
// contention.Frames), the analogue of study D's raw_spin_lock share in perf.
const futexShareUnit = "futex-share"

// reportFutexShare runs body (which does all b.N iterations) under the CPU
// profiler and reports the futex-share metric. Starting and stopping the profiler
// is kept out of the timed region. When the process is already being profiled
// (go test -cpuprofile), the profiler cannot be shared: body still runs and the
// metric is left out, with one line on stderr saying why for the whole run
// (-cpuprofile) or a log line per benchmark (another profiler). With no samples at all (a run
// shorter than the 10 ms sampling period) the metric is 0.
func reportFutexShare(b *testing.B, body func()) {
	b.Helper()
	b.StopTimer()
	share, err := contention.Measure(func() {
		b.StartTimer()
		body()
		b.StopTimer()
	})
	if errors.Is(err, contention.ErrProfilerBusy) {
		if !cpuProfiled() { // under -cpuprofile TestMain has said so once
			b.Logf("futex-share not reported: %v", err)
		}
		b.StartTimer()
		body()
		return
	}
	if err != nil {
		b.Fatalf("futex-share: %v", err)
	}
	b.StartTimer()
	b.ReportMetric(share.Percent(), futexShareUnit)
}

// BenchmarkMutexHandoff measures a sync.Mutex fought over by goroutines with an
// empty-ish critical section, and reports the futex-share of its CPU profile. It is
// the baseline the aio and admission benchmarks' futex-share is read against: the
// share of a mutex that does nothing but change hands on this machine and kernel.
func BenchmarkMutexHandoff(b *testing.B) {
	for _, goroutines := range []int{1, 4, 16} {
		b.Run(fmt.Sprintf("goroutines=%d", goroutines), func(b *testing.B) {
			reportFutexShare(b, func() {
				var (
					mu   sync.Mutex
					held int
					wg   sync.WaitGroup
				)
				per := b.N / goroutines
				for g := 0; g < goroutines; g++ {
					n := per
					if g == 0 {
						n += b.N % goroutines
					}
					wg.Add(1)
					go func() {
						defer wg.Done()
						for i := 0; i < n; i++ {
							mu.Lock()
							held++
							mu.Unlock()
						}
					}()
				}
				wg.Wait()
				if held != b.N {
					b.Fatalf("lock taken %d times, want %d", held, b.N)
				}
			})
		})
	}
}
