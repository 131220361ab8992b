package aiobench

import (
	"fmt"
	"time"

	"github.com/innosim/innosim/aio"
	"github.com/innosim/innosim/sim/engine"
	"github.com/innosim/innosim/sim/machine"
)

// submitterStage is how far a submitter has got in the benchmark's loop body.
type submitterStage uint8

const (
	bsLock      submitterStage = iota // route the next request and take its segment's mutex
	bsReserve                         // ReserveIn, with the mutex held
	bsUnlock                          // release the mutex
	bsWake                            // Set the events of the wake set, one FUTEX_WAKE at a time
	bsWait                            // wait for the completion: its event set, or a FUTEX_WAIT
	bsWaitCheck                       // in FUTEX_WAIT's entry: sleep unless the event was set meanwhile
	bsDone                            // its share done: asleep for good
)

// handlerStage is how far a handler has got in its cycle (aio.HandlerCycle's
// decisions, this driver's blocking).
type handlerStage uint8

const (
	bhLock         handlerStage = iota // take the segment's mutex
	bhPick                             // the cycle's Next, with the mutex held
	bhUnlockDo                         // release the mutex before the I/O
	bhDeliverDo                        // deliver the last batch's completions, then the I/O
	bhLock2                            // retake the mutex after the I/O
	bhComplete                         // the cycle's Complete, with the mutex held
	bhUnlockSleep                      // release the mutex before sleeping
	bhDeliverSleep                     // deliver the last batch's completions, then wait
	bhWait                             // wait for a wake: the event set, or a FUTEX_WAIT
	bhWaitCheck                        // in FUTEX_WAIT's entry: sleep unless the event was set meanwhile
)

// submitter is a submitting thread's state: the benchmark's loop body.
type submitter struct {
	stage   submitterStage
	j, i    int             // its number and its next request's index
	lockSeg int             // the segment its request lands in, whose mutex it takes
	req     aio.SlotRequest // its next request
	wake    aio.SegmentSet  // events still to set
}

// handler is a handler thread's state: its segment's cycle and the batches
// whose completions it delivers.
type handler struct {
	stage   handlerStage
	seg     int
	cycle   *aio.HandlerCycle // the decisions, as aio.Array's handlers make them
	sigSeen uint32            // its event's signal count at the last reset
	pending []int             // submitters of the last batch, to deliver
	batch   []int             // submitters of the batch in progress
}

// driver runs BenchmarkAIOWake's threads on a machine.Machine with the Go runtime
// layer (machine.GoRuntime): the machine's thread i < Segments is segment i's
// handler, thread Segments+j submitter j. Each segment's sync.Mutex is a
// machine mutex taken through GoRuntime.Lock, each futex.Event a machine.Event.
type driver struct {
	cfg  Config
	core *aio.Core
	m    *machine.Machine
	e    *engine.Engine
	g    *machine.GoRuntime

	hdl     []*handler      // by thread id < Segments
	sub     []*submitter    // by submitter number
	hev     []machine.Event // handler events by segment
	sev     []machine.Event // submitter completion events
	mu      []int32         // each segment's mutex, by segment
	slotSub []int           // submitter of the request in each slot

	ops, finished int
	tEnd, tLast   int64 // when the last submitter finished; when a request last completed
	hFutex, sFutx uint64
	err           error
}

// newDriver builds run seed's machine: CPUs OS CPUs and as many Ps, the
// handler threads first, then the submitters, each started on a CPU drawn
// from the seed.
func newDriver(cfg Config, core *aio.Core, seed uint64) (*driver, error) {
	m, err := machine.New(machine.Config{CPUs: cfg.CPUs, Scheduler: machine.CFS, Costs: cfg.Costs, Seed: seed})
	if err != nil {
		return nil, err
	}
	d := &driver{cfg: cfg, core: core, m: m, e: m.Engine()}
	if d.g, err = m.SetGoRuntime(cfg.CPUs, d.step); err != nil {
		return nil, err
	}
	segs := core.Segments()
	d.hev = make([]machine.Event, segs)
	d.sev = make([]machine.Event, cfg.Submitters)
	d.slotSub = make([]int, core.Slots())
	for s := range segs {
		d.mu = append(d.mu, m.AddMutex(machine.Mutex{Name: fmt.Sprintf("segment %d", s)}))
		d.hdl = append(d.hdl, &handler{stage: bhWait, seg: s, cycle: aio.NewHandlerCycle(core, s)})
	}
	for j := range cfg.Submitters {
		d.sub = append(d.sub, &submitter{j: j, stage: bsLock})
	}
	for range segs + cfg.Submitters {
		d.g.AddThread()
	}
	d.g.Start()
	return d, nil
}

func (d *driver) run() (Prediction, error) {
	for d.finished < d.cfg.Submitters && d.err == nil && d.e.Step() {
		if d.e.Now()-d.tLast > int64(stallLimit) {
			return Prediction{}, fmt.Errorf("aiobench: no request completed in %v of virtual time at %v (a model fault)",
				stallLimit, time.Duration(d.e.Now()))
		}
	}
	if d.err != nil {
		return Prediction{}, d.err
	}
	n := float64(d.ops)
	st, gs := d.core.Stats(), d.g.Stats()
	return Prediction{
		NsPerOp:             float64(d.tEnd) / n,
		WakeupsPerOp:        float64(st.Wakeups) / n,
		WastedPerOp:         float64(st.WastedWakeups) / n,
		FutexPerOp:          float64(d.hFutex) / n,
		SubmitterFutexPerOp: float64(d.sFutx) / n,
		HandoffsPerOp:       float64(gs.Handoffs) / n,
		RemoteWakesPerOp:    float64(gs.RemoteWakes) / n,
		LocalWakesPerOp:     float64(gs.LocalWakes) / n,
		SwitchesPerOp:       float64(gs.Switches) / n,
	}, nil
}

// clock is the virtual time, the clock the policy core is given.
func (d *driver) clock() time.Duration { return time.Duration(d.e.Now()) }

// setEvent is futex.Event.Set on ev by thread caller, whose waiter is thread
// owner. It reports whether the caller makes a FUTEX_WAKE call and how long it
// spends in it: no call if the event was set already or nobody waits; Wake's
// time if the call wakes the sleeping owner; Syscall if the owner has not gone
// to sleep yet (the kernel finds nobody to wake).
func (d *driver) setEvent(ev *machine.Event, owner, caller int32) (int64, bool) {
	if !ev.Set() {
		return 0, false
	}
	if !ev.Waiting {
		return 0, false
	}
	if d.g.Sleeping(owner) {
		ev.Waiting = false
		return d.g.Wake(owner, caller), true
	}
	return int64(d.cfg.Costs.Syscall), true
}

// step runs thread id from its stage until it takes time, spins or blocks.
func (d *driver) step(id int32) {
	// drawn at every step, used or not, so that the draws follow the events
	work := d.e.Jitter(aioCoreWork)
	if int(id) < len(d.hdl) {
		d.stepHandler(id, d.hdl[id], work)
		return
	}
	d.stepSubmitter(id, d.sub[int(id)-len(d.hdl)], work)
}

// stepSubmitter runs the benchmark's loop body for submitter s (thread id);
// work is the CPU of a core call with its segment's mutex, this step's draw.
func (d *driver) stepSubmitter(id int32, s *submitter, work int64) {
	sys := int64(d.cfg.Costs.Syscall)
	for {
		switch s.stage {
		case bsLock:
			off := offset(s.j, s.i, d.cfg.Handlers, d.cfg.Submitters)
			s.req = aio.SlotRequest{Op: aio.Read, Kind: aio.KindNormal, File: 1, Offset: off, Length: Page}
			var err error
			if s.lockSeg, err = d.core.Route(s.req); err != nil {
				d.err = fmt.Errorf("aiobench: submitter %d: %w", s.j, err)
				d.e.Stop()
				return
			}
			s.stage = bsReserve
			if !d.g.Lock(id, d.mu[s.lockSeg]) {
				return
			}
		case bsReserve:
			res, err := d.core.ReserveIn(s.lockSeg, s.req, d.clock())
			if err != nil { // one request per submitter: the segment is never full
				d.err = fmt.Errorf("aiobench: submitter %d: %w", s.j, err)
				d.e.Stop()
				return
			}
			d.slotSub[res.Slot] = s.j
			s.wake = res.Wake
			if d.cfg.Wake == aio.WakeDeferred {
				s.wake = s.wake.Union(d.core.FlushAll())
			}
			s.stage = bsUnlock
			d.g.Compute(id, work)
			return
		case bsUnlock:
			d.g.Unlock(d.mu[s.lockSeg])
			s.stage = bsWake
		case bsWake:
			seg := s.wake.Next(0)
			if seg < 0 {
				s.stage = bsWait
				continue
			}
			s.wake = withoutSeg(s.wake, seg)
			if c, ok := d.setEvent(&d.hev[seg], int32(seg), id); ok {
				d.hFutex++
				d.g.Syscall(id, c)
				return
			}
		case bsWait:
			ev := &d.sev[s.j]
			if ev.IsSet() {
				ev.Reset()
				s.stage = bsLock
				if d.opDone(s) {
					s.stage = bsDone
					d.g.Exit(id)
					return
				}
				continue
			}
			ev.Waiting = true
			d.sFutx++
			s.stage = bsWaitCheck
			d.g.Compute(id, sys)
			return
		case bsDone:
			return
		case bsWaitCheck:
			ev := &d.sev[s.j]
			s.stage = bsWait
			if ev.IsSet() {
				ev.Waiting = false
				continue
			}
			d.g.Sleep(id)
			return
		}
	}
}

// stepHandler runs handler h's cycle (thread id): aio.HandlerCycle's
// decisions, aio.Array's blocking; work is as for stepSubmitter.
func (d *driver) stepHandler(id int32, h *handler, work int64) {
	sys := int64(d.cfg.Costs.Syscall)
	for {
		switch h.stage {
		case bhLock:
			h.stage = bhPick
			if !d.g.Lock(id, d.mu[h.seg]) {
				return
			}
		case bhPick:
			// aio.Array.handle's decisions: Pick skipped with nothing waiting
			// and no wake to count (no core work then), reset on nothing found
			step := h.cycle.Next(d.clock, false)
			if step.Action == aio.HandlerIssue {
				h.batch = h.batch[:0]
				for _, s := range h.cycle.Batch().Slots {
					h.batch = append(h.batch, d.slotSub[s])
				}
				h.stage = bhUnlockDo
			} else {
				// nothing to pick: reset the event under the segment's lock
				// (remembering the signal count for the wait), unlock, sleep
				h.sigSeen = d.hev[h.seg].Reset()
				h.stage = bhUnlockSleep
			}
			if !step.Picked {
				continue
			}
			d.g.Compute(id, work)
			return
		case bhUnlockDo, bhUnlockSleep:
			d.g.Unlock(d.mu[h.seg])
			h.stage++ // to the matching deliver stage
		case bhDeliverDo, bhDeliverSleep:
			if len(h.pending) > 0 {
				j := h.pending[0]
				h.pending = h.pending[1:]
				if c, ok := d.setEvent(&d.sev[j], int32(len(d.hev)+j), id); ok {
					d.sFutx++
					d.g.Syscall(id, c)
					return
				}
				continue
			}
			if h.stage == bhDeliverDo {
				// the Latency backend at zero service time: no I/O
				h.pending = append(h.pending[:0], h.batch...)
				h.stage = bhLock2
			} else {
				h.stage = bhWait
			}
		case bhLock2:
			h.stage = bhComplete
			if !d.g.Lock(id, d.mu[h.seg]) {
				return
			}
		case bhComplete:
			h.cycle.Complete(0)
			h.stage = bhPick
			d.g.Compute(id, work)
			return
		case bhWait:
			ev := &d.hev[h.seg]
			if ev.Ready(h.sigSeen) {
				h.cycle.Woken()
				h.stage = bhLock
				continue
			}
			ev.Waiting = true
			d.hFutex++
			h.stage = bhWaitCheck
			d.g.Compute(id, sys)
			return
		case bhWaitCheck:
			ev := &d.hev[h.seg]
			h.stage = bhWait
			if ev.Ready(h.sigSeen) {
				ev.Waiting = false
				continue
			}
			d.g.Sleep(id)
			return
		}
	}
}

// opDone counts a completed request of submitter s; a submitter that has done
// its share stops (it never submits again and sleeps for good).
func (d *driver) opDone(s *submitter) bool {
	s.i++
	d.ops++
	d.tLast = d.e.Now()
	if s.i < d.share(s.j) {
		return false
	}
	d.finished++
	d.tEnd = d.e.Now()
	return true
}

// share is submitter j's part of Ops, as Split divides b.N.
func (d *driver) share(j int) int {
	n := d.cfg.Ops / d.cfg.Submitters
	if j < d.cfg.Ops%d.cfg.Submitters {
		n++
	}
	return n
}

// withoutSeg returns set minus seg.
func withoutSeg(set aio.SegmentSet, seg int) aio.SegmentSet {
	var out aio.SegmentSet
	for s := set.Next(0); s >= 0; s = set.Next(s + 1) {
		if s != seg {
			out.Add(s)
		}
	}
	return out
}
