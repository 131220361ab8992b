//go:build !linux

package aio

// ioprioSupported says whether Config.IOPriority can be honoured: Linux only.
const ioprioSupported = false
