package engine

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// eventEngine is what the differential test drives: Engine and refEngine.
type eventEngine interface {
	On(Handler) Kind
	At(at int64, k Kind, a int32, gen uint32)
	After(d int64, k Kind, a int32, gen uint32)
	Run(until int64) uint64
	Step() bool
	Stop()
	SetDone(done <-chan struct{})
	Canceled() bool
	Now() int64
	Events() uint64
	Pending() int
}

// shape is how a differential scenario draws its times.
type shape struct {
	name string
	// delay draws the distance from now of an event a handler schedules.
	delay func(r *rand.Rand) int64
	// initial events before the first action, and bulk the events of a
	// burst scheduled at once (all at one time when tie)
	initial, bulk int
	tie           bool
	// waves, when not 0, is how many events the population swells for
	// before it ebbs for as many, over and over until the cancellation:
	// the queue grows and shrinks through its sizes both ways
	waves int
}

var shapes = []shape{
	{name: "ties", initial: 200, bulk: 3000, tie: true,
		delay: func(r *rand.Rand) int64 { return r.Int64N(3) }},
	{name: "hold", initial: 4096, bulk: 500,
		delay: func(r *rand.Rand) int64 { return 1 + r.Int64N(10000) }},
	{name: "simulator mix", initial: 64, bulk: 4096, tie: true, // a machine's wakes, bursts, I/O and timers
		delay: func(r *rand.Rand) int64 {
			switch p := r.IntN(100); {
			case p < 5:
				return 0
			case p < 50:
				return 100 + r.Int64N(900)
			case p < 95:
				return 1000 + r.Int64N(100_000)
			default:
				return 1_000_000 + r.Int64N(1_000_000_000)
			}
		}},
	{name: "far and saturated", initial: 300, bulk: 2000,
		delay: func(r *rand.Rand) int64 {
			switch p := r.IntN(100); {
			case p < 3:
				return math.MaxInt64 - r.Int64N(3) // past the end of time: saturates
			case p < 6:
				return 1<<40 + r.Int64N(1<<40)
			case p < 8:
				return -r.Int64N(1000) // in the past: now
			default:
				return r.Int64N(50)
			}
		}},
	{name: "spread", initial: 10, bulk: 10000,
		delay: func(r *rand.Rand) int64 { return r.Int64N(1 << uint(r.IntN(50))) }},
	{name: "swell and ebb", initial: 16, bulk: 64, waves: 1000,
		delay: func(r *rand.Rand) int64 { return 1 + r.Int64N(10000) }},
}

// record is one line of what a scenario saw: an event run (its time and
// arguments) or the outcome of an action.
type record struct {
	what          string
	now           int64
	a             int32
	gen           uint32
	ret           uint64
	pending       int
	events        uint64
	canceled, val bool
}

// scenario drives eng through a seeded random run of shape sh and returns what
// it saw: every event's time and arguments, and after each action (Run to
// a bound, Step, a burst of events, a Stop from a handler, a done channel
// closed) the engine's clock, pending and run events.
func scenario(eng eventEngine, sh shape, seed uint64, maxEvents int) []record {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	var log []record
	var k Kind
	id := int32(0)
	var done chan struct{}
	closeAt, spawnUntil := -1, maxEvents
	schedule := func(now int64) {
		id++
		switch d := sh.delay(r); r.IntN(3) {
		case 0:
			eng.At(now+d, k, id, uint32(d))
		default:
			eng.After(d, k, id, uint32(d))
		}
	}
	k = eng.On(func(now int64, a int32, gen uint32) {
		log = append(log, record{what: "event", now: now, a: a, gen: gen})
		if len(log) == closeAt {
			close(done)
		}
		if r.IntN(2000) == 0 {
			eng.Stop()
		}
		if len(log) > spawnUntil || eng.Pending() > 8192 {
			return
		}
		spawn := r.IntN(3) + r.IntN(2) // 0..3, 1.5 on average: the population grows
		if sh.waves > 0 && len(log) < maxEvents && len(log)/sh.waves%2 == 1 {
			spawn = r.IntN(2) // 0.5 on average: it ebbs (until the cancellation)
		}
		for range spawn {
			schedule(now)
		}
	})
	state := func(what string, ret uint64, val bool) {
		log = append(log, record{what: what, now: eng.Now(), ret: ret, val: val,
			pending: eng.Pending(), events: eng.Events(), canceled: eng.Canceled()})
	}
	for range sh.initial {
		schedule(0)
	}
	for step := 0; len(log) < maxEvents; step++ {
		switch p := r.IntN(100); {
		case p < 40: // run to a bound near now
			until := eng.Now() + sh.delay(r)*int64(r.IntN(4))
			state("run", eng.Run(until), false)
		case p < 45: // a bound behind the clock runs nothing
			state("run back", eng.Run(eng.Now()-1-r.Int64N(10)), false)
		case p < 70:
			for range r.IntN(50) {
				state("step", 0, eng.Step())
			}
		case p < 75: // a burst: many events at once (at one time for ties)
			at := eng.Now() + sh.delay(r)
			for range r.IntN(sh.bulk + 1) {
				id++
				if sh.tie {
					eng.At(at, k, id, 0)
				} else {
					eng.At(eng.Now()+sh.delay(r), k, id, 0)
				}
			}
			state("burst", 0, false)
		case p < 77: // a drain: run every event to a far bound
			state("drain", eng.Run(eng.Now()+1<<50), false)
		case p < 79:
			eng.SetDone(nil)
			state("no done", 0, false)
		default:
			state("run", eng.Run(eng.Now()+sh.delay(r)), false)
		}
	}
	// A done channel closed by an event: Run stops within PollEvery events
	// and every later Run runs nothing.
	done = make(chan struct{})
	eng.SetDone(done)
	closeAt = len(log) + 1 + r.IntN(2*PollEvery)
	spawnUntil = closeAt + 2*PollEvery
	for range 8 {
		for range 20 {
			schedule(eng.Now())
		}
		state("run to cancel", eng.Run(math.MaxInt64), false)
	}
	state("drain after cancel", eng.Run(math.MaxInt64), false)
	for range 10 {
		state("step after cancel", 0, eng.Step())
	}
	return log
}

// TestEngineMatchesReference holds the engine to the plain reference over
// random schedules of every shape: same events in the same order, at the
// same times, and the same clock, pending count and returns after every Run,
// Step, burst and cancellation.
func TestEngineMatchesReference(t *testing.T) {
	for _, sh := range shapes {
		for seed := uint64(1); seed <= 2; seed++ {
			t.Run(fmt.Sprintf("%s/seed=%d", sh.name, seed), func(t *testing.T) {
				maxEvents := 20_000
				if testing.Short() || raceEnabled {
					maxEvents = 5_000
				}
				got := scenario(New(seed), sh, seed, maxEvents)
				want := scenario(newRef(), sh, seed, maxEvents)
				n := min(len(got), len(want))
				for i := range n {
					if got[i] != want[i] {
						t.Fatalf("record %d of %d: engine %+v, reference %+v (the reference's previous: %+v)",
							i, n, got[i], want[i], want[max(i-1, 0)])
					}
				}
				if len(got) != len(want) {
					t.Fatalf("engine saw %d records, reference %d", len(got), len(want))
				}
				runs, cancels := 0, 0
				for _, rec := range got {
					if rec.what == "event" {
						runs++
					}
					if rec.canceled {
						cancels++
					}
				}
				if runs < maxEvents || cancels == 0 {
					t.Fatalf("the scenario ran %d events (want at least %d) and was canceled in %d records (want some)", runs, maxEvents, cancels)
				}
			})
		}
	}
}
