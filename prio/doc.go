// Package prio carries per-thread priority hints and decides whether, and how,
// they reach the operating system's scheduler.
//
// This file is a placeholder for the package documentation; see hint.go for the
// hint levels shared with the concurrency and aio packages.
package prio
