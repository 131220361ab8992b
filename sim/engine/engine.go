// Package engine is the simulator's discrete-event engine: events run in
// order of virtual time (ns), those at one time in the order they were
// scheduled, from a calendar queue (R. Brown, CACM 1988); handlers registered
// once and named by a small Kind; a virtual clock and a seeded PCG random
// source. Scheduling an event allocates nothing once the queue has grown to
// the number pending, and the engine starts no goroutine. The same seed
// and the same schedule of events give the same run, byte for byte.
package engine

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"time"
)

// Kind names an event handler registered with Engine.On. Events carry a Kind
// rather than a closure so that scheduling an event allocates nothing and the heap
// holds plain structs.
type Kind uint16

// Handler runs one event: now is the event's virtual time in nanoseconds, a and gen
// are the values given to Engine.At (typically a thread index and the generation
// that makes stale timers recognisable).
type Handler func(now int64, a int32, gen uint32)

// Engine is a deterministic discrete-event engine: a calendar queue of events
// in (time, sequence) order (events at one time run in the order they were
// scheduled), a virtual clock in nanoseconds and a seeded PCG random source.
// Scheduling an event and taking the next cost a few steps however many are
// pending. It runs in the calling goroutine and starts none; two engines with
// the same seed and the same schedule of events produce the same run, byte
// for byte.
//
// The zero value is not usable; call New.
type Engine struct {
	now      int64
	q        calendar
	handlers []Handler
	events   uint64
	stopped  bool

	// pcg is the random source, drawn from directly by Int64N and Jitter
	// and through rng by Rand's callers: one stream either way.
	pcg rand.PCG
	rng *rand.Rand

	// done, when not nil, cancels Run (SetDone); it is polled when events
	// reaches nextPoll, every PollEvery events, and Stop sets nextPoll to
	// 0, so that the hot loop pays one comparison per event for both.
	done     <-chan struct{}
	nextPoll uint64
	canceled bool
}

// PollEvery is how many events Run runs between two looks at its done channel:
// a few hundred microseconds of a busy machine's events.
const PollEvery = 4096

// New returns an engine at virtual time 0 whose random source is PCG seeded
// with seed.
func New(seed uint64) *Engine {
	e := &Engine{q: newCalendar(), nextPoll: math.MaxUint64}
	e.pcg.Seed(seed, seed^0x9e3779b97f4a7c15)
	e.rng = rand.New(&e.pcg)
	return e
}

// SetDone makes Run stop, within PollEvery events, once done is closed (a
// context's Done channel), and every later Run return at once; Canceled then
// reports true. A nil done cancels nothing. Cancellation does not change the
// events run before it, so a run that is not canceled is the same run.
func (e *Engine) SetDone(done <-chan struct{}) {
	e.done = done
	e.schedulePoll()
}

// schedulePoll sets nextPoll: 0 when stopped, PollEvery events on with a
// done channel, else never.
func (e *Engine) schedulePoll() {
	switch {
	case e.stopped:
		e.nextPoll = 0
	case e.done != nil:
		e.nextPoll = e.events + PollEvery
	default:
		e.nextPoll = math.MaxUint64
	}
}

// Canceled reports whether Run stopped because SetDone's channel was closed.
func (e *Engine) Canceled() bool { return e.canceled }

// poll looks at the done channel and schedules the next look.
func (e *Engine) poll() bool {
	e.nextPoll = e.events + PollEvery
	select {
	case <-e.done:
		e.canceled = true
		return true
	default:
		return false
	}
}

// On registers h and returns the Kind that schedules it.
func (e *Engine) On(h Handler) Kind {
	e.handlers = append(e.handlers, h)
	return Kind(len(e.handlers) - 1)
}

// Now returns the virtual time in nanoseconds.
func (e *Engine) Now() int64 { return e.now }

// Jitter draws a duration uniformly in [0.5, 1.5) × d, in ns, from the engine's
// random source (0 for d ≤ 0): what a simulated cost of nominal d takes this
// time. Real costs vary, and without it simulated threads fall into a lockstep no
// machine keeps. A draw past the end of virtual time saturates at
// math.MaxInt64. Call it only inside event handlers, as Rand.
func (e *Engine) Jitter(d time.Duration) int64 {
	if d <= 0 {
		return 0
	}
	half, r := int64(d)/2, e.Int64N(int64(d))
	if r > math.MaxInt64-half {
		return math.MaxInt64
	}
	return half + r
}

// Rand returns the engine's seeded random source. Draw from it only inside event
// handlers, so that the order of draws is the order of events.
func (e *Engine) Rand() *rand.Rand { return e.rng }

// Int64N draws an integer uniformly in [0, n) from the engine's random
// source: the same draw, from the same stream, as Rand().Int64N(n), without
// the call through rand.Source. It panics if n ≤ 0, as Rand().Int64N does.
// Call it only inside event handlers, as Rand.
func (e *Engine) Int64N(n int64) int64 { return int64n(&e.pcg, n) }

// Events returns how many events have run.
func (e *Engine) Events() uint64 { return e.events }

// Pending returns how many events are scheduled and not yet run.
func (e *Engine) Pending() int { return e.q.n }

// Stop makes Run return after the current event.
func (e *Engine) Stop() { e.stopped, e.nextPoll = true, 0 }

// At schedules the handler of kind k at virtual time at (ns; clamped to now if in
// the past, so time never runs backwards) with arguments a and gen.
func (e *Engine) At(at int64, k Kind, a int32, gen uint32) {
	if at < e.now {
		at = e.now
	}
	e.q.push(at, a, gen, k)
}

// After schedules the handler of kind k d nanoseconds from now. A d past the
// end of virtual time saturates at math.MaxInt64 (the event never comes before
// any other), and a negative d is now, as in At.
func (e *Engine) After(d int64, k Kind, a int32, gen uint32) {
	e.q.push(e.now+min(max(d, 0), math.MaxInt64-e.now), a, gen, k)
}

// Run runs events in (time, sequence) order until none is pending, the next
// event is later than until (ns), Stop is called or SetDone's channel is
// closed. The clock is left at until when the run reached it, else at the
// last event's time. The clock never moves backwards: an until before Now runs
// nothing and leaves the clock where it is. It returns the number of events
// run by this call.
func (e *Engine) Run(until int64) uint64 {
	start := e.events
	e.stopped = false
	e.schedulePoll()
	if e.canceled || e.done != nil && e.poll() {
		return 0
	}
	q := &e.q
	for q.n > 0 {
		if e.events >= e.nextPoll && (e.stopped || e.poll()) {
			return e.events - start
		}
		// calendar.take, written out so that the loop calls nothing but
		// the handler: change the two together
		h := q.next
		nd := &q.nodes[h]
		at := nd.at
		if at > until {
			break
		}
		shift, mask := q.shift&63, q.mask
		d := uint64(at) >> shift
		j := d & mask
		w := j >> 6
		next := nd.next
		q.buckets[j] = next
		word := q.occ[w] &^ (uint64(uint32(next)>>31) << (j & 63))
		q.occ[w] = word
		nd.next, q.free = q.free, h
		q.day = d
		q.n--
		found := false // the event after, in the two bitmap words
		word, off := word>>(j&63), uint64(0)
		if word == 0 && int(w)+1 < len(q.occ) {
			word, off = q.occ[w+1], 64-j&63
		}
		if word != 0 && d+mask < q.farDay {
			skip := off + uint64(bits.TrailingZeros64(word))
			i := q.buckets[j+skip]
			if at := q.nodes[i].at; uint64(at)>>shift == d+skip {
				q.next, q.nextAt = i, at
				found = true
				if q.left--; q.left == 0 {
					q.endPeriod()
				}
			}
		}
		if !found {
			q.findNext()
		}
		e.now = nd.at
		e.events++
		e.handlers[nd.kind](nd.at, nd.a, nd.gen)
	}
	if !e.stopped {
		e.now = max(e.now, until)
	}
	return e.events - start
}

// Step runs the next event, if any, and reports whether one ran.
func (e *Engine) Step() bool {
	if e.q.n == 0 {
		return false
	}
	nd := e.q.take(math.MaxInt64)
	e.now = nd.at
	e.events++
	e.handlers[nd.kind](nd.at, nd.a, nd.gen)
	return true
}
