package engine

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestEngineAgainstSimPy runs the hold model of BenchmarkEngine on this
// engine and on SimPy (testdata/simpy_hold.py, Debian's python3-simpy),
// alternating the two in short rounds, and logs each round's events per
// second of CPU time and their ratio; it fails when the median ratio at any
// size is below simpyRatio. CPU time, not wall time, so that a busy machine
// slows both sides alike. It runs only when INNOSIM_SIMPY=1 (about a minute):
//
//	apt-get install -y python3-simpy
//	INNOSIM_SIMPY=1 go test -run TestEngineAgainstSimPy -v ./sim/engine
//
// The interpreter is INNOSIM_PYTHON, else /usr/bin/python3.
func TestEngineAgainstSimPy(t *testing.T) {
	if os.Getenv("INNOSIM_SIMPY") != "1" {
		t.Skip("set INNOSIM_SIMPY=1 to compare with SimPy (needs python3-simpy)")
	}
	if _, ok := processCPU(); !ok {
		t.Skip("no CPU time for the process on this system")
	}
	python := os.Getenv("INNOSIM_PYTHON")
	if python == "" {
		python = "/usr/bin/python3"
	}
	script := filepath.Join("testdata", "simpy_hold.py")
	const rounds = 9
	for _, size := range []struct{ pending, goEvents, simpyEvents int }{
		{16, 10_000_000, 200_000}, {256, 5_000_000, 150_000}, {4096, 4_000_000, 100_000},
	} {
		var ratios []float64
		for r := range rounds {
			goRate := holdRate(size.pending, size.goEvents)
			simpyRate, err := simpyHold(python, script, size.pending, size.simpyEvents)
			if err != nil {
				t.Fatalf("SimPy: %v", err)
			}
			ratios = append(ratios, goRate/simpyRate)
			t.Logf("pending=%d round %d: engine %.2fM events/cpu-s, SimPy %.3fM: %.1f×", size.pending, r+1, goRate/1e6, simpyRate/1e6, goRate/simpyRate)
		}
		slices.Sort(ratios)
		med := ratios[len(ratios)/2]
		t.Logf("pending=%d: median %.1f× SimPy (min %.1f×, max %.1f×)", size.pending, med, ratios[0], ratios[len(ratios)-1])
		if med < simpyRatio {
			t.Errorf("pending=%d: the engine runs the hold model %.1f× as fast as SimPy (median of %d rounds), want ≥ %d×", size.pending, med, rounds, simpyRatio)
		}
	}
}

// simpyRatio is how many times SimPy's events per CPU second the engine must
// run the hold model at.
const simpyRatio = 40

// holdRate runs events events of BenchmarkEngine's hold model with pending
// events and returns the events per second of the process's CPU time.
func holdRate(pending, events int) float64 {
	h := newHold(pending)
	h.run(events / 10) // warm the caches and the calendar's buckets
	start, _ := processCPU()
	h.run(events)
	end, _ := processCPU()
	return float64(events) / max(end-start, time.Microsecond).Seconds()
}

// simpyHold runs the SimPy hold model for events events and returns its
// events per second of CPU time.
func simpyHold(python, script string, pending, events int) (float64, error) {
	out, err := exec.Command(python, script, strconv.Itoa(pending), strconv.Itoa(events)).CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("%s %s: %w: %s", python, script, err, out)
	}
	for _, f := range strings.Fields(string(out)) {
		if v, ok := strings.CutPrefix(f, "events/cpu-s="); ok {
			return strconv.ParseFloat(v, 64)
		}
	}
	return 0, fmt.Errorf("%s printed no events/cpu-s: %q", script, out)
}
