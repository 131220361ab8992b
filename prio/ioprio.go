package prio

import (
	"fmt"
	"strconv"
)

// IOClass is a Linux I/O scheduling class (ioprio_set(2), include/uapi/linux/ioprio.h).
type IOClass uint8

// I/O scheduling classes.
const (
	// IOClassNone is no class of the thread's or request's own: the block
	// layer uses the issuing thread's, which without ioprio_set is best
	// effort at level (nice + 20) / 5 (task_nice_ioprio), 4 at nice 0.
	IOClassNone IOClass = 0
	// IOClassRT is served before every other class. Setting it needs
	// CAP_SYS_ADMIN or CAP_SYS_NICE (ioprio_check_cap); Hint.IOPrio never
	// gives it.
	IOClassRT IOClass = 1
	// IOClassBE is best effort, levels 0 (most favoured) to 7.
	IOClassBE IOClass = 2
	// IOClassIdle is served only when no other class has I/O waiting (by
	// the schedulers that honour classes: see IOPrio).
	IOClassIdle IOClass = 3
)

// IOPrio is a Linux I/O priority as ioprio_set(2) and an io_uring SQE's
// ioprio field take it: the class in the top 3 of 16 bits, the level below
// (IOPRIO_PRIO_VALUE). The zero value is IOClassNone: no priority of its own.
//
// What the device sees depends on the block device's I/O scheduler
// (/sys/block/<dev>/queue/scheduler), and only while requests wait in it,
// that is while more are in flight than the device's queue takes
// (/sys/block/<dev>/mq/*/nr_tags); below that every request goes straight to
// the device whatever its priority:
//
//	none         ignores it: requests reach the driver in the order they come
//	             (a device with ATA NCQ or SCSI command-duration-limit
//	             priorities may turn IOClassRT into a high-priority command)
//	mq-deadline  the class only (Linux 5.14 and later): one queue per class,
//	             and a lower class is dispatched only while no higher class
//	             has a request waiting, unless one has waited longer than
//	             iosched/prio_aging_expire (10 s by default); levels are
//	             ignored. Reads go before writes within a class anyway.
//	bfq          class and level: RT before BE before IDLE (IDLE served only
//	             when the others have nothing waiting), and a BE level as a
//	             weight of (8 − level) × 10 (bfq_ioprio_to_weight); it keeps
//	             one queue per issuing thread and takes that thread's
//	             priority (ioprio_set), so a per-request priority may not
//	             reach it, depending on the kernel release
//	kyber        ignores it: it throttles reads, synchronous writes and other
//	             requests against latency targets, by kind alone
//
// Buffered writes only fill the page cache; the device gets them later from
// the kernel's writeback threads, which do not carry the writer's priority.
// Reads, O_DIRECT writes and the writeback an fsync starts carry it.
type IOPrio uint16

// MakeIOPrio returns class and level as an IOPrio. The level must be 0..7 for
// IOClassRT and IOClassBE and 0 for IOClassNone and IOClassIdle; anything
// else is an error wrapping ErrInvalidConfig.
func MakeIOPrio(class IOClass, level int) (IOPrio, error) {
	switch class {
	case IOClassRT, IOClassBE:
		if level < 0 || level > 7 {
			return 0, fmt.Errorf("prio: I/O level = %d for class %s, want 0..7: %w", level, class, ErrInvalidConfig)
		}
	case IOClassNone, IOClassIdle:
		if level != 0 {
			return 0, fmt.Errorf("prio: I/O level = %d for class %s, want 0: %w", level, class, ErrInvalidConfig)
		}
	default:
		return 0, fmt.Errorf("prio: I/O class = %d, want none, rt, be or idle: %w", class, ErrInvalidConfig)
	}
	return IOPrio(uint16(class)<<13 | uint16(level)), nil
}

// Class returns p's class.
func (p IOPrio) Class() IOClass { return IOClass(p >> 13) }

// Level returns p's level within its class (0 for none and idle).
func (p IOPrio) Level() int { return int(p & 0x1fff) }

// String returns "none", "idle", or the class and level as "be/7".
func (p IOPrio) String() string {
	switch c := p.Class(); c {
	case IOClassNone, IOClassIdle:
		if p.Level() == 0 {
			return c.String()
		}
	}
	return p.Class().String() + "/" + strconv.Itoa(p.Level())
}

// String returns "none", "rt", "be" or "idle".
func (c IOClass) String() string {
	switch c {
	case IOClassNone:
		return "none"
	case IOClassRT:
		return "rt"
	case IOClassBE:
		return "be"
	case IOClassIdle:
		return "idle"
	}
	return "class(" + strconv.Itoa(int(c)) + ")"
}

// hintIOPrio is the I/O priority of each hint, indexed by h-Idle. Idle and
// Low are the idle class, as RocksDB's Env::LowerThreadPoolIOPriority puts
// its low-priority (compaction) threads; Background is the lowest best-effort
// level, so that an engine's flushing and read-ahead yield under bfq without
// being starved under mq-deadline; Wait and Normal have none, so nothing
// changes for them; more urgent hints take the higher best-effort levels
// (never the realtime class, which needs privileges and can starve the
// rest of the machine).
var hintIOPrio = [...]IOPrio{
	IOPrio(IOClassIdle) << 13, // Idle
	IOPrio(IOClassIdle) << 13, // Low
	IOPrio(IOClassBE)<<13 | 7, // Background
	0,                         // Wait
	0,                         // Normal
	IOPrio(IOClassBE)<<13 | 3, // Query
	IOPrio(IOClassBE)<<13 | 2, // Connect
	IOPrio(IOClassBE) << 13,   // High: level 0
	IOPrio(IOClassBE) << 13,   // Interrupt: level 0
}

// IOPrio returns the I/O priority a request or a thread at hint h is given:
//
//	hint        I/O priority
//	Idle        idle
//	Low         idle
//	Background  be/7
//	Wait        none
//	Normal      none
//	Query       be/3
//	Connect     be/2
//	High        be/0
//	Interrupt   be/0
//
// (be/4 is what a thread at nice 0 has without one.) A hint outside
// Idle..Interrupt is clamped to the nearest level. Pure: no system call.
func (h Hint) IOPrio() IOPrio {
	switch {
	case h < Idle:
		h = Idle
	case h > Interrupt:
		h = Interrupt
	}
	return hintIOPrio[h-Idle]
}
