// Package study holds the four reference studies the simulator reproduces:
// each study's sweep of sim.Cell values, built from its own configuration
// (study_a_my.cnf and study_d_my.cnf, read through package mycnf), its
// published data (embedded CSV), the simulated table beside the published one,
// and the checks that give its verdict. One parameter set per study, no
// per-cell tuning; the same seed gives the same report, byte for byte, at any
// GOMAXPROCS.
//
// Which modelled effect produces each result:
//
//   - A (priorities): with priorities on, each statement pays two priocntl
//     calls (the few percent lost below the core count), and a thread back from
//     its client waits at the Wait level behind every thread in a statement, so
//     the statements in flight finish first. With priorities off the TS queue
//     is FIFO among equals: more statements are in flight at once, read views
//     copy more active transactions under kernel_mutex (read_view_open_now),
//     and the mutex's waiters, all woken on each release, pile onto one futex
//     bucket. The loss grows with threads and with cores. The study's machine
//     (a 2008 x86 server under Solaris) gets a spin round of 1 µs (ut_delay of
//     0..6 units of 50 PAUSEs) and a futex growth of 8; a read view costs 250 ns
//     per active transaction.
//   - B (the gate): the Queue gate takes kernel_mutex on every enter and exit,
//     the mutex the transaction start and commit also take; on 8 cores it
//     saturates, so limits 4, 8 and 16 plateau together, while limit 0 skips
//     the gate. The Atomic and Handoff cores take no mutex: no plateau.
//     innodb_thread_sleep_delay is not given by the study; the model uses 0.
//   - C (the environment): a connect cycle is 18 system calls (3 of them a
//     connection's setup and teardown: accept4, shutdown, close) and 5 context
//     switches around 26 µs of user CPU; the new-kernel profile makes every
//     kernel entry and switch a little dearer and the setup and teardown much
//     dearer, so once the cores are saturated connections/s fall by about a
//     quarter, while a CPU-bound workload, whose calls are reads and writes on
//     an open socket, loses a few percent.
//   - D (wake-all): each sibling prefetch wakes every handler (aio.WakeAll);
//     the woken handlers take their array's pthread mutex at once, and its
//     futex calls hold one bucket spinlock longer the more threads wait there,
//     so 34 handlers spin where 10 barely meet, and the inserting threads wait
//     on the read array's mutex behind them. aio.WakeTargeted wakes one handler
//     per request and the herd never forms. The cores (96) are not given by the
//     study.
//
// The convoys of A and the herd of D are bursty: each A cell runs two seeds of
// 200 ms and each D cell 500 ms of virtual time.
package study
