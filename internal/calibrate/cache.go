package calibrate

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// sysCacheDir is where Linux describes CPU 0's caches, one index* directory
// a cache (the kernel's Documentation/ABI/testing/sysfs-devices-system-cpu).
const sysCacheDir = "/sys/devices/system/cpu/cpu0/cache"

// readCaches returns the bytes of the level-2 cache and of the last-level
// (highest-level) data or unified cache described under dir, each 0 when dir
// has none (another OS, or a kernel without the cacheinfo files). A file it
// cannot read or parse leaves that cache out.
func readCaches(dir string) (l2, llc int64) {
	idx, _ := filepath.Glob(filepath.Join(dir, "index*"))
	top := 0
	for _, d := range idx {
		read := func(name string) string {
			b, err := os.ReadFile(filepath.Join(d, name))
			if err != nil {
				return ""
			}
			return strings.TrimSpace(string(b))
		}
		if t := read("type"); t != "Data" && t != "Unified" {
			continue
		}
		level, err := strconv.Atoi(read("level"))
		size := parseCacheSize(read("size"))
		if err != nil || size <= 0 {
			continue
		}
		if level == 2 {
			l2 = size
		}
		if level >= 2 && level >= top {
			top, llc = level, size
		}
	}
	return l2, llc
}

// parseCacheSize reads sysfs's size of a cache ("512K", "32768K", "1M"), or
// returns 0.
func parseCacheSize(s string) int64 {
	mult := int64(1)
	switch {
	case strings.HasSuffix(s, "K"):
		mult, s = 1<<10, strings.TrimSuffix(s, "K")
	case strings.HasSuffix(s, "M"):
		mult, s = 1<<20, strings.TrimSuffix(s, "M")
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return 0
	}
	return n * mult
}
