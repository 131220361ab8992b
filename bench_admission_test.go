package innosim_test

import (
	"context"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/innosim/innosim/concurrency"
	"golang.org/x/sync/semaphore"
)

// burstIters is the length of the CPU burst a thread spends inside the gate: 450
// rounds of xorshift, about 1 µs on the idle 2-core development machine (AMD
// EPYC; 160 rounds measured 350 ns there). A small burst
// is study B's condition: the gate's own cost is then a large share of the work.
const burstIters = 450

// burst spends about 1 µs of CPU and returns x scrambled, so it cannot be
// optimised away.
func burst(x uint64) uint64 {
	for i := 0; i < burstIters; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}

// admissionGate is what the benchmark drives: a concurrency.Gate, or the
// buffered-channel semaphore below.
type admissionGate interface {
	Enter(ctx context.Context, t *concurrency.Thread) error
	ForceExit(t *concurrency.Thread)
	Stats() concurrency.Stats
}

// chanGate is the simplest Go admission gate: a buffered channel of the limit's
// size, a send to enter and a receive to exit. It counts a wait when the
// non-blocking send fails.
type chanGate struct {
	seats chan struct{}
	waits atomic.Uint64
}

func (g *chanGate) Enter(_ context.Context, _ *concurrency.Thread) error {
	select {
	case g.seats <- struct{}{}:
	default:
		g.waits.Add(1)
		g.seats <- struct{}{}
	}
	return nil
}

func (g *chanGate) ForceExit(*concurrency.Thread) { <-g.seats }

func (g *chanGate) Stats() concurrency.Stats { return concurrency.Stats{Waits: g.waits.Load()} }

// counterGate is the least a gate with shared state can do: one atomic add on
// one shared word to enter and one to leave, no limit checked. Against
// Unlimited it measures what moving that word's cache line between the cores
// costs per round, a floor under every other gate's ratio to Unlimited.
type counterGate struct{ inside atomic.Int64 }

func (g *counterGate) Enter(context.Context, *concurrency.Thread) error { g.inside.Add(1); return nil }
func (g *counterGate) ForceExit(*concurrency.Thread)                    { g.inside.Add(-1) }
func (g *counterGate) Stats() concurrency.Stats                         { return concurrency.Stats{} }

// newAdmissionGate returns the gate a benchmark's policy name stands for.
// Every name is what a user gets: the concurrency.Policy of that name
// (ParsePolicy) with DefaultConfig, or one of these, named for the config
// that differs:
//
//	handoff-barging  NewHandoff(DefaultConfig(limit)): bounded barging,
//	                 Starvation DefaultStarvation (what PolicyHandoff gives)
//	handoff-strict   the same with Starvation 0: strict handoff
//	counter, chan    the two gates of this file
//
// "handoff" alone is refused: it would be read as the default and measured
// as one of the two modes, or the other.
func newAdmissionGate(policy string, limit int) (admissionGate, error) {
	switch policy {
	case "counter":
		return &counterGate{}, nil
	case "chan":
		return &chanGate{seats: make(chan struct{}, limit)}, nil
	case "handoff-strict":
		cfg := concurrency.DefaultConfig(limit)
		cfg.Starvation = 0
		return concurrency.NewHandoff(cfg)
	case "handoff-barging":
		cfg := concurrency.DefaultConfig(limit)
		if cfg.Starvation != bargingStarvation {
			return nil, fmt.Errorf("handoff-barging: DefaultConfig's Starvation is %v, the benchmarks' %v", cfg.Starvation, bargingStarvation)
		}
		return concurrency.NewHandoff(cfg)
	case "handoff":
		return nil, fmt.Errorf("policy %q: name the mode, handoff-barging (the default) or handoff-strict", policy)
	}
	p, err := concurrency.ParsePolicy(policy)
	if err != nil {
		return nil, err
	}
	return concurrency.New(p, concurrency.DefaultConfig(limit))
}

// admissionPolicies are BenchmarkAdmission's policies, in the order of its
// table: the floors, the InnoDB gates, the Go baselines, Handoff's two modes.
var admissionPolicies = []string{"unlimited", "counter", "queue", "atomic", "semaphore", "chan", "handoff-strict", "handoff-barging"}

// BenchmarkAdmission measures one round through each admission policy (see
// newAdmissionGate for the names): enter, a CPU burst of about 1 µs, exit. The exit is ForceExit — each round is one
// statement, whose end gives the seat back whatever its tickets (as
// innobase_srv_conc_force_exit_innodb at the end of a statement) — so every round
// passes the gate. Policies use InnoDB's defaults (DefaultConfig: sleep delay
// 10 ms, adaptive max 150 ms). b.N rounds are split across the goroutines;
// waits/op is the share of rounds that had to wait (sleep or queue), and
// p99-wait-µs the 99th percentile of those waits for the policies that time them
// (queue, atomic, handoff-*): sleeping policies buy throughput under saturation
// with waits of a whole sleep delay, Handoff's FIFO keeps them short.
// handoff-barging (the default) saves the park and wake per enter that
// handoff-strict pays once the gate is full, and pays for it in p99-wait-µs.
//
// Compare within one run, as ratios (benchstat -col /policy): the two
// Handoff modes against semaphore and chan, queue
// against unlimited at limit 8 (≥ GOMAXPROCS on the 2-core machine: study B),
// and any gate against counter (one shared atomic word, the floor). cpu-ns/op
// is the process's CPU time per round: on a shared machine, where ns/op moves
// with the other processes' load, it is the steadier of the two.
//
// Run length decides the contention, so fix it: -benchtime=300000x. The
// goroutines are CPU-bound and outnumber the Ps, so two of them meet at the
// gate only when the scheduler preempts one (every 10 ms of running, sysmon's
// forcePreemptNS), often while it holds a seat; a run of b.N rounds split 16
// ways lasts b.N/16 µs per goroutine, and below a few time slices (b.N of some
// 10⁵) the goroutines run one after another and barely contend at all. A
// -benchtime given as a duration lets b.N, and with it the contention, differ
// between the policies compared.
func BenchmarkAdmission(b *testing.B) {
	for _, policy := range admissionPolicies {
		for _, limit := range []int{2, 8} {
			for _, goroutines := range []int{1, 16} {
				name := fmt.Sprintf("policy=%s/limit=%d/goroutines=%d", policy, limit, goroutines)
				b.Run(name, func(b *testing.B) { benchAdmission(b, policy, limit, goroutines) })
			}
		}
	}
}

func benchAdmission(b *testing.B, policy string, limit, goroutines int) {
	g, err := newAdmissionGate(policy, limit)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	runRounds(b, goroutines, func() func(x uint64) (uint64, error) {
		t := &concurrency.Thread{}
		return func(x uint64) (uint64, error) {
			if err := g.Enter(ctx, t); err != nil {
				return x, err
			}
			x = burst(x)
			g.ForceExit(t)
			return x, nil
		}
	})
	s := g.Stats()
	b.ReportMetric(float64(s.Waits)/float64(b.N), "waits/op")
	if s.WaitTime.Count() > 0 {
		// The other side of the throughput: how long the slowest waits took
		// (p99: upper edge of its histogram bucket, at most 25% above; max:
		// exact; chan and semaphore keep none).
		b.ReportMetric(float64(s.P99Wait.Microseconds()), "p99-wait-µs")
		b.ReportMetric(float64(s.MaxWait.Microseconds()), "max-wait-µs")
	}
	if s.BargeWakes > 0 {
		// Barging's wasted wakes: a woken waiter that finds its seat retaken.
		b.ReportMetric(float64(s.BargeWakes)/float64(b.N), "barge-wakes/op")
		b.ReportMetric(float64(s.BargeLosses)/float64(b.N), "barge-losses/op")
	}
}

// runRounds runs b.N rounds split across goroutines, each goroutine calling
// the round that newRound made for it (so that it can own a Thread), and
// reports besides ns/op the futex share and cpu-ns/op. The goroutines are
// started and parked before the clock starts.
func runRounds(b *testing.B, goroutines int, newRound func() func(x uint64) (uint64, error)) {
	var sink atomic.Uint64
	var start, ready, done sync.WaitGroup
	start.Add(1)
	for w := 0; w < goroutines; w++ {
		n := b.N / goroutines
		if w < b.N%goroutines {
			n++
		}
		ready.Add(1)
		done.Add(1)
		go func() {
			defer done.Done()
			round := newRound()
			x := uint64(w + 1)
			ready.Done()
			start.Wait()
			for i := 0; i < n; i++ {
				var err error
				if x, err = round(x); err != nil {
					b.Error(err)
					return
				}
			}
			sink.Add(x)
		}()
	}
	ready.Wait()
	b.ReportAllocs()
	b.ResetTimer()
	var cpu0, cpu1 time.Duration
	var cpuOK0, cpuOK1 bool
	reportFutexShare(b, func() {
		cpu0, cpuOK0 = processCPU() // inside: starting the profiler and reading its profile are not the gate's
		start.Done()
		done.Wait()
		cpu1, cpuOK1 = processCPU()
	})
	b.StopTimer()
	if cpuOK0 && cpuOK1 {
		// The CPU the process spent per round: unlike ns/op, it does not grow
		// while other processes hold the cores, so on a shared machine it is
		// the steadier measure of what the gate costs. It leaves out the time
		// Ps sat idle because every goroutine was parked (a convoy).
		b.ReportMetric(float64((cpu1-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}

// semaphoreSize is BenchmarkSemaphore's semaphore size: two rounds may run
// at once, as at BenchmarkAdmission's limit 2.
const semaphoreSize = 2

// BenchmarkSemaphore measures concurrency.Weighted against the type it
// stands in for, golang.org/x/sync/semaphore.Weighted: one round is
// Acquire(ctx, 1), BenchmarkAdmission's burst of about 1 µs, Release(1), on a
// semaphore of size 2, b.N rounds split across 1, 2, 8 or 64 goroutines.
// policy=xsync is semaphore.NewWeighted(2), policy=weighted
// concurrency.NewWeighted(2). Compare the two within one run
// (benchstat -col /policy), with the run length fixed as for
// BenchmarkAdmission (-benchtime 300000x): with more goroutines than Ps,
// contention depends on it. At 1 and 2 goroutines nobody waits (the fast
// path: one CAS to acquire, one to release, against x/sync's mutex); at 8
// and 64 rounds queue, and Weighted hands the weight over under its mutex
// as x/sync does.
func BenchmarkSemaphore(b *testing.B) {
	for _, policy := range []string{"xsync", "weighted"} {
		for _, goroutines := range []int{1, 2, 8, 64} {
			b.Run(fmt.Sprintf("policy=%s/goroutines=%d", policy, goroutines), func(b *testing.B) {
				var sem interface {
					Acquire(context.Context, int64) error
					Release(int64)
				}
				if policy == "xsync" {
					sem = semaphore.NewWeighted(semaphoreSize)
				} else {
					sem = concurrency.NewWeighted(semaphoreSize)
				}
				ctx := context.Background()
				runRounds(b, goroutines, func() func(x uint64) (uint64, error) {
					return func(x uint64) (uint64, error) {
						if err := sem.Acquire(ctx, 1); err != nil {
							return x, err
						}
						x = burst(x)
						sem.Release(1)
						return x, nil
					}
				})
			})
		}
	}
}

// BenchmarkSemaphoreOverhead is BenchmarkSemaphore's uncontended case (one
// goroutine) without the burst: Acquire(ctx, 1) and Release(1) and nothing
// else, where the fast path's cost is not diluted by the 1 µs of work.
func BenchmarkSemaphoreOverhead(b *testing.B) {
	for _, policy := range []string{"xsync", "weighted"} {
		b.Run("policy="+policy+"/goroutines=1", func(b *testing.B) {
			var sem interface {
				Acquire(context.Context, int64) error
				Release(int64)
			}
			if policy == "xsync" {
				sem = semaphore.NewWeighted(semaphoreSize)
			} else {
				sem = concurrency.NewWeighted(semaphoreSize)
			}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if err := sem.Acquire(ctx, 1); err != nil {
					b.Fatal(err)
				}
				sem.Release(1)
			}
		})
	}
}

// bargingStarvation is the Starvation time of policy handoff-barging:
// DefaultConfig's, sync.Mutex's starvation threshold (starvationThresholdNs in
// Go's sync/mutex.go).
const bargingStarvation = concurrency.DefaultStarvation

// BenchmarkAdmissionOverhead is BenchmarkAdmission's uncontended case (limit 8,
// one goroutine) without the burst: the cost of one enter plus one exit and
// nothing else, where the ratios between policies are not diluted by the 1 µs of
// work.
func BenchmarkAdmissionOverhead(b *testing.B) {
	for _, policy := range []string{"unlimited", "queue", "atomic", "semaphore", "chan", "handoff-strict", "handoff-barging"} {
		b.Run("policy="+policy+"/limit=8/goroutines=1", func(b *testing.B) {
			g, err := newAdmissionGate(policy, 8)
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			t := &concurrency.Thread{}
			b.ReportAllocs()
			for b.Loop() {
				if err := g.Enter(ctx, t); err != nil {
					b.Fatal(err)
				}
				g.ForceExit(t)
			}
		})
	}
}

// rampSteps are BenchmarkAdmissionRamp's goroutine counts, up and back down;
// the peak (64) counts as the last step up.
var rampSteps = []int{2, 4, 8, 16, 32, 64, 32, 16, 8, 4, 2}

// BenchmarkAdmissionRamp drives one gate per policy and limit through a ramp
// of goroutines, 2, 4, …, 64 and back to 2, on the same gate, so that whatever
// state one step leaves (a convoy, a queue of old waiters) the next step
// inherits. Every step does the same work, b.N of BenchmarkAdmission's rounds
// split across the step's goroutines, so that with -benchtime=300000x a step
// is what BenchmarkAdmission's 16-goroutine case is, and the way down can be
// held against the way up (a step of the first step's goroutines, unrecorded,
// precedes the ramp); one call is one ramp on a new gate, and ns/op is
// the ramp's time over b.N (the sum of its steps' ns/round). At 2 Ps 300000
// rounds are about 150 ms on an idle machine, so at 64 goroutines each runs
// some 4700 rounds, well under one of the scheduler's 10 ms time slices: the
// high steps measure a crowd arriving at the gate more than a steady state,
// and they do so alike on the way up and down.
//
// Per step it reports, named by direction and goroutine count (up16, down16):
// ns/round, the step's wall time per round; p99-enter-µs, the 99th percentile
// of the time Enter took over every enter, timed by the benchmark for every
// policy alike (upper bucket edge, at most 25% above); and for Handoff
// p99-wait-µs over the step's waits. down/up-min and down/up-max are the
// extremes over goroutine counts of a down step's ns/round over its up step's:
// 1.0 is a gate whose throughput does not depend on the way it got there.
// mutex is sync.Mutex used as a gate: one mutex for
// limit 1; for limit n, n mutexes with goroutine i always on mutex i mod n
// (seats are not shared between the mutexes' goroutines).
//
// Run it as the other admission benchmarks, in the same invocation:
// -benchtime=300000x -count=6, some 2–8 s per ramp on 2 Ps, and compare the
// medians of the six counts step by step: one ramp's step lasts 150 ms, and
// a burst of outside load moves one count's step, not the median.
func BenchmarkAdmissionRamp(b *testing.B) {
	for _, limit := range []int{1, 8} {
		for _, policy := range []string{"handoff-strict", "handoff-barging", "semaphore", "mutex"} {
			b.Run(fmt.Sprintf("limit=%d/policy=%s", limit, policy), func(b *testing.B) {
				benchRamp(b, policy, limit)
			})
		}
	}
}

// rampStep is what one ramp step measured.
type rampStep struct {
	perRound float64               // wall time per round, ns
	enters   concurrency.Histogram // every enter's time, as the benchmark saw it
	waits    concurrency.Histogram // Handoff's admitted waits (Stats.WaitTime)
}

func benchRamp(b *testing.B, policy string, limit int) {
	steps := make([]rampStep, len(rampSteps))
	var g admissionGate
	var mus []sync.Mutex
	if policy == "mutex" {
		mus = make([]sync.Mutex, limit)
	} else {
		var err error
		if g, err = newAdmissionGate(policy, limit); err != nil {
			b.Fatal(err)
		}
	}
	// One step of the first step's goroutines, not recorded: without it the
	// first step up is the only one that runs on a gate no step has used,
	// right after the testing package's runtime.GC and the previous count's
	// goroutines exiting; every other step, and every step down, follows a
	// step on the same gate.
	var warm rampStep
	runRampStep(b, &warm, g, mus, rampSteps[0], b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for i, n := range rampSteps {
		runRampStep(b, &steps[i], g, mus, n, b.N)
	}
	b.StopTimer()
	lo, hi := math.Inf(1), math.Inf(-1)
	peak := len(rampSteps) / 2
	name := func(i int) string {
		if i > peak {
			return fmt.Sprintf("down%02d", rampSteps[i])
		}
		return fmt.Sprintf("up%02d", rampSteps[i])
	}
	for i, s := range steps {
		b.ReportMetric(s.perRound, name(i)+"-ns/round")
		b.ReportMetric(float64(s.enters.Quantile(0.99).Microseconds()), name(i)+"-p99-enter-µs")
		if s.waits.Count() > 0 {
			b.ReportMetric(float64(s.waits.Quantile(0.99).Microseconds()), name(i)+"-p99-wait-µs")
		}
	}
	for i := range peak {
		r := steps[2*peak-i].perRound / steps[i].perRound
		lo, hi = min(lo, r), max(hi, r)
	}
	b.ReportMetric(lo, "down/up-min")
	b.ReportMetric(hi, "down/up-max")
}

// runRampStep runs rounds rounds on g (or on mus, sync.Mutex as a gate)
// split across goroutines and adds what it measured to st. The goroutines are
// started and parked before the clock starts.
func runRampStep(b *testing.B, st *rampStep, g admissionGate, mus []sync.Mutex, goroutines, rounds int) {
	ctx := context.Background()
	var before concurrency.Stats
	if g != nil {
		before = g.Stats()
	}
	var sink atomic.Uint64
	var start, ready, done sync.WaitGroup
	var mu sync.Mutex
	start.Add(1)
	for w := 0; w < goroutines; w++ {
		n := rounds / goroutines
		if w < rounds%goroutines {
			n++
		}
		ready.Add(1)
		done.Add(1)
		go func() {
			defer done.Done()
			t := &concurrency.Thread{}
			var h concurrency.Histogram
			x := uint64(w + 1)
			ready.Done()
			start.Wait()
			for i := 0; i < n; i++ {
				t0 := time.Now()
				if mus != nil {
					mus[w%len(mus)].Lock()
				} else if err := g.Enter(ctx, t); err != nil {
					b.Error(err)
					return
				}
				h.Add(time.Since(t0))
				x = burst(x)
				if mus != nil {
					mus[w%len(mus)].Unlock()
				} else {
					g.ForceExit(t)
				}
			}
			sink.Add(x)
			mu.Lock()
			st.enters.Merge(h)
			mu.Unlock()
		}()
	}
	ready.Wait()
	t0 := time.Now()
	start.Done()
	done.Wait()
	st.perRound = float64(time.Since(t0).Nanoseconds()) / float64(rounds)
	if g != nil {
		s := g.Stats()
		st.waits.Merge(s.WaitTime.Sub(before.WaitTime))
	}
}
