package benchenv

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"
)

func file(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }

const cpuinfo2 = `processor	: 0
vendor_id	: AuthenticAMD
model name	: AMD EPYC 7B13
flags		: fpu vme

processor	: 1
vendor_id	: AuthenticAMD
model name	: AMD EPYC 7B13
`

var testRuntime = Runtime{GoVersion: "go1.26.8", GOOS: "linux", GOARCH: "amd64", GOMAXPROCS: 2}

func linuxFS() fstest.MapFS {
	return fstest.MapFS{
		"proc/cpuinfo":                                  file(cpuinfo2),
		"proc/sys/kernel/osrelease":                     file("6.18.44-generic\n"),
		"proc/self/cgroup":                              file("0::/\n"),
		"sys/fs/cgroup/cpu.max":                         file("max 100000\n"),
		vulnDir + "/meltdown":                           file("Not affected\n"),
		vulnDir + "/spectre_v2":                         file("Mitigation: Retpolines; STIBP: disabled\n"),
		vulnDir + "/spec_store_bypass":                  file("Vulnerable\n"),
		"sys/devices/system/cpu/vulnerabilities/mds":    file("Not affected\n"),
		"sys/devices/system/cpu/vulnerabilities/gather": file("Processor vulnerable\n"),
	}
}

func TestCollectOnLinux(t *testing.T) {
	got := Collect(linuxFS(), testRuntime)
	want := Fingerprint{
		{"goos", "linux"},
		{"goarch", "amd64"},
		{"cpu", "AMD EPYC 7B13"},
		{"goversion", "go1.26.8"},
		{"gomaxprocs", "2"},
		{"cpus", "2"},
		{"kernel", "6.18.44-generic"},
		{"cpu-quota", "none"},
		{"mitigations", "1 mitigated, 1 vulnerable, 2 not affected, 1 other"},
		{"vuln-gather", "Processor vulnerable"},
		{"vuln-mds", "Not affected"},
		{"vuln-meltdown", "Not affected"},
		{"vuln-spec_store_bypass", "Vulnerable"},
		{"vuln-spectre_v2", "Mitigation: Retpolines; STIBP: disabled"},
		{"goexperiment", "none"},
		{"godebug", "none"},
	}
	require.Equal(t, want, got)
}

func TestCollectWithNoSourcesIsUnknownNotAnError(t *testing.T) {
	got := Collect(fstest.MapFS{}, Runtime{})
	for _, key := range []string{"goos", "goarch", "cpu", "goversion", "gomaxprocs", "cpus", "kernel", "cpu-quota", "mitigations"} {
		require.Equal(t, Unknown, got.Get(key), key)
	}
	require.Equal(t, "none", got.Get("goexperiment"))
	require.Equal(t, "none", got.Get("godebug"))
}

func TestCPUQuota(t *testing.T) {
	tests := []struct {
		name  string
		files fstest.MapFS
		want  string
	}{
		{"v2 unlimited", fstest.MapFS{
			"proc/self/cgroup":      file("0::/\n"),
			"sys/fs/cgroup/cpu.max": file("max 100000\n"),
		}, "none"},
		{"v2 one and a half cpus", fstest.MapFS{
			"proc/self/cgroup":      file("0::/\n"),
			"sys/fs/cgroup/cpu.max": file("150000 100000\n"),
		}, "1.5 cpus (150000/100000 us)"},
		{"v2 limit on an ancestor binds the leaf", fstest.MapFS{
			"proc/self/cgroup":                   file("0::/a/b\n"),
			"sys/fs/cgroup/a/b/cpu.max":          file("max 100000\n"),
			"sys/fs/cgroup/a/cpu.max":            file("50000 100000\n"),
			"sys/fs/cgroup/cgroup.controllers":   file("cpu\n"),
			"sys/fs/cgroup/a/cgroup.controllers": file("cpu\n"),
		}, "0.5 cpus (50000/100000 us)"},
		{"v2 tightest level wins", fstest.MapFS{
			"proc/self/cgroup":          file("0::/a/b\n"),
			"sys/fs/cgroup/a/b/cpu.max": file("100000 100000\n"),
			"sys/fs/cgroup/a/cpu.max":   file("400000 100000\n"),
		}, "1 cpus (100000/100000 us)"},
		{"v1 unlimited", fstest.MapFS{
			"proc/self/cgroup":                         file("2:cpuacct:/\n1:cpu:/\n0::/\n"),
			"sys/fs/cgroup/cpu/cpu.cfs_quota_us":       file("-1\n"),
			"sys/fs/cgroup/cpu/cpu.cfs_period_us":      file("100000\n"),
			"sys/fs/cgroup/unified/cgroup.controllers": file("\n"),
		}, "none"},
		{"v1 two cpus in a joined hierarchy", fstest.MapFS{
			"proc/self/cgroup": file("3:cpu,cpuacct:/docker/abc\n"),
			"sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_quota_us":  file("200000\n"),
			"sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_period_us": file("100000\n"),
		}, "2 cpus (200000/100000 us)"},
		{"malformed cpu.max is unknown", fstest.MapFS{
			"proc/self/cgroup":      file("0::/\n"),
			"sys/fs/cgroup/cpu.max": file("lots\n"),
		}, Unknown},
		{"no cgroup file", fstest.MapFS{}, Unknown},
		{"cgroup listed but not mounted", fstest.MapFS{"proc/self/cgroup": file("0::/x\n")}, Unknown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, cpuQuota(tt.files))
		})
	}
}

func TestCPUInfo(t *testing.T) {
	tests := []struct {
		name              string
		cpuinfo           string
		wantModel, wantCt string
	}{
		{"x86", cpuinfo2, "AMD EPYC 7B13", "2"},
		{"arm64 has no model name", "processor\t: 0\nBogoMIPS\t: 50.00\n\nprocessor\t: 1\n\nModel\t: Raspberry Pi 4 Model B\n", "Raspberry Pi 4 Model B", "2"},
		{"empty", "", Unknown, Unknown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			model, n := cpuInfo(fstest.MapFS{"proc/cpuinfo": file(tt.cpuinfo)})
			require.Equal(t, tt.wantModel, model)
			require.Equal(t, tt.wantCt, n)
		})
	}
}

func TestWriteToIsBenchmarkFormat(t *testing.T) {
	f := Fingerprint{{"kernel", "6.1\nBenchmarkFake 1 1 ns/op"}, {"godebug", "x=1"}}
	var b bytes.Buffer
	n, err := f.WriteTo(&b)
	require.NoError(t, err)
	require.Equal(t, int64(b.Len()), n)
	require.Equal(t, "kernel: 6.1 BenchmarkFake 1 1 ns/op\ngodebug: x=1\n", b.String(),
		"a newline inside a value must not start a line of its own")
}

func TestEveryCollectedKeyIsAnEnvironmentKeyAndValid(t *testing.T) {
	for _, l := range Collect(linuxFS(), testRuntime) {
		require.True(t, IsEnvironmentKey(l.Key), l.Key)
		require.Equal(t, strings.ToLower(l.Key), l.Key)
		require.NotContains(t, l.Key, " ")
		require.NotEmpty(t, l.Value, l.Key)
	}
	require.False(t, IsEnvironmentKey("pkg"))
	require.False(t, IsEnvironmentKey("commit"))
}

func TestCurrentRuntimeMatchesProcess(t *testing.T) {
	t.Setenv("GODEBUG", "madvdontneed=1")
	rt := CurrentRuntime()
	require.Positive(t, rt.GOMAXPROCS)
	require.True(t, strings.HasPrefix(rt.GoVersion, "go") || strings.HasPrefix(rt.GoVersion, "devel"))
	require.Contains(t, rt.GODEBUG, "madvdontneed=1")
}

func TestCurrentOnLinuxKnowsTheKernel(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	f := Current()
	require.NotEqual(t, Unknown, f.Get(KeyKernel))
	require.NotEqual(t, Unknown, f.Get(KeyCPUs))
	require.Equal(t, fmt.Sprint(runtime.GOMAXPROCS(0)), f.Get(KeyGOMAXPROCS))
}
