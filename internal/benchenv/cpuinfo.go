package benchenv

import (
	"io/fs"
	"strconv"
	"strings"
)

// cpuInfo reads proc/cpuinfo and returns the CPU model name and the number of
// logical CPUs it lists, each Unknown when absent. The model is the first "model
// name" field (x86), else "Model" or "cpu model" (arm64, mips), which is what go
// test's own cpu line shows on Linux.
func cpuInfo(fsys fs.FS) (model, count string) {
	data, err := fs.ReadFile(fsys, "proc/cpuinfo")
	if err != nil {
		return Unknown, Unknown
	}
	var n int
	fields := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		key, val, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		if key == "processor" {
			if _, err := strconv.Atoi(val); err == nil {
				n++
			}
			continue
		}
		if _, seen := fields[key]; !seen {
			fields[key] = val
		}
	}
	model = Unknown
	for _, k := range []string{"model name", "Model", "cpu model"} {
		if v := oneLine(fields[k]); v != "" {
			model = v
			break
		}
	}
	count = Unknown
	if n > 0 {
		count = strconv.Itoa(n)
	}
	return model, count
}
