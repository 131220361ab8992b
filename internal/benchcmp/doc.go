// Package benchcmp compares two Go benchmark outputs, as `innosim compare OLD NEW`,
// and refuses to call a difference a regression when the two runs come from
// different environments.
//
// The reason is study C (MariaDB MDEV-24140): connect/SELECT 1/disconnect
// throughput fell about 27% between two releases, and the whole drop was the test
// machine's new kernel with more CPU-vulnerability mitigations. A comparison tool
// that only looks at numbers would have filed it as a code regression. Here the
// environment is part of the input: internal/benchenv writes a fingerprint (kernel,
// mitigations, CPU, GOMAXPROCS, cgroup quota, Go version, GOEXPERIMENT, GODEBUG) as
// configuration lines before the results, and Compare first compares those keys.
// If any differs, the report names the differing keys, shows the changes for
// information only, and gives no regression verdict; only when every environment
// key agrees (or both files lack it) does a significant slowdown become
// "regression".
//
// The statistics are benchstat's: each benchmark's samples are summarised by their
// median with a confidence interval, and two samples are compared with the
// Mann-Whitney U test (golang.org/x/perf/benchmath, AssumeNothing, unless a Unit
// metadata line says assume=exact), at alpha 0.05. The change's interval is
// derived from the two medians' intervals, [newLo/oldHi, newHi/oldLo] - 1, which
// is conservative: it holds whenever both medians' intervals do. A change is
// significant only when p < alpha and that interval excludes no change: on a
// shared machine the U test alone flags load drift between two runs, which the
// interval, wider by construction, does not. When the two disagree the verdict
// is "inconclusive", not "no significant change"; with fewer than 6 samples a
// side (MinSamples, where the 95% intervals become unbounded) it is "too few
// samples (n < 6)", whatever the p-value, and the interval prints as "-".
// Either keeps the overall verdict from reading "no significant change". Whether higher or
// lower is better comes from Unit metadata (better=higher|lower), else benchfmt's
// defaults (sec/op, B/op, allocs/op lower; B/s higher) and futex-share (lower);
// a significant change in a unit of unknown direction is "changed", never a
// regression.
//
// Input is strict where benchstat is lenient, because a verdict built on a damaged
// file is worse than none: a file with no results, a malformed or truncated
// result line, a non-finite value, or a benchmark whose units differ between its
// lines or between the two files is an error that names the file and line; so are
// two files with no benchmark in common, which would otherwise read as "no
// significant change".
// Results are grouped by pkg and full benchmark name (with its -GOMAXPROCS
// suffix), then by unit. A benchmark whose name differs between the files only
// in that suffix is one benchmark run at two GOMAXPROCS: it is
// compared, and the difference is the environment key gomaxprocs.
package benchcmp
