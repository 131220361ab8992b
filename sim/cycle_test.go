package sim

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/innosim/innosim/aio"
	"github.com/innosim/innosim/prio"
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
// read lands in it, and targeted wakes, so that only its handler wakes.
func cycleConfig() aio.Config {
	cfg := aio.DefaultConfig()
	cfg.ReadSegments = 1
	cfg.Wake = aio.WakeTargeted
	return cfg
}

// simCycleTrace runs the simulator's AIO driver with one thread that submits
// pages read-ahead pages at once every 0.5-1.5 ms (far longer than their 100 µs
// I/Os) for 30 ms of virtual time, and returns the handler cycles' Core calls
// up to the last completed batch.
func simCycleTrace(t *testing.T, pages int32) []string {
	t.Helper()
	m, err := NewMachine(MachineConfig{CPUs: 2, Seed: 1})
	require.NoError(t, err)
	require.NoError(t, m.SetAIO(cycleConfig(), 1)) // one page: every read at offset 0
	trace := &cycleTrace{}
	for _, h := range m.aio.hs {
		h.cycle.Observe = trace.observe
	}
	require.NoError(t, m.AddThread([]Op{prefetch(pages), sleep(time.Millisecond)}, prio.Normal))
	m.Run(0, 30*time.Millisecond)
	lines := trace.lines()
	for len(lines) > 0 && lines[len(lines)-1][:8] != "complete" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// realCycleTrace submits n reads to a real aio.Array (the Latency backend, so
// nothing is read), one at a time, each after the last one's Done, and
// returns the handler cycles' Core calls before Close (which wakes every
// handler to exit; the simulator's never close).
func realCycleTrace(t *testing.T, n int) []string {
	t.Helper()
	lat, err := aio.NewLatency(0, 1)
	require.NoError(t, err)
	trace := &cycleTrace{}
	cfg := cycleConfig()
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
	}
	lines := trace.lines()
	require.NoError(t, a.Close())
	return lines
}

// The simulator's AIO handlers and aio.Array's make the same Core calls for
// the same submissions, because both step aio.HandlerCycle: a Pick counting
// the wake, the Complete of its batch, and no Pick after it while nothing
// waits (the cycle skips that call; a driver that made it would show a
// "pick ... counted=false slots=[]" line here).
func TestSimAndRealHandlersMakeTheSameCoreCalls(t *testing.T) {
	sim := simCycleTrace(t, 1)
	require.NotEmpty(t, sim)
	picks := 0
	for _, l := range sim {
		if l[:4] == "pick" {
			picks++
		}
	}
	require.GreaterOrEqual(t, picks, 10, "the simulated run submitted enough reads")
	real := realCycleTrace(t, picks)
	assert.Equal(t, sim, real)
	assert.Equal(t, "pick seg=2 counted=true slots=[512]", real[0], "the read segment's first slot")
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
	sim := simCycleTrace(t, 2)
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
	cfg := cycleConfig()
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
