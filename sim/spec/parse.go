package spec

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// keys are a description file's keys, in the order Format writes them.
var keys = []string{
	"name", "sockets", "cores_per_socket", "threads_per_core", "l2_per_core", "l3_per_socket",
	"clock_ghz", "kernel", "pti", "hz",
	"sched_latency", "sched_min_granularity", "sched_wakeup_granularity", "sched_base_slice",
	"assumed",
}

// required are the keys every description gives.
var required = []string{"sockets", "cores_per_socket", "threads_per_core", "l2_per_core", "l3_per_socket", "kernel"}

// assumable lists the keys the assumed key may name.
func assumable() string {
	var out []string
	for _, k := range keys {
		if k != "name" && k != "assumed" {
			out = append(out, k)
		}
	}
	return strings.Join(out, ", ")
}

// maxFileSize bounds what Parse reads: a description is a few hundred bytes.
const maxFileSize = 64 << 10

// Load reads a machine description from the file at path (see Parse).
func Load(path string) (Machine, error) {
	f, err := os.Open(path)
	if err != nil {
		return Machine{}, fmt.Errorf("spec: %w", err)
	}
	defer f.Close()
	return Parse(f, path)
}

// Parse reads a machine description of "key = value" lines; blank lines and
// text from a '#' to the end of its line are ignored, so that each value can
// carry its source. name labels errors, which wrap ErrInvalidConfig and
// name the line, the key and what it wants. The keys:
//
//	name                      a label (optional)
//	sockets                   1..64
//	cores_per_socket          1..1024
//	threads_per_core          1..8 (2 with Hyper-Threading or SMT)
//	l2_per_core               bytes: 262144, 256KiB, 1MiB, 1.25MiB
//	l3_per_socket             bytes, 0 for none
//	clock_ghz                 base clock in GHz (optional)
//	kernel                    uname -r: 2.6.32, 6.8.0-60-generic
//	pti                       on or off (required from kernel 4.15)
//	hz                        CONFIG_HZ: 100, 250, 300 or 1000 (optional)
//	sched_latency             } the box's own fair-class tunables, scaled,
//	sched_min_granularity     } as durations (24ms, 750us); optional, see
//	sched_wakeup_granularity  } Machine
//	sched_base_slice          }
//	assumed                   comma-separated keys whose values are assumed
//
// The keys from sockets to kernel are required; a key given twice, an
// unknown key and a value out of range are errors, and so is a description
// that fails Machine.Validate. Sizes take the binary suffixes K, KiB, M,
// MiB, G, GiB (1K = 1024); KB, MB and GB are refused as ambiguous (spec
// sheets print MB for a cache of binary megabytes); the result must be a
// whole number of bytes.
func Parse(r io.Reader, name string) (Machine, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxFileSize+1))
	if err != nil {
		return Machine{}, fmt.Errorf("spec: %s: %w", name, err)
	}
	if len(data) > maxFileSize {
		return Machine{}, fmt.Errorf("spec: %s: longer than %d bytes, not a machine description: %w", name, maxFileSize, ErrInvalidConfig)
	}
	var m Machine
	seen := map[string]int{} // key → its line
	sc := bufio.NewScanner(bytes.NewReader(data))
	line := 0
	for sc.Scan() {
		line++
		s, _, _ := strings.Cut(sc.Text(), "#")
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		k, v, ok := strings.Cut(s, "=")
		if !ok {
			return Machine{}, fmt.Errorf("spec: %s:%d: %q, want key = value: %w", name, line, s, ErrInvalidConfig)
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !slices.Contains(keys, k) {
			return Machine{}, fmt.Errorf("spec: %s:%d: unknown key %q, want one of %s: %w", name, line, k, strings.Join(keys, ", "), ErrInvalidConfig)
		}
		if first, dup := seen[k]; dup {
			return Machine{}, fmt.Errorf("spec: %s:%d: %s given twice (first on line %d), want each key once: %w", name, line, k, first, ErrInvalidConfig)
		}
		seen[k] = line
		if err := m.set(k, v); err != nil {
			return Machine{}, fmt.Errorf("spec: %s:%d: %w", name, line, err)
		}
	}
	if err := sc.Err(); err != nil {
		return Machine{}, fmt.Errorf("spec: %s:%d: %w", name, line+1, err)
	}
	for _, k := range required {
		if _, ok := seen[k]; !ok {
			return Machine{}, fmt.Errorf("spec: %s: no %s given, want every one of %s: %w", name, k, strings.Join(required, ", "), ErrInvalidConfig)
		}
	}
	if err := m.Validate(); err != nil {
		var fe *FieldError
		if errors.As(err, &fe) && seen[fe.Key] > 0 {
			return Machine{}, fmt.Errorf("spec: %s:%d: %s: %w", name, seen[fe.Key], fe.Msg, ErrInvalidConfig)
		}
		return Machine{}, fmt.Errorf("spec: %s: %s: %w", name, strings.TrimPrefix(err.Error(), "spec: "), ErrInvalidConfig)
	}
	for _, k := range m.Assumed {
		if _, ok := seen[k]; !ok {
			return Machine{}, fmt.Errorf("spec: %s:%d: assumed names %s, which the file does not give: %w", name, seen["assumed"], k, ErrInvalidConfig)
		}
	}
	return m, nil
}

// set stores value v of key k, or returns an error naming both.
func (m *Machine) set(k, v string) error {
	bad := func(want string) error {
		return fmt.Errorf("%s = %q, want %s: %w", k, v, want, ErrInvalidConfig)
	}
	integer := func(dst *int, lo, hi int) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < lo || n > hi {
			return bad(fmt.Sprintf("a whole number in %d..%d", lo, hi))
		}
		*dst = n
		return nil
	}
	size := func(dst *int64, lo int64) error {
		n, err := parseSize(v)
		if err != nil {
			return bad(err.Error())
		}
		if n < lo || n > maxCache {
			return bad(fmt.Sprintf("a size in %d..%d bytes", lo, maxCache))
		}
		*dst = n
		return nil
	}
	duration := func(dst *time.Duration) error {
		d, err := time.ParseDuration(v)
		if err != nil || d < minTunable || d > maxTunable {
			return bad(fmt.Sprintf("a duration with its unit in %v..%v, such as 24ms", minTunable, maxTunable))
		}
		*dst = d
		return nil
	}
	switch k {
	case "name":
		if v == "" || strings.ContainsFunc(v, unicode.IsControl) {
			return bad("a non-empty name without control characters")
		}
		m.Name = v
	case "sockets":
		return integer(&m.Sockets, 1, maxSockets)
	case "cores_per_socket":
		return integer(&m.CoresPerSocket, 1, maxCores)
	case "threads_per_core":
		return integer(&m.ThreadsPerCore, 1, maxThreads)
	case "l2_per_core":
		return size(&m.L2PerCore, minCache)
	case "l3_per_socket":
		return size(&m.L3PerSocket, 0)
	case "clock_ghz":
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || !(f > 0 && f <= maxClock) {
			return bad("a clock in GHz in (0, 10]")
		}
		m.ClockGHz = f
	case "kernel":
		kv, err := ParseKernel(v)
		if err != nil {
			return bad("a release such as 2.6.32 or 6.8.0-60-generic")
		}
		m.Kernel = kv
	case "pti":
		switch v {
		case "on":
			m.PTI = On
		case "off":
			m.PTI = Off
		default:
			return bad("on or off")
		}
	case "hz":
		n, err := strconv.Atoi(v)
		if err != nil || !slices.Contains([]int{100, 250, 300, 1000}, n) {
			return bad("100, 250, 300 or 1000 (CONFIG_HZ)")
		}
		m.HZ = n
	case "sched_latency":
		return duration(&m.SchedLatency)
	case "sched_min_granularity":
		return duration(&m.SchedMinGranularity)
	case "sched_wakeup_granularity":
		return duration(&m.SchedWakeupGranularity)
	case "sched_base_slice":
		return duration(&m.SchedBaseSlice)
	case "assumed":
		for _, a := range strings.Split(v, ",") {
			m.Assumed = append(m.Assumed, strings.TrimSpace(a))
		}
	}
	return nil
}

// parseSize reads a size in bytes with an optional binary suffix.
func parseSize(s string) (int64, error) {
	want := errors.New("a size in bytes, or with a binary suffix K, KiB, M, MiB, G or GiB (256KiB, 27.5MiB)")
	num := strings.TrimRightFunc(s, unicode.IsLetter)
	unit := strings.TrimSpace(s[len(num):])
	num = strings.TrimSpace(num)
	mult := map[string]float64{"": 1, "B": 1, "K": 1 << 10, "KiB": 1 << 10, "M": 1 << 20, "MiB": 1 << 20, "G": 1 << 30, "GiB": 1 << 30}
	f, ok := mult[unit]
	if !ok {
		if slices.Contains([]string{"KB", "MB", "GB", "kB"}, unit) {
			return 0, fmt.Errorf("%s is ambiguous: write %siB for binary units (a cache's megabytes are binary)", unit, strings.ToUpper(unit[:1]))
		}
		return 0, want
	}
	x, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) || x < 0 || x > float64(maxCache)/f*2 {
		return 0, want
	}
	b := x * f
	if b != math.Trunc(b) {
		return 0, fmt.Errorf("a whole number of bytes (%s is %g bytes)", s, b)
	}
	return int64(b), nil
}
