package live

import (
	_ "embed"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"time"
)

// connectScript is the connect workload: connect, SELECT 1, disconnect per
// event (sysbench 1.0's Lua SQL API). Run writes it to the private directory.
//
//go:embed connect.lua
var connectScript []byte

// writeConnectScript writes connectScript to dir as connect.lua and returns
// its path.
func writeConnectScript(dir string) (string, error) {
	path := filepath.Join(dir, "connect.lua")
	if err := os.WriteFile(path, connectScript, 0o644); err != nil {
		return "", fmt.Errorf("live: %w", err)
	}
	return path, nil
}

// Stats is what one sysbench run printed in its final report (sysbench 1.0's
// "SQL statistics", "General statistics" and "Latency (ms)" sections).
type Stats struct {
	// Queries and Transactions count what the run completed (sysbench's
	// "queries:" and "transactions:" lines; a transaction is one event).
	Queries, Transactions uint64
	// QPS and TPS are sysbench's per-second rates of the two.
	QPS, TPS float64
	// Elapsed is sysbench's "total time".
	Elapsed time.Duration
	// P95 is the 95th percentile of an event's latency (--percentile=95).
	P95 time.Duration
	// Errors counts "ignored errors".
	Errors uint64
}

var (
	reTransactions = regexp.MustCompile(`(?m)^\s*transactions:\s+(\d+)\s+\(([0-9.]+) per sec\.\)`)
	reQueries      = regexp.MustCompile(`(?m)^\s*queries:\s+(\d+)\s+\(([0-9.]+) per sec\.\)`)
	reErrors       = regexp.MustCompile(`(?m)^\s*ignored errors:\s+(\d+)`)
	reTotalTime    = regexp.MustCompile(`(?m)^\s*total time:\s+([0-9.]+)s`)
	reP95          = regexp.MustCompile(`(?m)^\s*95th percentile:\s+([0-9.]+)`)
)

// ParseStats reads sysbench 1.0's report. Every field is required; the error
// names the first line that is missing or malformed.
func ParseStats(out string) (Stats, error) {
	var s Stats
	var err error
	pair := func(re *regexp.Regexp, name string, n *uint64, rate *float64) {
		if err != nil {
			return
		}
		m := re.FindStringSubmatch(out)
		if m == nil {
			err = fmt.Errorf("live: sysbench report has no %q line", name)
			return
		}
		if *n, err = strconv.ParseUint(m[1], 10, 64); err == nil {
			*rate, err = strconv.ParseFloat(m[2], 64)
		}
		if err != nil {
			err = fmt.Errorf("live: sysbench report line %q: %w", m[0], err)
		}
	}
	pair(reTransactions, "transactions:", &s.Transactions, &s.TPS)
	pair(reQueries, "queries:", &s.Queries, &s.QPS)
	if err != nil {
		return s, err
	}
	m := reErrors.FindStringSubmatch(out)
	if m == nil {
		return s, fmt.Errorf("live: sysbench report has no %q line", "ignored errors:")
	}
	s.Errors, _ = strconv.ParseUint(m[1], 10, 64) // \d+ always parses, barring overflow
	secs := func(re *regexp.Regexp, name string, unit time.Duration) (time.Duration, error) {
		m := re.FindStringSubmatch(out)
		if m == nil {
			return 0, fmt.Errorf("live: sysbench report has no %q line", name)
		}
		f, err := strconv.ParseFloat(m[1], 64)
		if err != nil {
			return 0, fmt.Errorf("live: sysbench report line %q: %w", m[0], err)
		}
		return time.Duration(f * float64(unit)), nil
	}
	if s.Elapsed, err = secs(reTotalTime, "total time:", time.Second); err != nil {
		return s, err
	}
	if s.P95, err = secs(reP95, "95th percentile:", time.Millisecond); err != nil {
		return s, err
	}
	return s, nil
}

// Throughput returns the run's figure in the workload's unit (Units):
// queries/s for the OLTP scripts, events (connections) per second for connect.
func (s Stats) Throughput(workload string) float64 {
	if workload == "connect" {
		return s.TPS
	}
	return s.QPS
}

// sysbenchArgs returns sysbench's arguments for one run: script is the
// workload's name or the path of our connect script, cmd is prepare or run.
func sysbenchArgs(script, socket string, c Config, threads int, d time.Duration, cmd string) []string {
	return []string{
		script,
		"--db-driver=mysql",
		"--mysql-socket=" + socket,
		"--mysql-user=root",
		"--mysql-db=sbtest",
		"--tables=" + strconv.Itoa(c.Tables),
		"--table-size=" + strconv.Itoa(c.TableSize),
		"--threads=" + strconv.Itoa(threads),
		"--time=" + strconv.Itoa(int(d/time.Second)),
		"--events=0",
		"--percentile=95",
		"--report-interval=0",
		cmd,
	}
}
