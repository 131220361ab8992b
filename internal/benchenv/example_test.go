package benchenv_test

import (
	"os"
	"testing/fstest"

	"github.com/innosim/innosim/internal/benchenv"
)

// Print the fingerprint of a machine described by a few files. A real run uses
// benchenv.Current().WriteTo(os.Stdout) before the benchmark results.
func Example() {
	machine := fstest.MapFS{
		"proc/cpuinfo":              {Data: []byte("processor\t: 0\nmodel name\t: AMD EPYC\n")},
		"proc/sys/kernel/osrelease": {Data: []byte("6.18.44\n")},
		"proc/self/cgroup":          {Data: []byte("0::/\n")},
		"sys/fs/cgroup/cpu.max":     {Data: []byte("200000 100000\n")},
		"sys/devices/system/cpu/vulnerabilities/spectre_v2": {Data: []byte("Mitigation: Retpolines\n")},
	}
	rt := benchenv.Runtime{GoVersion: "go1.26.8", GOOS: "linux", GOARCH: "amd64", GOMAXPROCS: 1}
	_, _ = benchenv.Collect(machine, rt).WriteTo(os.Stdout)
	// Output:
	// goos: linux
	// goarch: amd64
	// cpu: AMD EPYC
	// goversion: go1.26.8
	// gomaxprocs: 1
	// cpus: 1
	// kernel: 6.18.44
	// cpu-quota: 2 cpus (200000/100000 us)
	// mitigations: 1 mitigated, 0 vulnerable, 0 not affected
	// vuln-spectre_v2: Mitigation: Retpolines
	// goexperiment: none
	// godebug: none
}
