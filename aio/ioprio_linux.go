//go:build linux

package aio

// ioprioSupported says whether WithIOPriority can be honoured: Linux has
// ioprio_set(2) and the SQE ioprio field.
const ioprioSupported = true
