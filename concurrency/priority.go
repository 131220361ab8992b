package concurrency

import "github.com/innosim/innosim/prio"

// PriorityMode selects how Handoff orders its waiters. The zero value is FIFO.
// The classes follow MariaDB's thread pool (thread_pool_priority = high, low, auto):
// a high and a low queue, high served first, and a low waiter older than the
// kickup time moved to the high queue so that it cannot starve.
type PriorityMode uint8

const (
	// FIFO serves waiters in arrival order, one class, as srv0conc's queue.
	FIFO PriorityMode = iota
	// ByHint puts a thread whose Hint is above prio.Normal in the high class.
	ByHint
	// Auto puts a thread in the high class if its Hint is above prio.Normal or
	// it is inside a transaction (InTransaction), as MariaDB's "auto" mode.
	Auto
)

func (m PriorityMode) valid() bool { return m <= Auto }

// String returns "fifo", "hint" or "auto".
func (m PriorityMode) String() string {
	switch m {
	case FIFO:
		return "fifo"
	case ByHint:
		return "hint"
	case Auto:
		return "auto"
	}
	return "priority(?)"
}

// high reports whether t belongs to the high class under mode m.
func (m PriorityMode) high(t *Thread) bool {
	switch m {
	case ByHint:
		return t.Hint > prio.Normal
	case Auto:
		return t.Hint > prio.Normal || t.InTransaction
	}
	return false
}
