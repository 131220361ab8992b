package prio

import "fmt"

// Nice bounds on Linux (include/linux/sched/prio.h: MIN_NICE, MAX_NICE).
const (
	MinNice = -20 // most favoured nice value
	MaxNice = 19  // least favoured nice value
)

// hintNice is the Linux nice value of each hint, indexed by h-Idle. The ends follow
// RocksDB's port::SetCpuPriority (kHigh → -20, kNormal → 0, kLow → 19; kIdle is
// SCHED_IDLE, given the weakest nice here); the steps between are innosim's choice,
// five nice steps (about ×3 in CFS weight) apart so that each level visibly beats the
// one below it. Interrupt shares -20 with High: there is nothing above it. Wait
// shares 0 with Normal: a thread waiting for its client is asleep and competes for
// nothing, and a weaker nice would only delay its wake-up when the client's next
// query arrives — which is why MySQL's own Unix numbers put WAIT_PRIOR above
// QUERY_PRIOR (see LegacyPriority).
var hintNice = [...]int8{
	19,  // Idle
	19,  // Low
	10,  // Background
	0,   // Wait
	0,   // Normal
	-5,  // Query
	-10, // Connect
	-20, // High
	-20, // Interrupt
}

// Nice returns the Linux nice value (-20..19, lower is more favoured) that PolicyNice
// gives a thread at hint h; see the table in the package documentation. A
// hint outside Idle..Interrupt is clamped to the nearest level, so the result is
// always a valid nice value. Pure: no system call.
func (h Hint) Nice() int {
	switch {
	case h < Idle:
		h = Idle
	case h > Interrupt:
		h = Interrupt
	}
	return int(hintNice[h-Idle])
}

// Weight returns the CFS load weight of h.Nice(): 1024 for Normal, 3121 for Query,
// 110 for Background. The share of a CPU that CFS gives a runnable thread is its
// weight over the sum of the weights runnable on that CPU.
func (h Hint) Weight() int {
	w, _ := WeightOfNice(h.Nice()) // h.Nice() is always in range
	return w
}

// niceToWeight is the kernel's sched_prio_to_weight table (kernel/sched/core.c),
// indexed by nice+20. Nice 0 is 1024 and each step is about ×1.25, so a thread one
// nice level lower gets about 10% more CPU than one level higher when they compete.
var niceToWeight = [40]int32{
	88761, 71755, 56483, 46273, 36291, // -20 .. -16
	29154, 23254, 18705, 14949, 11916, // -15 .. -11
	9548, 7620, 6100, 4904, 3906, // -10 .. -6
	3121, 2501, 1991, 1586, 1277, // -5 .. -1
	1024, 820, 655, 526, 423, // 0 .. 4
	335, 272, 215, 172, 137, // 5 .. 9
	110, 87, 70, 56, 45, // 10 .. 14
	36, 29, 23, 18, 15, // 15 .. 19
}

// IdleWeight is the CFS weight of a SCHED_IDLE thread (WEIGHT_IDLEPRIO in
// kernel/sched/sched.h): below even nice 19's 15.
const IdleWeight = 3

// WeightOfNice returns the CFS load weight of a thread at the given nice value, from
// the kernel's 40-entry sched_prio_to_weight table (nice 0 = 1024, about ×1.25 per
// step). A nice outside -20..19 is an error wrapping ErrInvalidConfig.
func WeightOfNice(nice int) (int, error) {
	if nice < MinNice || nice > MaxNice {
		return 0, fmt.Errorf("prio: nice = %d, want %d..%d: %w", nice, MinNice, MaxNice, ErrInvalidConfig)
	}
	return int(niceToWeight[nice-MinNice]), nil
}
