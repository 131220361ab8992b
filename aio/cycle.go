package aio

import "time"

// HandlerCycle is the decisions of one segment's handler thread, written once
// for every driver: Array's handler goroutines and the simulator's handler
// threads step the same cycle and do only the blocking (the segment lock, the
// event, the I/O, the delivery of completions) themselves. It is the loop of
// fil_aio_wait → os_aio_simulated_handle, in the shape of raft's Ready/Advance:
//
//	wait for the first wake; c.Woken()
//	lock
//	for {
//		switch c.Next(clock, closed).Action {
//		case HandlerIssue: // c.Batch() was picked
//			unlock; deliver the last batch; do the I/O; lock; c.Complete(failed)
//		case HandlerSleep:
//			reset the event; unlock; deliver; wait; c.Woken(); lock
//		case HandlerExit:
//			unlock; deliver; return
//		}
//	}
//
// Next, Batch and Complete are called with the segment's lock held; Woken
// after the wait, before the lock is taken again. A HandlerCycle is not safe
// for concurrent use: it belongs to its handler thread.
type HandlerCycle struct {
	core  *Core
	seg   int
	woken bool
	batch Batch
	// Observe, if not nil, is called with each Core call the cycle makes,
	// after the call, on the handler thread and under the segment's lock: a
	// trace of the cycle for tests and diagnostics. The call's Slots are the
	// core's and valid only during Observe.
	Observe func(CycleCall)
}

// NewHandlerCycle returns the cycle of global segment seg's handler on core,
// before its first wake. It panics if seg is not a segment of core (a driver
// bug).
func NewHandlerCycle(core *Core, seg int) *HandlerCycle {
	if seg < 0 || seg >= core.Segments() {
		panic("aio: NewHandlerCycle: segment out of range")
	}
	return &HandlerCycle{core: core, seg: seg}
}

// HandlerAction is what a handler does after HandlerCycle.Next.
type HandlerAction uint8

const (
	// HandlerIssue: Next picked a batch (HandlerCycle.Batch). Release the
	// lock, deliver the last batch's completions, do the I/O, take the lock
	// and call Complete.
	HandlerIssue HandlerAction = iota
	// HandlerSleep: nothing to do. Reset the segment's event (under the lock:
	// a submitter reserves under the same lock and sets the event after, so
	// its Set lands after the Reset and the Wait sees it), release the lock,
	// deliver, wait on the event with the count the Reset returned, call
	// Woken, take the lock and call Next.
	HandlerSleep
	// HandlerExit: the segment's array is closed and nothing waits in the
	// segment. Release the lock, deliver, and end the thread.
	HandlerExit
)

// HandlerStep is HandlerCycle.Next's decision.
type HandlerStep struct {
	Action HandlerAction
	// Picked reports whether Next called the core's Pick. It skips the call
	// when no request waits and no wake is to be counted: Pick would return
	// nothing and change nothing (the common case right after Complete). A
	// driver that charges the cost of the core call (the simulator) charges
	// it only when Picked.
	Picked bool
}

// Woken records that the handler's wait on its event returned: the next Pick
// counts a wakeup (Stats.Wakeups, and Stats.WastedWakeups if it finds
// nothing).
func (c *HandlerCycle) Woken() { c.woken = true }

// Next decides what the handler does, with its segment's lock held: it picks
// the next batch (Core.Pick at clock(), read only when more than one request
// waits: with one, it is picked however old it is), or tells the handler to
// sleep, or, when closed reports the segment's array closed and nothing
// waits, to exit. A wake while closed is not counted.
func (c *HandlerCycle) Next(clock func() time.Duration, closed bool) HandlerStep {
	var step HandlerStep
	ok := false
	if waiting := c.core.Waiting(c.seg); waiting > 0 || c.woken {
		var now time.Duration
		if waiting > 1 {
			now = clock()
		}
		counted := c.woken && !closed
		ok = c.core.pick(&c.batch, c.seg, now, counted)
		step.Picked = true
		if c.Observe != nil {
			call := CycleCall{Op: CyclePick, Segment: c.seg, Counted: counted}
			if ok {
				call.Slots = c.batch.Slots
			}
			c.Observe(call)
		}
	}
	c.woken = false
	switch {
	case ok:
		step.Action = HandlerIssue
	case closed && c.core.Waiting(c.seg) == 0:
		step.Action = HandlerExit
	default:
		step.Action = HandlerSleep
	}
	return step
}

// Batch returns the batch the last Next picked (HandlerIssue), valid until
// Complete.
func (c *HandlerCycle) Batch() *Batch { return &c.batch }

// Complete ends the batch in progress with failed of its requests failed
// (Core.Complete), with the segment's lock held; the handler then calls Next
// without sleeping.
func (c *HandlerCycle) Complete(failed int) {
	c.core.Complete(c.seg, failed)
	if c.Observe != nil {
		c.Observe(CycleCall{Op: CycleComplete, Segment: c.seg, Failed: failed})
	}
}

// CycleOp names a Core call of a handler's cycle.
type CycleOp uint8

const (
	CyclePick     CycleOp = iota // Core.Pick
	CycleComplete                // Core.Complete
)

// String returns "pick" or "complete".
func (o CycleOp) String() string {
	if o == CycleComplete {
		return "complete"
	}
	return "pick"
}

// CycleCall is one Core call of a handler's cycle, as HandlerCycle.Observe
// sees it.
type CycleCall struct {
	Op      CycleOp
	Segment int
	// Counted is Pick's woken argument: whether the call counted a wakeup.
	Counted bool
	// Slots are the slots Pick returned in file order (nil if it found
	// nothing); the core's slice, valid only during Observe.
	Slots []int
	// Failed is Complete's count of failed requests.
	Failed int
}

// cycleObserver is implemented by a Backend that wants each handler cycle's
// Core calls (see HandlerCycle.Observe): Array installs its ObserveCycle as
// every handler's Observe. It is called on the handler threads, under their
// segment locks, so it must be safe for concurrent use by different segments.
type cycleObserver interface {
	ObserveCycle(CycleCall)
}
