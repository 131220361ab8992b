package engine

import (
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEngineOrder(t *testing.T) {
	tests := []struct {
		name string
		at   []int64
		want []int32
	}{
		{"events run in time order", []int64{30, 10, 20}, []int32{1, 2, 0}},
		{"ties run in scheduling order", []int64{5, 5, 5, 1}, []int32{3, 0, 1, 2}},
		{"past times are clamped to now", []int64{-1, 0}, []int32{0, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := New(1)
			var got []int32
			k := e.On(func(now int64, a int32, gen uint32) { got = append(got, a) })
			for i, at := range tt.at {
				e.At(at, k, int32(i), 0)
			}
			e.Run(1 << 62)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestEngineRunStopsAtUntil(t *testing.T) {
	e := New(1)
	n := 0
	var k Kind
	k = e.On(func(now int64, a int32, gen uint32) { n++; e.After(10, k, 0, 0) })
	e.At(0, k, 0, 0)
	ran := e.Run(95)
	assert.Equal(t, uint64(10), ran, "events at 0,10,...,90")
	assert.Equal(t, int64(95), e.Now())
	assert.Equal(t, 1, e.Pending())
}

func TestEngineRunsEventsInTimeThenSchedulingOrder(t *testing.T) {
	e := New(7)
	last := int64(-1)
	var lastSeq int32 = -1
	k := e.On(func(now int64, a int32, gen uint32) {
		require.GreaterOrEqual(t, now, last)
		if now == last {
			require.Greater(t, a, lastSeq, "ties in scheduling order")
		}
		last, lastSeq = now, a
	})
	for i := 0; i < 10000; i++ {
		e.At(e.Rand().Int64N(1000), k, int32(i), 0)
	}
	assert.Equal(t, uint64(10000), e.Run(1<<62))
}

func TestEngineSameSeedSameDraws(t *testing.T) {
	a, b := New(42), New(42)
	for i := 0; i < 100; i++ {
		require.Equal(t, a.Rand().Uint64(), b.Rand().Uint64())
	}
	assert.NotEqual(t, New(1).Rand().Uint64(), New(2).Rand().Uint64())
}

// BenchmarkEngine measures raw engine throughput on the hold model: a steady
// population of pending events (as in a simulated machine with that many
// timers), each handler scheduling its successor at a time drawn uniformly
// from 1..10,000 ns ahead, run by Engine.Run as a simulation runs. The
// figure of merit is events/s; TestEngineAgainstSimPy holds it against
// SimPy's on the same model.
func BenchmarkEngine(b *testing.B) {
	for _, pending := range []int{16, 256, 4096} {
		b.Run("pending="+strconv.Itoa(pending), func(b *testing.B) { benchHold(b, pending) })
	}
}

// benchHold runs b.N events of the hold model with pending events.
func benchHold(b *testing.B, pending int) {
	h := newHold(pending)
	b.ReportAllocs()
	b.ResetTimer()
	h.run(b.N)
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// hold is the hold model on an engine: each event draws one number from the
// engine's random source, as SimPy's holders do, and schedules its
// successor that far ahead; and, as they do, counts the events and stops
// the run at the limit.
type hold struct {
	e     *Engine
	limit uint64
}

// newHold returns the hold model with pending events scheduled.
func newHold(pending int) *hold {
	h := &hold{e: New(1)}
	e := h.e
	var k Kind
	k = e.On(func(now int64, a int32, gen uint32) {
		if e.Events() == h.limit {
			e.Stop()
		}
		e.After(1+e.Int64N(10000), k, a, gen)
	})
	for i := 0; i < pending; i++ {
		e.At(e.Int64N(10000), k, int32(i), 0)
	}
	return h
}

// run runs the next n events (n > 0) of the model.
func (h *hold) run(n int) {
	h.limit = h.e.Events() + uint64(n)
	h.e.Run(math.MaxInt64)
}

func TestJitterStaysWithinHalfAndOneAndAHalfTimesTheCost(t *testing.T) {
	e := New(1)
	assert.Zero(t, e.Jitter(0))
	assert.Zero(t, e.Jitter(-time.Second))
	lo, hi := int64(1<<62), int64(0)
	for range 10000 {
		v := e.Jitter(1000)
		lo, hi = min(lo, v), max(hi, v)
	}
	assert.GreaterOrEqual(t, lo, int64(500))
	assert.Less(t, hi, int64(1500))
	assert.Less(t, lo, int64(510), "the draws reach near the bottom")
	assert.Greater(t, hi, int64(1490), "and near the top")
}

// TestEngineAfterSaturates pins that After with a duration past the end of
// virtual time schedules the event last, not (by an overflow of now+d) at
// once before events that are due.
func TestEngineAfterSaturates(t *testing.T) {
	e := New(1)
	var order []int32
	k := e.On(func(now int64, a int32, _ uint32) { order = append(order, a) })
	start := e.On(func(now int64, _ int32, _ uint32) {
		e.After(math.MaxInt64, k, 1, 0)
		e.After(10, k, 2, 0)
	})
	e.At(100, start, 0, 0)
	e.Run(math.MaxInt64)
	if len(order) != 2 || order[0] != 2 || order[1] != 1 {
		t.Fatalf("events ran in order %v, want [2 1] (the saturated event last)", order)
	}
	if e.Now() != math.MaxInt64 {
		t.Fatalf("Now = %d after the saturated event, want %d", e.Now(), int64(math.MaxInt64))
	}
}

// TestEngineRunNeverMovesClockBack pins that Run with an until before Now
// leaves the clock where it is (it went back to until while events were
// pending).
func TestEngineRunNeverMovesClockBack(t *testing.T) {
	e := New(1)
	k := e.On(func(int64, int32, uint32) {})
	e.At(1000, k, 0, 0)
	e.Run(500)
	if e.Now() != 500 {
		t.Fatalf("Now = %d after Run(500), want 500", e.Now())
	}
	e.Run(100)
	if e.Now() != 500 {
		t.Fatalf("Now = %d after Run(100) at 500, want 500 (the clock must not go back)", e.Now())
	}
	if e.Pending() != 1 {
		t.Fatalf("Pending = %d, want 1 (the event at 1000 not run)", e.Pending())
	}
}

// TestEngineJitterNeverNegative pins that Jitter of a huge duration saturates
// (half of d plus a draw below d overflowed to a negative cost).
func TestEngineJitterNeverNegative(t *testing.T) {
	e := New(1)
	for range 1000 {
		if j := e.Jitter(time.Duration(math.MaxInt64)); j < math.MaxInt64/2 {
			t.Fatalf("Jitter(MaxInt64) = %d, want ≥ MaxInt64/2", j)
		}
	}
}

// TestEngineStopLeavesTheClockAtTheEvent pins that a Run ended by Stop
// leaves the clock at the stopping event's time, even when that event was
// the last pending, and that the next Run goes on from there.
func TestEngineStopLeavesTheClockAtTheEvent(t *testing.T) {
	e := New(1)
	var stop, tick Kind
	stop = e.On(func(now int64, _ int32, _ uint32) { e.Stop() })
	tick = e.On(func(now int64, _ int32, _ uint32) {})
	e.At(100, tick, 0, 0)
	e.At(200, stop, 0, 0)
	if ran := e.Run(1000); ran != 2 || e.Now() != 200 {
		t.Fatalf("Run(1000) ran %d events and left the clock at %d, want 2 and 200 (the stopping event's)", ran, e.Now())
	}
	e.At(300, tick, 0, 0)
	e.At(400, stop, 0, 0)
	e.At(500, tick, 0, 0)
	if ran := e.Run(1000); ran != 2 || e.Now() != 400 || e.Pending() != 1 {
		t.Fatalf("second Run ran %d events, clock %d, pending %d; want 2, 400, 1", ran, e.Now(), e.Pending())
	}
	if ran := e.Run(1000); ran != 1 || e.Now() != 1000 {
		t.Fatalf("third Run ran %d events, clock %d; want 1 and 1000 (until reached)", ran, e.Now())
	}
}

func TestEngineStopsWithinPollEveryEventsOfDone(t *testing.T) {
	e := New(1)
	done := make(chan struct{})
	e.SetDone(done)
	n := 0
	var k Kind
	k = e.On(func(now int64, a int32, gen uint32) {
		n++
		if n == 10 {
			close(done)
		}
		e.After(1, k, 0, 0)
	})
	e.At(0, k, 0, 0)
	ran := e.Run(1 << 62)
	assert.True(t, e.Canceled())
	assert.LessOrEqual(t, ran, uint64(PollEvery))
	assert.Zero(t, e.Run(1<<62), "a canceled engine runs nothing more")
}
