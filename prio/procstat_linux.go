//go:build linux

package prio

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
)

// StatNice reads thread tid's nice value from /proc/self/task/TID/stat (field 19,
// proc(5)), a second witness besides getpriority that the kernel holds the nice a
// policy set. It returns ErrNotSupported off Linux.
func StatNice(tid int) (int, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/self/task/%d/stat", tid))
	if err != nil {
		return 0, fmt.Errorf("prio: read stat of thread %d: %w", tid, err)
	}
	return parseStatNice(b)
}

// parseStatNice returns field 19 of a /proc/PID/stat line. Field 2, the command
// name, is in parentheses and may itself contain spaces and parentheses, so the
// fields are counted from the last ')': field 3 is the first after it.
func parseStatNice(b []byte) (int, error) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("prio: stat line without a command name: %q", b)
	}
	f := bytes.Fields(b[i+1:])
	const niceField = 19 - 3
	if len(f) <= niceField {
		return 0, fmt.Errorf("prio: stat line has %d fields after the name, want > %d", len(f), niceField)
	}
	n, err := strconv.Atoi(string(f[niceField]))
	if err != nil {
		return 0, fmt.Errorf("prio: stat nice field: %w", err)
	}
	return n, nil
}
