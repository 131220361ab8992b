// Package innosim models the scheduling mechanisms that decide how an InnoDB-style
// storage engine behaves on many cores: thread-concurrency admission (package
// concurrency), simulated asynchronous I/O with its handler threads and wake policy
// (package aio), per-thread priority hints (package prio), and a deterministic
// discrete-event simulator that drives the same policy code in virtual time
// (package sim). Package mycnf reads MySQL option files into their configs, and
// cmd/innosim reproduces, validates and runs simulations from the command line.
//
// Each mechanism is a policy core that never does I/O, driven both by the
// package's real driver and by the simulator, so a simulated figure and a
// benchmark on real cores are two views of one code path. docs/design.md
// describes the simulator's layers and the source each mechanism follows.
//
// The root package holds no code of its own; its tests are the real-core
// benchmarks, one file per mechanism (go test -run '^$' -bench . .). Each
// prints the environment it ran in as benchmark configuration lines, so that
// benchstat and innosim compare keep runs from different machines apart.
package innosim
