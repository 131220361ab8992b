//go:build !linux

package calibrate

import "runtime"

// currentLoad returns no load average (Average -1): only Linux's
// /proc/loadavg is read.
func currentLoad() Load { return Load{Average: -1, CPUs: runtime.NumCPU()} }
