// Command priority shows study A's mechanism on this machine: a query workload run
// with thread priorities off, as MySQL 5.1 set them (legacy) and as per-thread nice,
// at connection threads below and above the core count.
//
// Each connection thread runs queries in a closed loop: apply the Query hint, burn
// a fixed amount of CPU (the query), apply the Wait hint and, with -roundtrip, sleep
// for the client's round trip (off by default: a Go sleep on a locked thread takes
// about a millisecond to wake, which would swamp a 50 µs query). Alongside run a few background threads (the engine's purge and flush
// work) at hint Background. The program reports queries per second, the ratio to
// priorities off, the priority system calls per query, how many the OS refused and
// what they cost per query. The cost is wall time around the two calls, so it
// includes any reschedule a call causes: a thread that lowers its own priority
// (Wait) can be preempted on the spot by a thread that now outweighs it.
//
// What to expect on Linux. Below the core count nobody waits for a CPU, so a
// priority can only cost: legacy makes two sched_setparam calls per query that the
// kernel refuses (EINVAL: SCHED_OTHER takes only priority 0), nice makes two
// setpriority calls that succeed, and both land a few percent under off — study
// A's 0.93–0.97. Above the core count the query threads share cores with the
// background threads; under nice they weigh 3121 against 110 and take the CPU the
// background threads had, so queries per second rise; legacy still changes nothing.
// Raising a thread's priority needs CAP_SYS_NICE: without it the Query hint is
// refused (counted) and the gain shrinks.
//
// Usage:
//
//	go run ./examples/priority [-duration 500ms] [-query 50us] [-roundtrip 0]
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/innosim/innosim/prio"
)

func main() {
	duration := flag.Duration("duration", 500*time.Millisecond, "wall time of each run")
	queryCPU := flag.Duration("query", 50*time.Microsecond, "CPU time one query burns")
	roundTrip := flag.Duration("roundtrip", 0, "time a connection thread waits for its client between queries (asleep)")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "priority: unexpected argument %q: every setting is a flag (-h lists them)\n", flag.Arg(0))
		os.Exit(2)
	}
	switch {
	case *duration <= 0:
		log.Fatalf("priority: -duration %v, want > 0", *duration)
	case *queryCPU <= 0:
		log.Fatalf("priority: -query %v, want > 0", *queryCPU)
	case *roundTrip < 0:
		log.Fatalf("priority: -roundtrip %v, want ≥ 0", *roundTrip)
	}

	cores := runtime.GOMAXPROCS(0)
	background := max(1, cores/2)
	below := max(1, cores-background)
	above := 4 * cores
	iters := calibrate(*queryCPU)

	if load, err := os.ReadFile("/proc/loadavg"); err == nil && len(strings.Fields(string(load))) >= 3 {
		// Other processes count: on a machine already busier than its cores,
		// "below the core count" is not below it, and nice helps there too.
		fmt.Printf("load average (1, 5, 15 min): %s\n", strings.Join(strings.Fields(string(load))[:3], " "))
	}
	fmt.Printf("cores %d, background threads %d (hint background), query = %v of CPU, client round trip %v, %v per run\n\n",
		cores, background, *queryCPU, *roundTrip, *duration)
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "connections\tvs cores\tpolicy\tqueries/s\tvs off\tcalls/query\trefused/query\tcall cost/query\t")
	var totalUnrestored uint64
	for _, threads := range []int{below, above} {
		side := "below"
		if threads+background > cores {
			side = "above"
		}
		var off float64
		for _, p := range []prio.Policy{prio.PolicyOff, prio.PolicyLegacy, prio.PolicyNice} {
			r, err := run(prio.Config{Policy: p}, threads, background, iters, *roundTrip, *duration)
			if err != nil {
				log.Fatalf("priority: %v run with %d threads: %v", p, threads, err)
			}
			qps := float64(r.queries) / duration.Seconds()
			if p == prio.PolicyOff {
				off = qps
			}
			totalUnrestored += r.unrestored
			q := float64(max(r.queries, 1))
			fmt.Fprintf(w, "%d\t%s\t%s\t%.0f\t%.3f\t%.2f\t%.2f\t%v\t\n", threads, side, p, qps, qps/off,
				float64(r.calls)/q, float64(r.refused)/q, (r.callTime / time.Duration(max(r.queries, 1))).Round(10*time.Nanosecond))
		}
	}
	w.Flush()
	if totalUnrestored > 0 {
		fmt.Printf("\n%d threads could not be restored to their priority (raising it back needs CAP_SYS_NICE); each ended with its goroutine\n", totalUnrestored)
	}
}

// result is what one run measured.
type result struct {
	queries  uint64        // queries completed by all connection threads
	calls    uint64        // priority system calls made
	refused  uint64        // of calls, those the OS refused
	callTime time.Duration // wall time spent applying hints, all threads
	// unrestored counts threads the OS would not return to their base priority
	// (raising it back needs CAP_SYS_NICE); each ended with its goroutine.
	unrestored uint64
}

// run starts background spinning threads at hint Background and connection
// threads that loop Query → work → Wait → client round trip, under cfg, for d.
func run(cfg prio.Config, threads, background int, iters uint64, roundTrip, d time.Duration) (result, error) {
	a, err := prio.New(cfg)
	if err != nil {
		return result{}, err
	}
	// One P per thread, so that every thread is runnable in the kernel and the OS
	// scheduler (which knows about nice) picks who runs, not Go's (which does not).
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(threads + background + 1))

	var (
		stop       atomic.Bool
		restores   atomic.Uint64
		unrestored atomic.Uint64
		wg         sync.WaitGroup
		mu         sync.Mutex
		r          result
		firstErr   error
	)
	fail := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		if firstErr == nil {
			firstErr = err
		}
	}
	for range background {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t, err := a.Lock()
			if err != nil {
				fail(err)
				return
			}
			_, _ = t.Apply(prio.Background) // a refusal only means it runs at its old nice
			for !stop.Load() {
				burn(iters)
			}
			unlock(t, &restores, &unrestored)
		}()
	}
	for range threads {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t, err := a.Lock()
			if err != nil {
				fail(err)
				return
			}
			var queries, refused uint64
			var spent time.Duration
			for !stop.Load() {
				t0 := time.Now()
				_, enterErr := t.Apply(prio.Query)
				t1 := time.Now()
				burn(iters)
				t2 := time.Now()
				_, exitErr := t.Apply(prio.Wait)
				spent += t1.Sub(t0) + time.Since(t2)
				queries++
				if roundTrip > 0 {
					time.Sleep(roundTrip) // blocked on the client: the thread sleeps
				}
				for _, err := range []error{enterErr, exitErr} {
					if err != nil {
						refused++
					}
				}
			}
			unlock(t, &restores, &unrestored)
			mu.Lock()
			r.queries += queries
			r.refused += refused
			r.callTime += spent
			mu.Unlock()
		}()
	}
	time.Sleep(d)
	stop.Store(true)
	wg.Wait()
	// The restores at the end are calls too, but not per-query ones.
	r.calls = a.Stats().Calls - restores.Load()
	r.unrestored = unrestored.Load()
	return r, firstErr
}

// unlock restores a thread, counting the calls that takes in restores. If the OS
// will not restore it (a background thread at nice 10 without CAP_SYS_NICE), that
// is expected, not a failure: the thread ends with its goroutine, and unrestored
// counts it.
func unlock(t *prio.Thread, restores, unrestored *atomic.Uint64) {
	restores.Add(uint64(len(prio.RestorePlan(t.State(), t.Base()))))
	if err := t.Unlock(); err != nil {
		t.Release()
		unrestored.Add(1)
	}
}

// sink keeps burn's result observable so the loop is not optimised away.
var sink atomic.Uint64

// burn spins the CPU for n rounds of a linear congruential step.
func burn(n uint64) {
	x := uint64(1)
	for range n {
		x = x*6364136223846793005 + 1442695040888963407
	}
	sink.Add(x & 1)
}

// calibrate returns how many burn rounds take about d of CPU on this machine,
// measured with the thread's own CPU clock where there is one.
func calibrate(d time.Duration) uint64 {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	const n = 2_000_000
	c0, err := prio.ThreadCPUTime()
	w0 := time.Now()
	burn(n)
	c1, _ := prio.ThreadCPUTime()
	took := c1 - c0
	if err != nil || took <= 0 {
		took = time.Since(w0)
	}
	return max(1, uint64(float64(n)*float64(d)/float64(took)))
}
