package calibrate

import (
	"os"
	"runtime"
	"strconv"
	"strings"
)

// currentLoad returns the machine's 1-minute load average (the first field
// of /proc/loadavg, proc(5)) and runtime.NumCPU; Average is -1 when it
// cannot be read.
func currentLoad() Load {
	l := Load{Average: -1, CPUs: runtime.NumCPU()}
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return l
	}
	if f := strings.Fields(string(b)); len(f) > 0 {
		if v, err := strconv.ParseFloat(f[0], 64); err == nil {
			l.Average = v
		}
	}
	return l
}
