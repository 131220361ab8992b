//go:build !linux

package aio

// ioprioSupported says whether WithIOPriority can be honoured: Linux only.
const ioprioSupported = false
