package aiosim

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/innosim/innosim/aio"
	"github.com/innosim/innosim/prio"
	"github.com/innosim/innosim/sim/machine"
)

// cycleTrace records a handler cycle's Core calls, one line each, from any
// number of handler threads.
type cycleTrace struct {
	mu    sync.Mutex
	calls []string
}

func (t *cycleTrace) observe(c aio.CycleCall) {
	t.mu.Lock()
	defer t.mu.Unlock()
	line := fmt.Sprintf("%s seg=%d", c.Op, c.Segment)
	if c.Op == aio.CyclePick {
		line += fmt.Sprintf(" counted=%v slots=%v", c.Counted, c.Slots)
	} else {
		line += fmt.Sprintf(" failed=%d", c.Failed)
	}
	t.calls = append(t.calls, line)
}

func (t *cycleTrace) lines() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.calls...)
}

// tracedLatency is the Latency backend at zero service time that also
// receives every handler cycle's Core calls (aio.HandlerCycle.Observe).
type tracedLatency struct {
	*aio.Latency
	trace *cycleTrace
}

func (b tracedLatency) ObserveCycle(c aio.CycleCall) { b.trace.observe(c) }

// cycleConfig is the array of both runs: one read segment, so that every
// read lands in it, and wake policy wake.
func cycleConfig(wake aio.WakePolicy) aio.Config {
	cfg := aio.DefaultConfig()
	cfg.ReadSegments = 1
	cfg.Wake = wake
	return cfg
}

// bySegment splits a trace into each segment's calls, in order: handlers of
// different segments run concurrently in aio.Array, so only each one's own
// sequence is determined.
func bySegment(lines []string) map[string][]string {
	out := map[string][]string{}
	for _, l := range lines {
		seg := strings.Fields(l)[1]
		out[seg] = append(out[seg], l)
	}
	return out
}

// simCycleTrace runs the simulator's AIO driver with one thread that submits
// pages read-ahead pages at once every 0.5-1.5 ms (far longer than their 100 µs
// I/Os) for 30 ms of virtual time, and returns the handler cycles' Core calls
// up to the last completed batch.
func simCycleTrace(t *testing.T, wake aio.WakePolicy, pages int32) []string {
	t.Helper()
	m, err := machine.New(machine.Config{CPUs: 2, Seed: 1})
	require.NoError(t, err)
	a, err := Install(m, cycleConfig(wake), 1, nil, nil)
	require.NoError(t, err) // one page: every read at offset 0
	trace := &cycleTrace{}
	for _, h := range a.(*Simulated).hs {
		h.cycle.Observe = trace.observe
	}
	require.NoError(t, m.AddThread([]machine.Op{prefetch(pages), sleep(time.Millisecond)}, prio.Normal))
	m.Run(0, 30*time.Millisecond)
	lines := trace.lines()
	for len(lines) > 0 && lines[len(lines)-1][:8] != "complete" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// simCyclePicks is how many requests the simulated run picked.
func simCyclePicks(lines []string) int {
	n := 0
	for _, l := range lines {
		if strings.HasPrefix(l, "pick") && !strings.HasSuffix(l, "slots=[]") {
			n++
		}
	}
	return n
}

// realCycleTrace submits n reads to a real aio.Array (the Latency backend, so
// nothing is read), one at a time, each after the last one's Done, and
// returns the handler cycles' Core calls before Close (which wakes every
// handler to exit; the simulator's never close).
//
// Under WakeAll every submission also wakes every other handler, which finds
// nothing; before the next submission the run waits until all of them have
// counted their wake (Stats takes every segment lock, and a handler's Pick
// and its event's Reset are under one hold of its segment's lock, so each has
// reset its event by then and no Set is lost to a handler not yet asleep).
func realCycleTrace(t *testing.T, wake aio.WakePolicy, n int) []string {
	t.Helper()
	lat, err := aio.NewLatency(0, 1)
	require.NoError(t, err)
	trace := &cycleTrace{}
	cfg := cycleConfig(wake)
	cfg.Backend = tracedLatency{Latency: lat, trace: trace}
	a, err := aio.New(cfg)
	require.NoError(t, err)
	done := make(chan error, 1)
	buf := make([]byte, cfg.PageSize)
	for i := range n {
		r := &aio.Request{Op: aio.Read, Kind: aio.KindNormal, Offset: int64(2*i) * cfg.PageSize, Buf: buf,
			Done: func(_ *aio.Request, err error) { done <- err }}
		require.NoError(t, a.Submit(context.Background(), r))
		require.NoError(t, <-done)
		if wake == aio.WakeAll {
			want := uint64((i + 1) * cfg.Segments())
			require.Eventually(t, func() bool { return a.Stats().Wakeups >= want }, 10*time.Second, 100*time.Microsecond)
		}
	}
	lines := trace.lines()
	require.NoError(t, a.Close())
	return lines
}

// The simulator's AIO handlers and aio.Array's make the same Core calls for
// the same submissions, because both step aio.HandlerCycle. Targeted: a Pick
// counting the wake, the Complete of its batch, and no Pick after it while
// nothing waits (the cycle skips that call; a driver that made it would show
// a "pick ... counted=false slots=[]" line). WakeAll: besides, every other
// handler's wasted wake ("counted=true slots=[]"), which a driver that skipped
// the Pick whenever nothing waits would not show.
func TestSimAndRealHandlersMakeTheSameCoreCalls(t *testing.T) {
	for _, wake := range []aio.WakePolicy{aio.WakeTargeted, aio.WakeAll} {
		t.Run("wake="+wake.String(), func(t *testing.T) {
			sim := simCycleTrace(t, wake, 1)
			picks := simCyclePicks(sim)
			require.GreaterOrEqual(t, picks, 10, "the simulated run submitted enough reads")
			real := realCycleTrace(t, wake, picks)
			assert.Equal(t, bySegment(sim), bySegment(real))
			assert.Equal(t, "pick seg=2 counted=true slots=[512]", bySegment(real)["seg=2"][0], "the read segment's first slot")
		})
	}
}

// tracedLatencyHold is tracedLatency whose reads each wait, once in the I/O,
// for the test to release them: so a second request can be submitted while the
// handler does the first one's I/O, whatever the goroutines' timing.
type tracedLatencyHold struct {
	tracedLatency
	inIO, release chan struct{}
}

func (b tracedLatencyHold) ReadAt(f aio.File, p []byte, off int64) (int, error) {
	b.inIO <- struct{}{}
	<-b.release
	return b.Latency.ReadAt(f, p, off)
}

// The same with two requests of the segment at once, the second reserved
// while the handler does the first one's I/O: after Complete the handler picks
// it without sleeping and without counting a wake, and then sleeps. A driver
// that slept after Complete instead of asking the cycle would find its event
// set by the second request and count a wake ("counted=true") here.
func TestSimAndRealHandlersMakeTheSameCoreCallsWithTwoRequestsAtOnce(t *testing.T) {
	sim := simCycleTrace(t, aio.WakeTargeted, 2)
	rounds := 0
	for _, l := range sim {
		if l[:4] == "pick" {
			rounds++
		}
	}
	rounds /= 2
	require.GreaterOrEqual(t, rounds, 5)
	sim = sim[:4*rounds]

	lat, err := aio.NewLatency(0, 1)
	require.NoError(t, err)
	trace := &cycleTrace{}
	be := tracedLatencyHold{tracedLatency{Latency: lat, trace: trace}, make(chan struct{}), make(chan struct{})}
	cfg := cycleConfig(aio.WakeTargeted)
	cfg.Backend = be
	a, err := aio.New(cfg)
	require.NoError(t, err)
	done := make(chan error, 2)
	buf := make([]byte, cfg.PageSize)
	submit := func() {
		r := &aio.Request{Op: aio.Read, Kind: aio.KindNormal, Buf: buf, Done: func(_ *aio.Request, err error) { done <- err }}
		require.NoError(t, a.Submit(context.Background(), r))
	}
	for range rounds {
		submit()
		<-be.inIO // the first is picked and in its I/O
		submit()
		be.release <- struct{}{}
		<-be.inIO // the second is picked
		be.release <- struct{}{}
		require.NoError(t, <-done)
		require.NoError(t, <-done)
	}
	real := trace.lines()
	require.NoError(t, a.Close())
	assert.Equal(t, sim, real)
}
