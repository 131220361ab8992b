package sim

import (
	"fmt"
	"io"
	"strconv"
)

// WriteTo writes p in the file format LoadProfile reads: one "key = value" line
// per field, durations in time.Duration syntax, so that ParseProfile gives p back.
// It returns the bytes written and the first write error.
func (p CostProfile) WriteTo(w io.Writer) (int64, error) {
	lines := []struct{ k, v string }{
		{"name", p.Name},
		{"context_switch", p.ContextSwitch.String()},
		{"syscall", p.Syscall.String()},
		{"futex_hold", p.FutexHold.String()},
		{"futex_growth", strconv.FormatFloat(p.FutexGrowth, 'g', -1, 64)},
		{"spin_round", p.SpinRound.String()},
		{"io_service", p.IOService.String()},
		{"futex_wake_call", p.FutexWakeCall.String()},
		{"futex_wake", p.FutexWake.String()},
		{"thread_handoff", p.ThreadHandoff.String()},
		{"mutex_handoff", p.MutexHandoff.String()},
	}
	var total int64
	for _, l := range lines {
		n, err := fmt.Fprintf(w, "%s = %s\n", l.k, l.v)
		total += int64(n)
		if err != nil {
			return total, fmt.Errorf("sim: write cost profile: %w", err)
		}
	}
	return total, nil
}
