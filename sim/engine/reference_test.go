package engine

import (
	"math"
	"slices"
)

// refEngine is the plain reference the differential test holds Engine to:
// the same contract (At, After, Run, Step, Stop, SetDone) over a slice kept
// sorted by (time, sequence number), with no structure of its own to get
// wrong.
type refEngine struct {
	now      int64
	seq      uint64
	pending  []refEvent // sorted by (at, seq)
	handlers []Handler
	events   uint64
	stopped  bool
	done     <-chan struct{}
	nextPoll uint64
	canceled bool
}

type refEvent struct {
	at  int64
	seq uint64
	k   Kind
	a   int32
	gen uint32
}

func newRef() *refEngine { return &refEngine{nextPoll: math.MaxUint64} }

func (r *refEngine) On(h Handler) Kind {
	r.handlers = append(r.handlers, h)
	return Kind(len(r.handlers) - 1)
}

func (r *refEngine) Now() int64     { return r.now }
func (r *refEngine) Events() uint64 { return r.events }
func (r *refEngine) Pending() int   { return len(r.pending) }
func (r *refEngine) Stop()          { r.stopped = true }
func (r *refEngine) Canceled() bool { return r.canceled }
func (r *refEngine) cmp(x, y refEvent) int {
	switch {
	case x.at != y.at:
		return cmpInt(x.at, y.at)
	default:
		return cmpInt(int64(x.seq), int64(y.seq))
	}
}

func cmpInt(x, y int64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

func (r *refEngine) At(at int64, k Kind, a int32, gen uint32) {
	at = max(at, r.now)
	r.seq++
	ev := refEvent{at: at, seq: r.seq, k: k, a: a, gen: gen}
	i, _ := slices.BinarySearchFunc(r.pending, ev, r.cmp)
	r.pending = slices.Insert(r.pending, i, ev)
}

func (r *refEngine) After(d int64, k Kind, a int32, gen uint32) {
	at := r.now + d
	if d > 0 && at < r.now {
		at = math.MaxInt64
	}
	r.At(at, k, a, gen)
}

func (r *refEngine) SetDone(done <-chan struct{}) {
	r.done = done
	r.nextPoll = math.MaxUint64
	if done != nil {
		r.nextPoll = r.events + PollEvery
	}
}

func (r *refEngine) poll() bool {
	r.nextPoll = r.events + PollEvery
	select {
	case <-r.done:
		r.canceled = true
		return true
	default:
		return false
	}
}

func (r *refEngine) run1() {
	ev := r.pending[0]
	r.pending = slices.Delete(r.pending, 0, 1)
	r.now = ev.at
	r.events++
	r.handlers[ev.k](ev.at, ev.a, ev.gen)
}

func (r *refEngine) Run(until int64) uint64 {
	start := r.events
	r.stopped = false
	if r.canceled || r.done != nil && r.poll() {
		return 0
	}
	for len(r.pending) > 0 && !r.stopped {
		if r.events >= r.nextPoll && r.poll() {
			return r.events - start
		}
		if r.pending[0].at > until {
			r.now = max(r.now, until)
			return r.events - start
		}
		r.run1()
	}
	if !r.stopped && r.now < until {
		r.now = until
	}
	return r.events - start
}

func (r *refEngine) Step() bool {
	if len(r.pending) == 0 {
		return false
	}
	r.run1()
	return true
}
