package benchenv

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
)

// Unknown is the value of a key whose source is missing or unreadable.
const Unknown = "unknown"

// Keys of the fingerprint, in the order Collect emits them. VulnPrefix keys follow
// Mitigations, one per vulnerability, sorted by name.
const (
	KeyGOOS         = "goos"         // standard benchfmt key, runtime.GOOS
	KeyGOARCH       = "goarch"       // standard benchfmt key, runtime.GOARCH
	KeyCPU          = "cpu"          // standard benchfmt key, CPU model name
	KeyGoVersion    = "goversion"    // runtime.Version()
	KeyGOMAXPROCS   = "gomaxprocs"   // runtime.GOMAXPROCS(0)
	KeyCPUs         = "cpus"         // logical CPUs in /proc/cpuinfo
	KeyKernel       = "kernel"       // uname -r
	KeyCPUQuota     = "cpu-quota"    // cgroup CPU bandwidth limit, in CPUs
	KeyMitigations  = "mitigations"  // summary of the vulnerability files
	VulnPrefix      = "vuln-"        // prefix of the per-vulnerability keys
	KeyGOEXPERIMENT = "goexperiment" // GOEXPERIMENT of the binary
	KeyGODEBUG      = "godebug"      // default GODEBUG plus the environment's
)

// Line is one configuration line of the Go benchmark format: "Key: Value".
type Line struct {
	Key   string
	Value string
}

// String returns the line as the benchmark format writes it, without a newline.
func (l Line) String() string { return l.Key + ": " + l.Value }

// Fingerprint is the environment of a benchmark run as ordered configuration lines.
// The zero value is an empty fingerprint.
type Fingerprint []Line

// Get returns the value of key, or "" if the fingerprint has no such key.
func (f Fingerprint) Get(key string) string {
	for _, l := range f {
		if l.Key == key {
			return l.Value
		}
	}
	return ""
}

// WriteTo writes the fingerprint as configuration lines, one per line, followed by
// nothing else; it returns the bytes written and the first write error. Values are
// written on one line: any newline in a value is replaced by a space so that a
// reader cannot mistake its tail for another line.
func (f Fingerprint) WriteTo(w io.Writer) (int64, error) {
	var b strings.Builder
	for _, l := range f {
		b.WriteString(l.Key)
		b.WriteString(": ")
		b.WriteString(oneLine(l.Value))
		b.WriteByte('\n')
	}
	n, err := io.WriteString(w, b.String())
	if err != nil {
		return int64(n), fmt.Errorf("benchenv: write fingerprint: %w", err)
	}
	return int64(n), nil
}

// IsEnvironmentKey reports whether key describes the environment (the machine, the
// kernel, the Go toolchain and its settings) rather than the code under test or the
// user's own labels. Two result files whose environment keys differ must not be
// compared for a regression verdict. It covers every key Collect emits, the
// vuln- family and the standard goos, goarch and cpu; "pkg" is not one.
func IsEnvironmentKey(key string) bool {
	switch key {
	case KeyGOOS, KeyGOARCH, KeyCPU, KeyGoVersion, KeyGOMAXPROCS, KeyCPUs, KeyKernel,
		KeyCPUQuota, KeyMitigations, KeyGOEXPERIMENT, KeyGODEBUG:
		return true
	}
	return strings.HasPrefix(key, VulnPrefix)
}

// Collect takes the fingerprint from the files under fsys, which stands for the
// root directory (paths like "proc/cpuinfo"), and from rt. It never fails: a source
// it cannot read gives Unknown for its keys.
func Collect(fsys fs.FS, rt Runtime) Fingerprint {
	model, cpus := cpuInfo(fsys)
	f := Fingerprint{
		{KeyGOOS, orUnknown(rt.GOOS)},
		{KeyGOARCH, orUnknown(rt.GOARCH)},
		{KeyCPU, model},
		{KeyGoVersion, orUnknown(rt.GoVersion)},
		{KeyGOMAXPROCS, positiveOrUnknown(rt.GOMAXPROCS)},
		{KeyCPUs, cpus},
		{KeyKernel, kernelRelease(fsys)},
		{KeyCPUQuota, cpuQuota(fsys)},
	}
	f = append(f, mitigations(fsys)...)
	f = append(f,
		Line{KeyGOEXPERIMENT, orNone(rt.GOEXPERIMENT)},
		Line{KeyGODEBUG, orNone(rt.GODEBUG)},
	)
	return f
}

// Current returns the fingerprint of this process on this machine: Collect over
// os.DirFS("/") and CurrentRuntime().
func Current() Fingerprint {
	return Collect(os.DirFS("/"), CurrentRuntime())
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func orUnknown(s string) string {
	if s = oneLine(s); s == "" {
		return Unknown
	}
	return s
}

func orNone(s string) string {
	if s = oneLine(s); s == "" {
		return "none"
	}
	return s
}

func positiveOrUnknown(n int) string {
	if n <= 0 {
		return Unknown
	}
	return fmt.Sprint(n)
}
