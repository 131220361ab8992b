// Package concurrency models InnoDB's thread-concurrency admission
// (innodb_thread_concurrency): how many threads may be "inside" the engine at
// once, what a thread does when it finds no seat, and who gets a seat when one
// comes free.
//
// # Which API
//
// To bound concurrent work the way golang.org/x/sync/semaphore does, use
// Weighted: NewWeighted, Acquire, TryAcquire, Release, with x/sync's contract
// (a done context fails Acquire, waiters served in order, weights), on
// Handoff's lock-free fast path. Release always gives the weight back.
//
// The gates (Queue, Atomic, Semaphore, Handoff, Adaptive, Unlimited, all
// satisfying Gate) are InnoDB's protocol, and it is not acquire/release:
// Enter takes a seat and tickets with it, and Exit keeps the seat while the
// thread has tickets. With DefaultConfig's 5000 tickets, two goroutines that
// each Enter and Exit on a Thread of their own at limit 2 keep both seats,
// and a third waits forever. The
// release of a gate is ForceExit, and Statement runs a function between Enter
// and ForceExit; TryEnter is TryAcquire. Use a gate to model or run InnoDB's
// admission (tickets, sleeps, priorities, lock waits), not as a semaphore.
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
// connection, or request) by giving the seat back whatever the tickets —
// Statement does it, and so does ForceExit — as InnoDB does when a statement
// ends (innobase_srv_conc_force_exit_innodb from ha_innobase::external_lock).
// A Thread dropped while Inside() reports true takes its seat with it, and
// after Limit such threads every Enter waits forever:
//
//	t := &concurrency.Thread{}          // one per connection, never shared
//	err := concurrency.Statement(ctx, g, t, func() error {
//		return runStatement()           // per-row g.Enter/g.Exit spend tickets
//	})                                  // the seat is given back, whatever happened
//
// or, by hand: g.Enter(ctx, t), then defer g.ForceExit(t) — not Exit.
//
// A thread that waits for a lock while inside keeps its seat, and a lock holder
// that must enter to release the lock can then find the gate full of its own
// waiters (Percona's thread pool bug 1619559 has this shape). WaitOutside runs
// such a wait with the seat given back (ForceExit before, ForceEnter after, as
// lock_wait_suspend_thread does); Config.LockHolderAllowance lets a thread
// with HoldsLocks set in beyond the limit for callers that cannot wrap their
// waits.
//
// A Thread belongs to one goroutine at a time. Queue and Handoff refuse an
// Enter with a Thread another goroutine is waiting with (ErrThreadShared);
// built with -race or -tags innosim_checkthreads every gate checks every call.
// A Thread that holds one gate's seat is refused by every other gate
// (ErrThreadOfOtherGate) until it gives the seat back.
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
//	Semaphore  golang.org/x/sync/semaphore's Weighted counting the seats, what a
//	           Go programmer would pick: a seat is taken with x/sync's
//	           semantics (a done context fails), under the Gate protocol.
//	Handoff    ours: a lock-free CAS while a seat is free and nobody waits,
//	           parked waiters (no polling sleep), each exit handing its seat to
//	           exactly one waiter (or, with Config.Starvation, bounded barging),
//	           a high and a low class with MariaDB's kickup, a lock-holder
//	           allowance, and a limit that can change at run time.
//	Adaptive   Handoff with its limit found online by an AIMD controller from
//	           the time threads spend inside (Netflix concurrency-limits' idea).
//
// Study B (innosim reproduce b) is the reason for Handoff: with a short
// burst inside the engine, the 5.5 gate's mutex — taken on every enter and exit —
// became the bottleneck, and turning the check off was fastest. Atomic removed
// the mutex but replaced the handoff by sleeping and polling, which wastes a seat
// for up to a sleep delay whenever one comes free. Handoff keeps both good
// halves: no lock on the fast path, and no seat left empty while someone waits.
//
// # Handoff's three ways to pass a seat
//
// Strict handoff (Config.Starvation = 0, the zero Config's) serves waiters in order:
// no newcomer takes a seat while anyone waits, and an exit that finds waiters
// passes its seat on with one CAS under the mutex. Waits are short and ordered,
// but once the gate is full with more goroutines than cores every enter costs a
// park and a wake (a convoy, as for x/sync/semaphore and a buffered channel):
// each exit hands its seat to a waiter that is runnable but not yet running,
// and the exiting thread, entering again, must queue behind the rest.
//
// Bounded barging (Config.Starvation > 0; DefaultConfig sets DefaultStarvation,
// sync.Mutex's 1 ms, so this is the default) lets a freed
// seat go to whoever takes it first, so the thread that just left, entering
// again, takes it back without parking, and one waiter is woken to compete. The
// exit that wakes it then yields its P to it (runtime.Gosched, as a starving
// sync.Mutex's unlock yields to the waiter it hands the lock to), so the woken
// goroutine runs while its seat is still free instead of a whole scheduler
// slice later behind its waker. The unfairness is bounded where the seat
// changes hands: an exit that finds waiters reads the clock once, and once the
// longest waiter has waited Starvation (or, with priority classes, Kickup if
// shorter) the exit hands it its seat strictly and yields too — a waiter woken
// earlier whose goroutine the scheduler has not run yet gets the seat reserved
// (Release outcome Reserved). So no admitted wait exceeds the bound by more
// than the time to the next exit, whatever the Go scheduler does with a woken
// goroutine; what it cannot bound is a seat held by a goroutine preempted
// while inside, which no gate can take back.
//
// The lock-holder allowance (Config.LockHolderAllowance) is the third: a thread
// holding locks may enter past the queue and past the limit, by at most that
// many seats, so the limit is exceeded only by lock holders and only by the
// allowance.
//
// Strict handoff keeps waits short and ordered; bounded barging saves the
// park and wake per enter that strict handoff pays once the gate is full, and
// lets a few waits reach the bound. DefaultConfig selects bounded barging;
// Starvation 0 selects strict handoff. BenchmarkAdmission
// (policy=handoff-strict and policy=handoff-barging) measures both against
// the x/sync semaphore, a buffered channel and Unlimited; the measurements that made
// bounded barging the default are in the decision record
// docs/decisions/handoff-default-bounded-barging.md. The lock-holder
// allowance is looked at only on the slow path, by a lock holder that finds
// the gate full.
//
// Stats tells an operator why work waited: waits by
// class (WaitsHigh), Kickups, StarvationHandoffs, LockHolderBypasses, the
// wakes barging spent and lost (BargeWakes, BargeLosses), and the wait
// distribution (WaitTime, P50Wait, P99Wait, MaxWait); Stats.String prints
// them on one line.
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
// bug once fixed in x/sync/semaphore). Queue, Semaphore and Handoff never
// have more threads inside than the limit, except those let in by ForceEnter
// and, for Handoff, up to LockHolderAllowance threads holding locks. A seat
// taken by ForceEnter stays beyond the limit until it is given back, also
// through an Exit that keeps it on its ticket and the ticket enters after. The
// counters balance (see Stats).
package concurrency
