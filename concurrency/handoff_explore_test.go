package concurrency

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestStrictHandoffExploredWithWaitOutside is a model check of strict
// Handoff (Starvation 0) as its driver (handoff.go) runs it: every
// interleaving of two or three threads, each making a few rounds of Enter —
// with a context that can or cannot end —, at most one WaitOutside, and Exit
// or ForceExit, then the ForceExit that ends its work. It walks the
// interleavings depth-first from the initial state, replaying each path on a
// new core, and stops where a state was seen before. INNOSIM_STRESS=long adds
// three threads of two rounds each (about a million states per limit); a
// -race build, whose detector has nothing to find in one goroutine, walks
// the two-thread space only.
//
// A step is one of the core's linearizable calls or one of the driver's own
// steps between them: the lock-free calls (tryEnter, leave, ForceEnter)
// change the state word in one CAS, after which nothing else they do is seen
// by another thread; the calls under the mutex (enterSlow, handOff, Cancel)
// re-read the word before each CAS and see the queues only under the mutex.
// So interleaving whole calls covers what interleaving their CASes would.
// The driver's steps are the ones where a woken thread is not yet running:
// the send of a wake after handOff or Cancel, the receive of it, and a
// context ending while the thread is parked (with a wake on its way, too:
// select picks either case).
//
// In every state it checks, with a seat counted as forced from ForceEnter
// until the thread gives it back (a forced seat outlives WaitOutside: Exit
// keeps it while its ticket lasts, and a ticket enter runs on it):
//
//   - threads on seats not forced never number more than the limit;
//   - while a thread waits in the queue, no seat is free (strict handoff);
//   - the state word's seats and waiters are the threads holding (or passing
//     on) a seat and the threads queued;
//   - a thread woken by a handoff is inside, one that canceled is not, and no
//     wake is sent to a thread that already has one;
//   - no thread waits forever (no state without a next step but the end),
//     and at the end nothing is inside or waiting and the counters balance.
func TestStrictHandoffExploredWithWaitOutside(t *testing.T) {
	type space struct{ limit, threads, rounds int }
	spaces := []space{{1, 2, 3}, {1, 3, 1}, {2, 3, 1}}
	if raceBuild {
		spaces = spaces[:1]
	}
	if stressLong() {
		spaces = append(spaces, space{1, 3, 2}, space{2, 3, 2})
	}
	for _, sp := range spaces {
		t.Run(fmt.Sprintf("limit=%d/threads=%d/rounds=%d", sp.limit, sp.threads, sp.rounds), func(t *testing.T) {
			e := explorer{limit: sp.limit, threads: sp.threads, rounds: sp.rounds}
			if err := e.run(); err != nil {
				t.Fatal(err)
			}
			t.Logf("%d states, %d ends, %d with the limit's seats taken and a forced seat beside them", len(e.seen), e.ends, e.overLimit)
			if e.ends == 0 || e.overLimit == 0 {
				t.Fatalf("the walk missed what it is for: %d ends, %d states over the limit by a forced seat", e.ends, e.overLimit)
			}
		})
	}
}

// TestStrictHandoffExplorerFindsWhatItChecks: the walk above reports each
// kind of fault it checks for when one is planted, with the path to it. The
// first is how a stress harness counted two threads inside a limit-1 gate
// with no forced seat: it took a seat from WaitOutside's ForceEnter as forced
// only until the round's Exit, but that Exit keeps the seat on its one ticket
// and the next Enter runs on it, beside the thread the seat was handed to
// during the wait.
func TestStrictHandoffExplorerFindsWhatItChecks(t *testing.T) {
	for _, tt := range []struct {
		name   string
		mutant mutant
		want   string
	}{
		{"a forced seat taken as ended with its round", forcedEndsWithRound, "threads on seats not forced, limit 1"},
		{"a handoff's wake not sent", handoffWakeLost, "waits forever"},
		{"a canceled waiter's handed seat not passed on", cancelWakeLost, "waits forever"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := explorer{limit: 1, threads: 2, rounds: 3, mutant: tt.mutant}
			err := e.run()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error containing %q", err, tt.want)
			}
			t.Log(err)
		})
	}
}

// mutant plants one fault in the explored driver or in the walk's accounting.
type mutant uint8

const (
	noMutant            mutant = iota
	forcedEndsWithRound        // the accounting forgets a forced seat at the end of its round
	handoffWakeLost            // an exit's handoff sends no wake
	cancelWakeLost             // a canceled waiter does not pass on the wake of its handed seat
)

// xpc is where an explored thread stands in its driver's code.
type xpc uint8

const (
	xStart       xpc = iota // next: a round's Enter (tryEnter), or the final ForceExit
	xSlow                   // next: enterSlow
	xParked                 // queued: take the wake, or see the context end
	xCancelDrain            // canceled after a seat was handed to it: take that wake
	xCancelWake             // next: send the wake Cancel's release asks for
	xInside                 // admitted: next WaitOutside, Exit or ForceExit
	xHandOff                // leave found waiters: next handOff
	xWake                   // next: send the wake handOff asks for
	xWaiting                // in WaitOutside's wait: next ForceEnter
	xDone
)

// xThread is one explored thread: its Thread and its driver's state.
type xThread struct {
	th          *Thread
	pc          xpc
	round       int
	cancellable bool    // this round's context can end
	waited      bool    // this round has waited outside
	forced      bool    // its seat came from ForceEnter
	token       bool    // a wake sits in its channel
	to          *Thread // the wake to send (xWake, xCancelWake)
	then        xpc     // where a release goes on: xWaiting or xStart
}

type xsys struct {
	c      *HandoffCore
	ts     []*xThread
	limit  int
	rounds int
	mutant mutant
	now    time.Duration
	trail  strings.Builder // the steps taken, for a failure's message
}

type xmove struct{ thread, choice int }

type explorer struct {
	limit, threads, rounds int
	mutant                 mutant
	seen                   map[string]bool
	ends, overLimit        int
	err                    error
}

func (e *explorer) run() error {
	e.seen = map[string]bool{}
	e.walk(nil)
	return e.err
}

func (e *explorer) newSys() *xsys {
	c, err := NewHandoffCore(Config{Limit: e.limit, Tickets: 2, Priority: Auto})
	if err != nil {
		panic(err)
	}
	s := &xsys{c: c, limit: e.limit, rounds: e.rounds, mutant: e.mutant}
	for i := range e.threads {
		s.ts = append(s.ts, &xThread{th: &Thread{InTransaction: i%2 == 0}, then: xStart})
	}
	return s
}

func (e *explorer) walk(path []xmove) {
	if e.err != nil {
		return
	}
	s := e.newSys()
	for _, m := range path {
		if err := s.step(m); err != nil {
			e.err = fmt.Errorf("%v, after:%s", err, s.trail.String())
			return
		}
	}
	key := s.key()
	if e.seen[key] {
		return
	}
	e.seen[key] = true
	if s.normal() == s.limit && s.inside() > s.limit {
		e.overLimit++
	}
	moves := s.moves()
	if len(moves) == 0 {
		if err := s.checkEnd(); err != nil {
			e.err = fmt.Errorf("%v, after:%s", err, s.trail.String())
			return
		}
		e.ends++
		return
	}
	for _, m := range moves {
		e.walk(append(path[:len(path):len(path)], m))
	}
}

// moves lists the steps each thread can take next, with their choices.
func (s *xsys) moves() []xmove {
	var ms []xmove
	for i, x := range s.ts {
		switch x.pc {
		case xStart:
			if x.round < s.rounds && !x.th.inside {
				ms = append(ms, xmove{i, 0}, xmove{i, 1}) // a context that cannot / can end
			} else {
				ms = append(ms, xmove{i, 0})
			}
		case xParked:
			if x.token {
				ms = append(ms, xmove{i, 0})
			}
			if x.cancellable {
				ms = append(ms, xmove{i, 1})
			}
		case xCancelDrain:
			if x.token {
				ms = append(ms, xmove{i, 0})
			}
		case xInside:
			ms = append(ms, xmove{i, 0}, xmove{i, 1}) // Exit, ForceExit
			if !x.waited {
				ms = append(ms, xmove{i, 2}) // WaitOutside
			}
		case xDone:
		default:
			ms = append(ms, xmove{i, 0})
		}
	}
	return ms
}

// step runs thread m.thread's next step and checks the invariants after it.
func (s *xsys) step(m xmove) error {
	s.now++
	x := s.ts[m.thread]
	c, th := s.c, x.th
	name := stepNames[x.pc][min(m.choice, len(stepNames[x.pc])-1)]
	if x.pc == xStart && x.round == s.rounds {
		name = "the final ForceExit (leave)"
	}
	fmt.Fprintf(&s.trail, "\n\tthread %d: %s", m.thread, name)
	switch x.pc {
	case xStart:
		if x.round == s.rounds { // the final ForceExit (a worker's defer)
			if !th.inside {
				x.pc = xDone
				break
			}
			x.then = xDone
			s.leave(x)
			break
		}
		x.cancellable = m.choice == 1
		if c.tryEnter(th) {
			x.pc = xInside
		} else {
			x.pc = xSlow
		}
	case xSlow:
		d, ok := c.enterSlow(th, s.now)
		if !ok {
			return fmt.Errorf("enterSlow refused thread %d", m.thread)
		}
		if d.Verdict == Admitted {
			x.pc = xInside
		} else {
			x.pc = xParked
		}
	case xParked:
		if m.choice == 0 { // the wake: strict handoff returns at once
			x.token = false
			if !th.inside {
				return fmt.Errorf("thread %d woken without a seat", m.thread)
			}
			x.pc = xInside
			break
		}
		r := c.Cancel(th, s.now)
		if th.inside {
			return fmt.Errorf("thread %d inside after Cancel (%v)", m.thread, r.Outcome)
		}
		x.forced = false
		switch {
		case r.Outcome == Withdrawn:
			s.endRound(x)
		default:
			x.pc, x.to = xCancelDrain, nil
			if r.Outcome == HandedOff || r.Outcome == Woken {
				x.to = r.To
			}
		}
	case xCancelDrain:
		x.token = false
		if x.to != nil {
			x.pc = xCancelWake
		} else {
			s.endRound(x)
		}
	case xCancelWake:
		if s.mutant != cancelWakeLost {
			if err := s.send(x.to); err != nil {
				return err
			}
		}
		s.endRound(x)
	case xInside:
		switch m.choice {
		case 0: // Exit: kept while tickets last
			x.then = xStart
			if !th.inside || th.tickets > 0 {
				s.endRound(x)
				break
			}
			s.leave(x)
		case 1: // ForceExit
			x.then = xStart
			if !th.inside {
				s.endRound(x)
				break
			}
			s.leave(x)
		case 2: // WaitOutside: ForceExit, the wait, ForceEnter
			x.waited = true
			x.then = xWaiting
			s.leave(x)
		}
	case xHandOff:
		r := c.handOff(s.now)
		if r.To != nil {
			x.pc, x.to = xWake, r.To
		} else {
			s.goOn(x)
		}
	case xWake:
		if s.mutant != handoffWakeLost {
			if err := s.send(x.to); err != nil {
				return err
			}
		}
		s.goOn(x)
	case xWaiting:
		c.ForceEnter(th, s.now)
		x.forced = th.inside
		x.pc = xInside
	}
	return s.check()
}

// leave is the driver's first step of a release: fastLeave, else leave,
// else handOff next.
func (s *xsys) leave(x *xThread) {
	x.forced = false
	if s.c.leave(x.th) {
		s.goOn(x)
		return
	}
	x.pc = xHandOff
}

// goOn continues after a release: into WaitOutside's wait, the next round,
// or the end.
func (s *xsys) goOn(x *xThread) {
	switch x.then {
	case xWaiting:
		x.pc = xWaiting
	case xDone:
		x.pc = xDone
	default:
		s.endRound(x)
	}
}

func (s *xsys) endRound(x *xThread) {
	if s.mutant == forcedEndsWithRound {
		x.forced = false
	}
	x.round++
	x.waited = false
	x.pc = xStart
}

func (s *xsys) send(to *Thread) error {
	for i, y := range s.ts {
		if y.th == to {
			if y.token {
				return fmt.Errorf("a second wake sent to thread %d", i)
			}
			y.token = true
			return nil
		}
	}
	return fmt.Errorf("a wake sent to an unknown thread")
}

// normal counts the threads on seats not forced; inside the seats in the
// state word.
func (s *xsys) normal() int {
	n := 0
	for _, x := range s.ts {
		if x.th.inside && !x.forced {
			n++
		}
	}
	return n
}

func (s *xsys) inside() int { return int(insideOf(s.c.state.Load())) }

func (s *xsys) check() error {
	w := s.c.state.Load()
	holders, queued := 0, 0
	for _, x := range s.ts {
		if x.th.inside || x.pc == xHandOff {
			holders++ // a thread between leave and handOff passes its seat on
		}
		if x.th.Queued() {
			queued++
		}
	}
	switch {
	case s.normal() > s.limit:
		return fmt.Errorf("%d threads on seats not forced, limit %d", s.normal(), s.limit)
	case int(insideOf(w)) != holders:
		return fmt.Errorf("state word counts %d seats, %d threads hold one", insideOf(w), holders)
	case int(waitersOf(w)) != queued:
		return fmt.Errorf("state word counts %d waiters, %d threads are queued", waitersOf(w), queued)
	case queued > 0 && int(insideOf(w)) < s.limit:
		return fmt.Errorf("a seat is free (%d of %d taken) while %d thread(s) wait", insideOf(w), s.limit, queued)
	}
	return nil
}

func (s *xsys) checkEnd() error {
	for i, x := range s.ts {
		if x.pc != xDone {
			return fmt.Errorf("thread %d waits forever (pc %d, queued %v, inside %v)", i, x.pc, x.th.Queued(), x.th.inside)
		}
	}
	st := s.c.Stats()
	if st.Inside != 0 || st.Waiting != 0 ||
		st.Enters+st.ForceEnters != st.Exits ||
		st.Waits != st.WaitsAdmitted+st.Canceled {
		return fmt.Errorf("at the end: %+v", st)
	}
	return nil
}

// key is the state, without the clock and the counters, which only grow:
// the state word's seats and waiters, the queues in order, and each thread.
func (s *xsys) key() string {
	w := s.c.state.Load()
	b := make([]byte, 0, 64)
	b = append(b, byte(insideOf(w)), byte(waitersOf(w)))
	for _, l := range []*waitList{&s.c.high, &s.c.low} {
		for t := l.head; t != nil; t = t.next {
			b = append(b, byte(s.index(t)))
		}
		b = append(b, 0xff)
	}
	for _, x := range s.ts {
		b = append(b, byte(x.pc), byte(x.round), byte(s.index(x.to)), byte(x.then), byte(x.th.tickets), byte(x.th.phase),
			flags(x.cancellable, x.waited, x.forced, x.token, x.th.inside, x.th.waiting))
	}
	return string(b)
}

func flags(bs ...bool) byte {
	var f byte
	for i, b := range bs {
		if b {
			f |= 1 << i
		}
	}
	return f
}

// index returns the number of t's explored thread, or 0xff for nil.
func (s *xsys) index(t *Thread) int {
	for i, x := range s.ts {
		if x.th == t {
			return i
		}
	}
	return 0xff
}

// stepNames names each step by where it starts and the choice taken.
var stepNames = [...][]string{
	xStart:       {"Enter (tryEnter), with a context that cannot end", "Enter (tryEnter), with a context that can end"},
	xSlow:        {"enterSlow"},
	xParked:      {"takes its wake", "its context ends (Cancel)"},
	xCancelDrain: {"takes the wake of the seat handed to it"},
	xCancelWake:  {"sends the wake its Cancel's release asks for"},
	xInside:      {"Exit (leave unless tickets are left)", "ForceExit (leave)", "WaitOutside: ForceExit (leave)"},
	xHandOff:     {"handOff"},
	xWake:        {"sends handOff's wake"},
	xWaiting:     {"WaitOutside: ForceEnter"},
}
