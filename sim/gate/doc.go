// Package gate is the simulator's driver of package concurrency's cores:
// innodb_thread_concurrency's gate. Install puts one on a machine; it runs
// OpGateEnter and OpGateExit by the core's decisions (Enter, ForceExit) and
// charges what the core cannot know: the gate's mutex under PolicyQueue (as
// srv_conc_enter_innodb and srv_conc_force_exit_innodb in MySQL 5.0 to 5.5),
// a compare-and-swap under PolicyAtomic, the sleeps the core asks for, and a
// futex wait and wake on each thread's private word when it queues or is
// handed a seat.
package gate
