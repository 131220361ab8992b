//go:build !linux

package calibrate

import "time"

// nanosleep is the Linux system call sysmon sleeps with; elsewhere the runtime
// sleeps otherwise, and the probe is skipped (sysmon_tick keeps OldKernel's
// value).
func nanosleep(time.Duration) error { return errSkipped }
