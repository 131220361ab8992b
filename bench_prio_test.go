package innosim_test

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/innosim/innosim/prio"
)

// priorityRoundWall is the wall time of one BenchmarkPriority iteration: long
// enough for CFS to share the cores by weight many times over (its slices are a
// few ms), short enough that -benchtime 1x runs all six sub-benchmarks in about a
// second.
const priorityRoundWall = 100 * time.Millisecond

// BenchmarkPriority reproduces study A's mechanism on this machine's cores:
// threads = k × GOMAXPROCS CPU-bound OS threads, half at hint Query and half at
// Background, spin for a fixed wall time, and query-share is the query threads'
// fraction of the CPU time all threads used, from each thread's
// CLOCK_THREAD_CPUTIME_ID. Under policy=off every thread weighs the same, so the
// share is about 0.5 at any k. Under policy=nice the query threads run at nice -5
// (CFS weight 3121) and the background ones at nice 10 (weight 110): with one
// thread per core (1x) nobody waits and the share stays about 0.5; once threads
// outnumber cores the kernel gives the query threads up to 3121/(3121+110) ≈ 0.97
// of each core they share. Without CAP_SYS_NICE the Query hint is refused (the
// thread stays at nice 0, weight 1024) and the share can only reach 0.90; the
// refused metric counts such threads.
//
// k × GOMAXPROCS is read before the sub-benchmark raises GOMAXPROCS to one P per
// thread: with the default, Go's own scheduler would time-slice the threads over
// GOMAXPROCS Ps, only that many would ever be runnable in the kernel, and nice
// could change nothing.
func BenchmarkPriority(b *testing.B) {
	procs := runtime.GOMAXPROCS(0)
	for _, policy := range []prio.Policy{prio.PolicyOff, prio.PolicyNice} {
		for _, k := range []int{1, 2, 4} {
			b.Run(fmt.Sprintf("policy=%s/threads=%dx", policy, k), func(b *testing.B) {
				if _, err := prio.ThreadCPUTime(); err != nil {
					b.Skipf("no per-thread CPU clock: %v", err)
				}
				a, err := prio.New(prio.Config{Policy: policy})
				if err != nil {
					b.Fatal(err)
				}
				threads := max(2, k*procs)
				// Give every thread a P, so that all of them are runnable in the
				// kernel at once and the OS scheduler — not Go's, which ignores
				// nice — decides who runs: as in MySQL, where each connection is
				// an OS thread. GOMAXPROCS itself stops being the core count only
				// for this sub-benchmark.
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(threads + 1))
				var total priorityRound
				for range b.N {
					r := runPriorityRound(b, a, threads, priorityRoundWall)
					total.query += r.query
					total.all += r.all
					total.refused += r.refused
				}
				if total.all == 0 {
					b.Fatal("threads used no CPU time")
				}
				b.ReportMetric(float64(total.query)/float64(total.all), "query-share")
				b.ReportMetric(float64(total.refused)/float64(b.N), "refused/op")
			})
		}
	}
}

// priorityRound is what one round measured: CPU time of the query threads and of
// all threads, and how many threads the OS refused their hint.
type priorityRound struct {
	query, all time.Duration
	refused    int
}

// runPriorityRound starts threads locked goroutines, the even ones at Query and
// the odd ones at Background, lets them all spin for wall once every one has
// applied its hint, and sums their CPU time. Each thread is restored on the way
// out; one the OS will not restore ends with its goroutine.
func runPriorityRound(b *testing.B, a *prio.Applier, threads int, wall time.Duration) priorityRound {
	b.Helper()
	var (
		ready, done sync.WaitGroup
		start       = make(chan struct{})
		stop        atomic.Bool
		mu          sync.Mutex
		r           priorityRound
		errs        []error
	)
	ready.Add(threads)
	done.Add(threads)
	for i := range threads {
		hint := prio.Query
		if i%2 == 1 {
			hint = prio.Background
		}
		go func() {
			defer done.Done()
			t, err := a.Lock()
			if err != nil {
				ready.Done()
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
				return
			}
			_, applyErr := t.Apply(hint)
			ready.Done()
			<-start
			c0, err0 := prio.ThreadCPUTime()
			spin(&stop)
			c1, err1 := prio.ThreadCPUTime()
			unlockErr := t.Unlock()
			if unlockErr != nil {
				t.Release() // the thread ends with this goroutine
				if osRefused(unlockErr) {
					// Without CAP_SYS_NICE a lowered thread cannot be raised
					// back; it dies with its goroutine, which is no failure.
					unlockErr = nil
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if err := errors.Join(err0, err1, unlockErr); err != nil {
				errs = append(errs, err)
				return
			}
			if applyErr != nil {
				r.refused++
			}
			r.all += c1 - c0
			if hint == prio.Query {
				r.query += c1 - c0
			}
		}()
	}
	ready.Wait()
	close(start)
	time.Sleep(wall)
	stop.Store(true)
	done.Wait()
	if len(errs) > 0 {
		b.Fatalf("%d of %d threads failed: %v", len(errs), threads, errors.Join(errs...))
	}
	return r
}

// osRefused reports whether err is the OS refusing a priority change for want
// of privilege (EPERM or EACCES), which an unprivileged run meets on the way back
// up from a lowered priority.
func osRefused(err error) bool {
	return errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EACCES)
}

// spin burns CPU until stop is set: the CPU-bound work of a query or a background
// thread. The arithmetic keeps the loop from being optimised away.
func spin(stop *atomic.Bool) uint64 {
	x := uint64(1)
	for !stop.Load() {
		for range 1000 {
			x = x*6364136223846793005 + 1442695040888963407
		}
	}
	return x
}

// BenchmarkPriorityApply measures the cost of applying a hint to a locked thread
// and restoring it, per policy: policy=off makes no call; legacy makes MySQL 5.1's
// sched_setparam, which Linux refuses with EINVAL (the cost of a failed call, once
// per op); nice makes setpriority(-5) and setpriority back (two calls); idle makes
// sched_setscheduler(SCHED_IDLE) and back (two calls). calls/op is counted by the
// Applier. A policy the OS refuses to apply or restore here is skipped, saying why.
func BenchmarkPriorityApply(b *testing.B) {
	tests := []struct {
		policy prio.Policy
		hint   prio.Hint
		expect error // the refusal this policy is expected to meet, if any
	}{
		{prio.PolicyOff, prio.Query, nil},
		{prio.PolicyLegacy, prio.Query, syscall.EINVAL},
		{prio.PolicyNice, prio.Query, nil},
		{prio.PolicyIdle, prio.Background, nil},
	}
	for _, tt := range tests {
		b.Run("policy="+tt.policy.String(), func(b *testing.B) {
			a, err := prio.New(prio.Config{Policy: tt.policy})
			if err != nil {
				b.Fatal(err)
			}
			t, err := a.Lock()
			if err != nil {
				b.Skipf("cannot lock a thread under %v: %v", tt.policy, err)
			}
			defer func() {
				if err := t.Unlock(); err != nil {
					t.Release()
					if !osRefused(err) {
						b.Errorf("restore after the benchmark: %v", err)
					}
				}
			}()
			if _, err := t.Apply(tt.hint); err != nil && !errors.Is(err, tt.expect) {
				b.Skipf("OS refuses %v: %v", tt.policy, err)
			}
			if err := t.Restore(); err != nil {
				b.Skipf("OS refuses to restore under %v: %v", tt.policy, err)
			}
			before := a.Stats()
			b.ResetTimer()
			for range b.N {
				_, err := t.Apply(tt.hint)
				if err != nil && !errors.Is(err, tt.expect) {
					b.Fatal(err)
				}
				if err := t.Restore(); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			after := a.Stats()
			b.ReportMetric(float64(after.Calls-before.Calls)/float64(b.N), "calls/op")
		})
	}
}
