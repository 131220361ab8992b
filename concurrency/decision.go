package concurrency

import "time"

// Verdict is the answer of a core's Enter.
type Verdict uint8

const (
	// Admitted: the thread is inside (or, with limit 0, unchecked) and runs on.
	Admitted Verdict = iota
	// Sleep: the thread must sleep Decision.Sleep (which may be 0: yield) and then
	// call Enter again. It is counted as waiting until that call.
	Sleep
	// Queued: the thread is parked in the wait queue. It must block until a later
	// Exit, ForceExit, Cancel or SetLimit names it (Release.To or the returned
	// slice); it is then inside and must not call Enter again for this enter. If it
	// gives up first (context canceled), it calls Cancel.
	Queued
)

// String returns "admitted", "sleep" or "queued".
func (v Verdict) String() string {
	switch v {
	case Admitted:
		return "admitted"
	case Sleep:
		return "sleep"
	case Queued:
		return "queued"
	}
	return "verdict(?)"
}

// Decision is what a core's Enter tells the driver to do next.
type Decision struct {
	Verdict Verdict
	// Sleep is how long to sleep before calling Enter again (Verdict Sleep only).
	Sleep time.Duration
}

// Outcome says what happened to a seat when a thread exits or gives up.
type Outcome uint8

const (
	// None: nothing changed (the thread held no seat, or with limit 0 no seat was
	// counted).
	None Outcome = iota
	// Kept: the thread had tickets left and keeps its seat, as
	// innobase_srv_conc_exit_innodb with n_tickets_to_enter_innodb > 0.
	Kept
	// Freed: the seat is free; nobody was woken.
	Freed
	// HandedOff: the seat went straight to the waiter Release.To, who is now
	// inside; the caller must wake it.
	HandedOff
	// Withdrawn: a queued or sleeping thread left the wait without a seat
	// (Cancel).
	Withdrawn
	// Woken: the seat is free, and the waiter Release.To was taken off the
	// queue to compete for it (Handoff with Config.Starvation > 0); the caller
	// must wake it, and it calls Enter again.
	Woken
	// Reserved: the seat went to Release.To, a waiter already woken to compete
	// (an earlier Woken) that had not called Enter again and had waited
	// Config.Starvation or longer; it is now inside. The wake already on its
	// way is the only one: the caller must not wake it again, and when it runs
	// it finds itself inside, not Woken (Handoff with barging). A woken waiter
	// can also be given the free seat it was woken for while another thread
	// exits (Freed or Woken for that thread's seat); it then leaves the woken
	// set as silently, and Stats.StarvationHandoffs counts both.
	Reserved
)

// String returns the outcome's lower-case name.
func (o Outcome) String() string {
	switch o {
	case None:
		return "none"
	case Kept:
		return "kept"
	case Freed:
		return "freed"
	case HandedOff:
		return "handed-off"
	case Withdrawn:
		return "withdrawn"
	case Woken:
		return "woken"
	case Reserved:
		return "reserved"
	}
	return "outcome(?)"
}

// Release is what a core's Exit, ForceExit or Cancel did with the seat.
type Release struct {
	Outcome Outcome
	// To is the waiter that received the seat (Outcome HandedOff or Reserved)
	// or was woken to compete for it (Woken), else nil.
	To *Thread
}
