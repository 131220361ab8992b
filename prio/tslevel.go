package prio

// Solaris TS (time-sharing) class constants, from the illumos TS class (ts.c) and its
// default dispatcher table: user-mode priorities run 0..59, user priorities
// (ts_upri) run -60..60, and a thread entering the class starts at the middle of
// the table, CPU priority 29.
const (
	TSMaxLevel   = 59 // highest TS user-mode priority (ts_maxumdpri)
	tsMaxUpri    = 60 // ts_maxupri: the range of the user priority, ±60
	tsEntryLevel = 29 // ts_cpupri of a thread entering the TS class (ts_maxumdpri/2)
)

// TSLevel returns the Solaris TS user-mode priority (0..59, higher runs first) that
// a thread at hint h starts with in the TS class — the class study A's server ran
// in. It is derived from h.Nice() in the two steps Solaris itself takes:
//
//   - setpriority(2) stores a nice value as the user priority
//     ts_upri = -(ts_maxupri × nice) / 20, with ts_maxupri = 60, so each nice step
//     is 3 user-priority steps;
//   - the dispatcher level is ts_cpupri + ts_upri clamped to 0..59 (TS_NEWUMDPRI in
//     ts.c), and ts_cpupri starts at 29.
//
// So nice 0 → 29, Query (nice -5) → 44, Background (nice 10) → 0, and any nice ≤ -10 or
// ≥ 10 saturates at 59 or 0. This is the level at entry: afterwards the TS dispatch
// table moves ts_cpupri down as a thread uses whole quanta and up as it sleeps, which
// a simulator models separately. Pure: no system call.
func (h Hint) TSLevel() int {
	return tsLevelOfUpri(-(tsMaxUpri * h.Nice()) / 20)
}

// LegacyTSLevel returns the TS user-mode priority that MySQL 5.1's own priority for
// h lands on: LegacyPriority taken as the TS user priority ts_upri, added to the
// entry level 29. That a SCHED_OTHER pthread priority becomes ts_upri is an
// assumption — it is the mapping ACE's ACE_OS::sched_params makes for the TS class
// — not checked against Solaris libc. QUERY_PRIOR 6 → 35,
// WAIT_PRIOR 8 → 37, CONNECT_PRIOR 9 → 38, INTERRUPT_PRIOR 10 → 39. A hint MySQL had
// no priority for stays at 29. Pure: no system call.
func (h Hint) LegacyTSLevel() int {
	p, _ := h.LegacyPriority()
	return tsLevelOfUpri(p)
}

func tsLevelOfUpri(upri int) int {
	return min(max(tsEntryLevel+upri, 0), TSMaxLevel)
}
