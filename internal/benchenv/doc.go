// Package benchenv takes the fingerprint of the environment a benchmark runs in and
// writes it as Go benchmark-format configuration lines, so that a result always
// carries the machine it was measured on.
//
// Why: study C in the project's references (MariaDB MDEV-24140) is a regression
// suite that reported connect/SELECT 1/disconnect cycles 27% slower between two
// releases. Re-running the old release showed the same drop: the test machine had
// been rebooted onto a kernel with more CPU-vulnerability mitigations, which make
// system calls and context switches dearer. Nothing in the result files said so.
// A fingerprint printed before the results turns that hidden variable into data:
// benchstat groups results by their configuration keys, so runs from different
// environments land in different tables instead of one misleading column, and
// internal/benchcmp refuses a regression verdict when any environment key differs.
//
// The lines follow the configuration-line syntax of the Go benchmark format
// (golang.org/design/14313-benchmark-format, as read by golang.org/x/perf/benchfmt):
// "key: value", the key starting with a lower-case letter and holding no space or
// upper-case letter. The standard keys goos, goarch and cpu keep their names and
// meaning. go test prints them again after ours, just before the first result; a
// configuration line holds until the next line with its key, so where go test's
// cpu name differs from /proc/cpuinfo's (it asks the CPU itself), go test's is what
// the results carry, and the two never both apply. The rest:
//
//	goversion      runtime.Version(), e.g. go1.26.8
//	gomaxprocs     runtime.GOMAXPROCS(0) when taken
//	cpus           logical CPUs listed in /proc/cpuinfo (the machine, not the affinity mask)
//	kernel         kernel release as uname -r reports it (/proc/sys/kernel/osrelease)
//	cpu-quota      cgroup CPU bandwidth limit in CPUs ("none" when unlimited):
//	               cgroup v2 cpu.max, else v1 cpu.cfs_quota_us / cpu.cfs_period_us
//	mitigations    summary: how many vulnerabilities the kernel reports as
//	               mitigated, vulnerable and not affected
//	vuln-NAME      one key per file in /sys/devices/system/cpu/vulnerabilities,
//	               the kernel's text verbatim
//	goexperiment   GOEXPERIMENT baked into the binary ("none" for the defaults)
//	godebug        the binary's default GODEBUG plus the GODEBUG environment
//	               variable ("none" when both are empty)
//
// Mitigations get one key each, plus the summary, because the two readers need
// different things. A person reading a benchstat header wants one line that says
// whether the kernel mitigates more than before; a tool deciding whether two runs
// are comparable must see that spectre_v2 went from "Retpolines" to "Enhanced
// IBRS", which leaves the counts unchanged but not the cost of a system call. With
// a key per vulnerability, benchstat splits its tables on exactly the changed key
// and benchcmp names it.
//
// A source that is missing or unreadable (not Linux, no /proc or /sys, a container
// that hides them) gives the value "unknown", never an error: a fingerprint is
// evidence, and a partial one is still worth printing. Sources are read from an
// fs.FS rooted at "/" so that tests run on fstest.MapFS; the runtime values come
// in a Runtime struct for the same reason.
package benchenv
