package machine

import "github.com/innosim/innosim/prio"

// Thread states, as the scheduler sees them.
const (
	stBlocked uint8 = iota
	stRunnable
	stRunning
)

// opStage is how far a thread has got in its current op. The interpreter
// (advance) starts an op at opStart; an op that takes time (a burst, a sleep, a
// system call) moves to opCharged before it stops, and the interpreter, called
// again when that time is over, finishes it and moves to the next op.
type opStage uint8

const (
	opStart   opStage = iota
	opCharged         // the op's time was charged: finish it
	opWaiting         // blocked on the device (OpRead, OpWrite, OpFsync): finish when woken
)

// thread is what the machine keeps for one simulated thread: the scheduler's
// state, the interpreter's position in its program, and its state in the
// synchronisation room (syncThread: the mutex or futex call in progress). A driver that runs a thread through several steps of its
// own (the gate's enter and exit, an AIO handler's cycle, a prefetch) keeps
// that state in its own type, indexed by thread id.
type thread struct {
	prog  []Op
	pc    int32
	step  opStage
	state uint8
	core  int32
	gen   uint32

	rem   int64 // ns of the current burst left
	cs    int64 // ns of context switch left before the burst continues
	start int64 // when the current run segment (or kernel spin) began
	cat   Cat
	// rqSpin and rqHold are ns of run-queue lock spin and hold (rqlock.go)
	// still to run before the burst; last is the core it last ran on.
	rqSpin int64
	rqHold int64
	last   int32
	// foot is the bytes of the thread's own state beyond the profile's
	// SwitchFootprint that a switch to it refills (ClientConfig's
	// ServerFootprint and ClientFootprint; 0 for every other thread).
	foot int64

	sy syncThread // its mutex, futex and wait-array state (sync.go)

	hint   prio.Hint
	cpupri int   // TS CPU priority 0..59
	qleft  int64 // TS quantum left, ns
	vr     int64 // CFS virtual runtime, ns
	weight int64 // CFS weight
	slEnd  int64 // CFS slice end
	enqKey int64
	enqAt  int64
	// rqNext and rqPrev link a TS thread into its priority's run queue,
	// ageNext and agePrev into the queue's threads below ts_lwait
	// (runQueue).
	rqNext, rqPrev, ageNext, agePrev int32

	units uint64 // OpDone units this thread completed
	// trxAt is 1 + the socket its active transaction began on, 0 when it
	// has none (readview.go).
	trxAt int32

	// set is the thread's set of cores; qi its index in its set's run queue
	// while runnable, -1 otherwise; buddyOf the core whose last buddy it
	// is, or -1; lag its lag when it last went to sleep (EEVDF's
	// PLACE_LAG: the set's least virtual runtime less its own).
	set     CoreSet
	qi      int32
	buddyOf int32
	lag     int64
}
