package machine

// Event is a simulated event: InnoDB's os_event_t, as internal/futex.Event
// implements it for the real driver — a set flag, a signal count, and whether
// its thread is inside a wait. The zero value is a reset event with signal
// count 0. An Event costs nothing by itself: the driver that owns it charges
// what its changes imply (a FUTEX_WAKE when Set finds Waiting, a FUTEX_WAIT
// when a waiter is not Ready).
//
// A waiter takes the count from Reset, and later waits only if Ready(count)
// is false, so a Set between the Reset and the wait is never lost.
type Event struct {
	set     bool
	signals uint32
	// Waiting is set by the driver while the event's thread is registered as
	// a waiter (inside its wait, asleep or about to be) and cleared when it is
	// woken or finds the event Ready.
	Waiting bool
}

// Set sets the event, as os_event_set; it reports whether the event went from
// reset to set, which bumps its signal count. On an event already set it
// changes nothing and reports false.
func (e *Event) Set() bool {
	if e.set {
		return false
	}
	e.set = true
	e.signals++
	return true
}

// Reset clears the set flag and returns the signal count to pass to Ready,
// as os_event_reset.
func (e *Event) Reset() uint32 {
	e.set = false
	return e.signals
}

// IsSet reports whether the event is set.
func (e *Event) IsSet() bool { return e.set }

// Ready reports whether a wait with count (a Reset's result) returns at once:
// the event is set, or has been set since that Reset (os_event_wait_low's
// signal-count check).
func (e *Event) Ready(count uint32) bool { return e.set || e.signals != count }
