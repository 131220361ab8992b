package prio

// LegacyPriority returns the pthread scheduling priority MySQL 5.1 set for h on
// Unix-like systems (sql/mysql_priv.h: INTERRUPT_PRIOR 10, CONNECT_PRIOR 9,
// WAIT_PRIOR 8, QUERY_PRIOR 6), and false for a hint MySQL had no priority for
// (Idle, Low, Background, Normal, High). PolicyLegacy passes this value to
// sched_setparam for the thread's current class, as my_pthread_setprio did through
// pthread_setschedparam.
//
// Note the order: on Unix MySQL gave a thread waiting for its client (8) a higher
// number than one executing a query (6), the reverse of the Hint order; on Windows
// the values were -2, -1, 0 and 2. On Linux the order never mattered: SCHED_OTHER
// accepts only priority 0, so every such call fails with EINVAL.
func (h Hint) LegacyPriority() (int, bool) {
	switch h {
	case Query:
		return 6, true
	case Wait:
		return 8, true
	case Connect:
		return 9, true
	case Interrupt:
		return 10, true
	}
	return 0, false
}
