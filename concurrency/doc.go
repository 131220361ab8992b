// Package concurrency models InnoDB's thread-concurrency admission
// (innodb_thread_concurrency): how many threads may be "inside" the engine at
// once, what a thread does when it finds no seat, and who gets a seat when one
// comes free.
//
// # The model
//
// A thread enters before it works in the engine and exits after. While fewer
// than the limit are inside it is admitted at once; otherwise it waits. Once
// admitted it gets tickets: that many further enters pass without touching the
// gate at all, and its exits keep the seat until the tickets are spent
// (innodb_concurrency_tickets; innobase_srv_conc_enter_innodb and
// innobase_srv_conc_exit_innodb in ha_innodb.cc). A thread about to block on a
// row lock gives its seat back whatever its tickets (ForceExit, as
// srv_conc_force_exit_innodb) and takes one back afterwards regardless of the
// limit (ForceEnter, as srv_conc_force_enter_innodb), so that lock waits cannot
// deadlock against the gate. MariaDB's thread pool does the same around waits
// with thd_wait_begin / thd_wait_end.
//
// The per-thread state is a Thread (tickets, inside, has slept, holds locks, in a
// transaction, priority hint), owned by its caller and reused, so no policy
// allocates per enter.
//
// Exit is not a release: with tickets left the thread keeps its seat, as InnoDB
// does between the rows of one statement. So a caller ends each statement (or
// connection, or request) with ForceExit, which gives the seat back whatever the
// tickets; a Thread dropped while Inside() reports true takes its seat with it,
// and after Limit such threads every Enter waits forever:
//
//	t := &concurrency.Thread{}          // one per connection
//	if err := g.Enter(ctx, t); err != nil {
//		return err
//	}
//	defer g.ForceExit(t)                // not Exit: that keeps the seat on a ticket
//
// # Policies
//
//	Unlimited  innodb_thread_concurrency = 0: no shared state touched.
//	Queue      MySQL 5.5: one mutex around counters and a FIFO of waiters, each
//	           parked on its own event; one sleep (innodb_thread_sleep_delay)
//	           before queueing if the thread holds no locks; the exiting thread
//	           hands its seat straight to the first waiter.
//	Atomic     MySQL 5.6–8.0: atomic counters, overbook-then-undo, and a sleep
//	           loop whose delay adapts (innodb_adaptive_max_sleep_delay); exit
//	           wakes nobody, so a free seat waits for a sleeper to wake up.
//	Semaphore  golang.org/x/sync/semaphore, what a Go programmer would pick.
//	Handoff    ours: a lock-free CAS while a seat is free and nobody waits,
//	           parked waiters (no polling sleep), each exit handing its seat to
//	           exactly one waiter, a high and a low class with MariaDB's kickup,
//	           and a limit that can change at run time.
//	Adaptive   Handoff with its limit found online by an AIMD controller from
//	           the time threads spend inside (Netflix concurrency-limits' idea).
//
// Study B (../shared/reference) is the reason for the last one: with a short
// burst inside the engine, the 5.5 gate's mutex — taken on every enter and exit —
// became the bottleneck, and turning the check off was fastest. Atomic removed
// the mutex but replaced the handoff by sleeping and polling, which wastes a seat
// for up to a sleep delay whenever one comes free. Handoff keeps both good
// halves: no lock on the fast path, and no seat left empty while someone waits.
//
// Handoff's strict FIFO has a price worth knowing: when a seat is handed to a
// waiter that is runnable but not yet running, the seat is idle until the
// scheduler runs it, and a newcomer that finds the queue non-empty must queue too.
// With many more threads than cores and the gate full, every enter then costs a
// park and a wake (a convoy), as it does for x/sync/semaphore and a buffered
// channel. Once formed, the convoy lasts: with 16 goroutines and 8 seats, each
// exit hands its seat on and its thread, entering again, finds 7 still queued.
// sync.Mutex avoids convoys by letting newcomers barge, trading away the
// fairness that an admission gate exists to give; Handoff keeps the fairness by
// default, and keeps the uncontended path lock-free. Config.Starvation turns
// barging on, with sync.Mutex's starvation mode as the bound on unfairness (see
// below for what each choice costs).
//
// What a wait costs is therefore what Handoff can improve. An exit that finds
// waiters does not free its seat and take it back: it passes it on with one CAS
// under the mutex (inside unchanged, one waiter fewer), and the mutex and queue
// heads share the state word's cache line, so a handoff moves one line between
// cores for them where it pulled several. On the 2-core development machine
// (BenchmarkAdmission, 16 goroutines, -count 5 medians, old and new builds
// interleaved) that took limit 2 from about 770 to 740 ns/op: 0.77–0.80 of
// x/sync/semaphore, whose own figure swings ±15% between runs, and 1.13–1.17 of
// a buffered channel, whose one lock per operation stays cheaper than Handoff's
// mutex plus its channel. Waiters that spin before parking were measured and
// rejected: at limit 2, 1, 2 or 8 rounds of runtime.Gosched before parking ran
// at 1.7, 1.5 and 2.0× the channel against 1.13× for parking at once (a yield
// costs a trip through the global run queue, more than the park it saves), and
// polling the wake channel 20 times changed nothing measurable; at limit 8
// neither moved the figure. The seat holders need the two CPUs more than the
// spinners do. At limit 8 Handoff stays 1.2–1.4× Unlimited, as
// the channel does, against 1.05–1.12× for Queue, whose refused threads
// sleep out of the way for a whole sleep delay; but the 99th percentile wait is
// 8–32 µs for Handoff against 32–131 ms for Queue.
//
// Barging (Config.Starvation, 1 ms in BenchmarkAdmissionBarging) is the other
// side of that trade. An exit frees its seat and the exiting thread, entering
// again, takes it back without parking; the woken waiter runs when the
// scheduler gets to it, finds the seat taken and parks again, so the park and
// wake per enter are gone. On the same machine (-count 5 medians, one run):
// limit 8, 16 goroutines, 503 ns/op against Unlimited's 493 (strict Handoff
// 704, Queue 550); limit 2, 508 ns/op against x/sync/semaphore's 1022 and the
// channel's 680 (strict Handoff 838). The price is the wait: a parked thread
// waits for its goroutine to be scheduled, up to a time slice, so the 99th
// percentile wait is 33–131 ms, Queue's, and starvation mode turns strict
// handoff on whenever a waiter that lost had waited 1 ms.
//
// # Cores and drivers
//
// Each policy but Unlimited and Semaphore is written once as a Core: a
// deterministic type that takes "thread t asks to enter at time now" and answers
// admitted / sleep d and ask again / queued, and takes "t exits" and answers
// kept / freed / handed to waiter w. A core never blocks, sleeps, reads a clock
// or starts a goroutine; its counters (Stats) are the ones both drivers report.
// The real drivers here (Queue, Atomic, Handoff, all satisfying Gate) add only
// the blocking: Queue the mutex that is the legacy gate and a channel per
// waiter; Atomic the sleeping; Handoff the parking and waking. Package sim drives
// the same cores in virtual time, charging each lock, sleep and wake from a cost
// model, so the simulator cannot disagree with the library about what happens.
//
// # Invariants
//
// Every Enter that returns nil is matched by the seat's release; a canceled wait
// returns the context's error and holds no seat; a seat handed to a waiter whose
// context ended at the same moment is passed on, never dropped (the shape of a
// bug once fixed in x/sync/semaphore). Queue and Handoff never have more threads
// inside than the limit, except those let in by ForceEnter. The counters balance
// (see Stats).
package concurrency
