// Package innosim models the scheduling mechanisms that decide how an InnoDB-style
// storage engine behaves on many cores: thread-concurrency admission (package
// concurrency), simulated asynchronous I/O with its handler threads and wake policy
// (package aio), per-thread priority hints (package prio), and a deterministic
// discrete-event simulator that drives the same policy code in virtual time
// (package sim).
//
// The root package holds no code of its own; its tests are the real-core benchmarks
// (go test -run '^$' -bench . .).
package innosim
