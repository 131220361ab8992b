//go:build !unix

package innosim_test

import "time"

// processCPU reports false: no getrusage here.
func processCPU() (time.Duration, bool) { return 0, false }
