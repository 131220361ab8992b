package benchenv

import (
	"io/fs"
	"path"
	"strconv"
	"strings"
)

// cpuQuota returns the CPU bandwidth limit of this process's cgroup as "N cpus
// (QUOTA/PERIOD us)", "none" when no level of the hierarchy sets one, or Unknown
// when no cgroup CPU file can be read.
//
// The cgroup comes from proc/self/cgroup. cgroup v2 (line "0::PATH") is tried
// first: cpu.max holds "QUOTA PERIOD" or "max PERIOD". Then v1, the hierarchy
// whose controller list names "cpu": cpu.cfs_quota_us (-1 for none) over
// cpu.cfs_period_us. A limit set on any ancestor binds the process too, so the
// walk goes from the process's cgroup up to the root and keeps the smallest
// limit. Inside a cgroup namespace the path is "/" and only the root files count,
// which is what the container sees.
func cpuQuota(fsys fs.FS) string {
	data, err := fs.ReadFile(fsys, "proc/self/cgroup")
	if err != nil {
		return Unknown
	}
	var v2Path, v1Path string
	haveV2, haveV1 := false, false
	for _, line := range strings.Split(string(data), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[0] == "0" && parts[1] == "" {
			v2Path, haveV2 = parts[2], true
			continue
		}
		for _, c := range strings.Split(parts[1], ",") {
			if c == "cpu" {
				v1Path, haveV1 = parts[2], true
			}
		}
	}
	if haveV2 {
		if q, ok := walkLimit(fsys, "sys/fs/cgroup", v2Path, readCPUMax); ok {
			return q.String()
		}
	}
	if haveV1 {
		for _, mount := range []string{"sys/fs/cgroup/cpu,cpuacct", "sys/fs/cgroup/cpu", "sys/fs/cgroup/cpuacct,cpu"} {
			if q, ok := walkLimit(fsys, mount, v1Path, readCFS); ok {
				return q.String()
			}
		}
	}
	return Unknown
}

// limit is a CFS bandwidth limit: quota microseconds of CPU time per period
// microseconds. quota < 0 means no limit.
type limit struct{ quota, period int64 }

func (l limit) cpus() float64 { return float64(l.quota) / float64(l.period) }

// String formats the limit as the cpu-quota value: "none" or "N cpus (Q/P us)".
func (l limit) String() string {
	if l.quota < 0 {
		return "none"
	}
	return strconv.FormatFloat(l.cpus(), 'f', -1, 64) + " cpus (" +
		strconv.FormatInt(l.quota, 10) + "/" + strconv.FormatInt(l.period, 10) + " us)"
}

// walkLimit reads the limit of cgroup dir under mount and of each ancestor, and
// returns the tightest; ok is false when no level could be read.
func walkLimit(fsys fs.FS, mount, dir string, read func(fs.FS, string) (limit, bool)) (limit, bool) {
	best, found := limit{quota: -1, period: 1}, false
	dir = path.Clean("/" + dir)
	for {
		if l, ok := read(fsys, path.Join(mount, dir)); ok {
			found = true
			if l.quota >= 0 && (best.quota < 0 || l.cpus() < best.cpus()) {
				best = l
			}
		}
		if dir == "/" {
			return best, found
		}
		dir = path.Dir(dir)
	}
}

// readCPUMax reads a cgroup v2 cpu.max: "max PERIOD" or "QUOTA PERIOD".
func readCPUMax(fsys fs.FS, dir string) (limit, bool) {
	data, err := fs.ReadFile(fsys, path.Join(dir, "cpu.max"))
	if err != nil {
		return limit{}, false
	}
	f := strings.Fields(string(data))
	if len(f) != 2 {
		return limit{}, false
	}
	period, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil || period <= 0 {
		return limit{}, false
	}
	if f[0] == "max" {
		return limit{quota: -1, period: period}, true
	}
	quota, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil || quota <= 0 {
		return limit{}, false
	}
	return limit{quota: quota, period: period}, true
}

// readCFS reads cgroup v1 cpu.cfs_quota_us (-1 for none) and cpu.cfs_period_us.
func readCFS(fsys fs.FS, dir string) (limit, bool) {
	q, errQ := fs.ReadFile(fsys, path.Join(dir, "cpu.cfs_quota_us"))
	p, errP := fs.ReadFile(fsys, path.Join(dir, "cpu.cfs_period_us"))
	if errQ != nil || errP != nil {
		return limit{}, false
	}
	quota, errQ := strconv.ParseInt(strings.TrimSpace(string(q)), 10, 64)
	period, errP := strconv.ParseInt(strings.TrimSpace(string(p)), 10, 64)
	if errQ != nil || errP != nil || period <= 0 || quota == 0 || quota < -1 {
		return limit{}, false
	}
	return limit{quota: quota, period: period}, true
}
