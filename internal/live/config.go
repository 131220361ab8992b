package live

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"time"
)

// ErrInvalidConfig is wrapped by every error Config.Validate returns: the
// error names the field and its allowed range.
var ErrInvalidConfig = errors.New("invalid live configuration")

// ErrMissing is wrapped when mariadbd, mariadb-install-db or sysbench cannot be
// found; the error says how to install them.
var ErrMissing = errors.New("program not installed")

// FieldError is the error of a Config field (or ValidateRotation's
// connections) outside its allowed range, as Validate and ValidateRotation
// return it: errors.As gives the field, so that a command can name its own
// flag for it. It wraps ErrInvalidConfig.
type FieldError struct {
	Field string // the Config field ("Threads"), or "connections"
	Got   string // the value given, as the message shows it
	Want  string // the allowed range or values
}

// Error reads "live: Field = Got, want Want: invalid live configuration".
func (e *FieldError) Error() string {
	return fmt.Sprintf("live: %s = %s, want %s: %v", e.Field, e.Got, e.Want, ErrInvalidConfig)
}

// Unwrap returns ErrInvalidConfig.
func (e *FieldError) Unwrap() error { return ErrInvalidConfig }

// InstallHint says how to install the two packages on Debian and Ubuntu:
// the commands, run as root.
const InstallHint = "apt-get update && apt-get install -y mariadb-server sysbench (as root, or with sudo)"

// Workloads are the workload names Run accepts: sysbench's two read-only OLTP
// scripts and our connect script.
var Workloads = []string{"oltp_point_select", "oltp_read_only", "connect"}

// SimWorkloads names, for each of Workloads, the simulator's model of it
// against this server (sim.LookupWorkload): sysbench 1.0's oltp_read_only
// against MariaDB 10.11 is sim's oltp_read_only_mariadb, not its
// oltp_read_only (MySQL 5.1's InnoDB under sysbench 0.4).
var SimWorkloads = map[string]string{
	"oltp_point_select": "oltp_point_select",
	"oltp_read_only":    "oltp_read_only_mariadb",
	"connect":           "connect",
}

// Units are the workloads' throughput units, as the simulator's workloads
// name them: sysbench's queries/s for the OLTP scripts (BEGIN and COMMIT
// included in oltp_read_only), events/s for connect.
var Units = map[string]string{
	"oltp_point_select": "queries/s",
	"oltp_read_only":    "queries/s",
	"connect":           "connections/s",
}

// Limits of the sweep's fields.
const (
	MaxThreads = 10000 // MariaDB's max_connections allows 100000; sysbench and one machine, not that
	MaxRepeats = 100
)

// Config is one live sweep. The zero value is not valid; DefaultConfig gives
// the defaults.
type Config struct {
	// Mariadbd, InstallDB and Sysbench are the programs; empty looks each up
	// in PATH, then in /usr/sbin and /usr/bin.
	Mariadbd, InstallDB, Sysbench string
	// Workloads are the workloads to run, each one of Workloads, each once.
	Workloads []string
	// Threads are the client thread counts (sysbench --threads), each
	// 1..MaxThreads, each once.
	Threads []int
	// Setting is the server variable swept (e.g. "thread_handling"), given to
	// mariadbd as --Setting=value; empty sweeps none (Values must then be
	// empty). The server restarts for each value.
	Setting string
	// Values are Setting's values, each once. For thread_handling they must
	// be one-thread-per-connection or pool-of-threads.
	Values []string
	// Duration is the measured time of each point (sysbench --time), 1s..1h.
	Duration time.Duration
	// Warmup is a run of the same point, not measured, before the measured
	// ones, 0..1h; zero skips it. Whole seconds (sysbench's --time).
	Warmup time.Duration
	// Repeats is how many measured runs each point takes, 1..MaxRepeats; the
	// point reports their median throughput.
	Repeats int
	// Tables and TableSize shape sysbench's tables (--tables, --table-size):
	// 1..64 tables of 1..10,000,000 rows.
	Tables, TableSize int
	// BufferPool is innodb_buffer_pool_size in bytes, 8 MiB..64 GiB.
	BufferPool int64
	// TempDir is the directory the private one is made in; empty is
	// os.TempDir. The socket path must stay within the kernel's 107 bytes.
	TempDir string
	// Log, when not nil, gets one line per step (server start, each point).
	Log io.Writer
	// Progress, when not nil, is told after each point (of Run's sweep or
	// of Rotate's probe) the points done and their total.
	Progress func(done, total int)
}

// DefaultConfig returns a sweep of point selects at 1, 2, 4, 8 and 64
// threads (64: validate's level is read there), 5 s a point after a 1 s warm-up, one repeat, 4 tables of 10,000 rows and a
// 64 MiB buffer pool, in both thread_handling modes.
func DefaultConfig() Config {
	return Config{
		Workloads:  []string{"oltp_point_select"},
		Threads:    []int{1, 2, 4, 8, 64},
		Setting:    "thread_handling",
		Values:     []string{"one-thread-per-connection", "pool-of-threads"},
		Duration:   5 * time.Second,
		Warmup:     time.Second,
		Repeats:    1,
		Tables:     4,
		TableSize:  10000,
		BufferPool: 64 << 20,
	}
}

// ThreadHandlings are the thread_handling values Run accepts (MariaDB's
// thread_handling: "no-threads" serves one connection and is left out).
var ThreadHandlings = []string{"one-thread-per-connection", "pool-of-threads"}

var settingName = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
var settingValue = regexp.MustCompile(`^[A-Za-z0-9_.+-]+$`)

// Validate checks every field; the error wraps ErrInvalidConfig and names the
// field and its allowed range.
func (c Config) Validate() error {
	bad := func(field, got, want string) error { return &FieldError{field, got, want} }
	if len(c.Workloads) == 0 {
		return bad("Workloads", "none", "one or more of "+strings.Join(Workloads, ", "))
	}
	for i, w := range c.Workloads {
		if !slices.Contains(Workloads, w) {
			return bad("Workloads", fmt.Sprintf("%q", w), "one of "+strings.Join(Workloads, ", "))
		}
		if slices.Index(c.Workloads, w) != i {
			return bad("Workloads", fmt.Sprintf("%q twice", w), "each workload once")
		}
	}
	if len(c.Threads) == 0 {
		return bad("Threads", "none", fmt.Sprintf("one or more counts in 1..%d", MaxThreads))
	}
	for i, t := range c.Threads {
		if t < 1 || t > MaxThreads {
			return bad("Threads", fmt.Sprint(t), fmt.Sprintf("1..%d", MaxThreads))
		}
		if slices.Index(c.Threads, t) != i {
			return bad("Threads", fmt.Sprintf("%d twice", t), "each count once")
		}
	}
	if c.Setting == "" && len(c.Values) > 0 {
		return bad("Setting", `""`, "a server variable when Values are given")
	}
	if c.Setting != "" {
		if !settingName.MatchString(c.Setting) {
			return bad("Setting", fmt.Sprintf("%q", c.Setting), "a server variable name (a-z, 0-9, _)")
		}
		if len(c.Values) == 0 {
			return bad("Values", "none", "one or more values of "+c.Setting)
		}
		for i, v := range c.Values {
			if !settingValue.MatchString(v) {
				return bad("Values", fmt.Sprintf("%q", v), "letters, digits and _ . + -")
			}
			if c.Setting == "thread_handling" && !slices.Contains(ThreadHandlings, v) {
				return bad("Values", fmt.Sprintf("%q", v), strings.Join(ThreadHandlings, " or "))
			}
			if slices.Index(c.Values, v) != i {
				return bad("Values", fmt.Sprintf("%q twice", v), "each value once")
			}
		}
	}
	if c.Duration < time.Second || c.Duration > time.Hour || c.Duration%time.Second != 0 {
		return bad("Duration", c.Duration.String(), "whole seconds in 1s..1h")
	}
	if c.Warmup < 0 || c.Warmup > time.Hour || c.Warmup%time.Second != 0 {
		return bad("Warmup", c.Warmup.String(), "whole seconds in 0..1h")
	}
	if c.Repeats < 1 || c.Repeats > MaxRepeats {
		return bad("Repeats", fmt.Sprint(c.Repeats), fmt.Sprintf("1..%d", MaxRepeats))
	}
	if c.Tables < 1 || c.Tables > 64 {
		return bad("Tables", fmt.Sprint(c.Tables), "1..64")
	}
	if c.TableSize < 1 || c.TableSize > 10_000_000 {
		return bad("TableSize", fmt.Sprint(c.TableSize), "1..10000000")
	}
	if c.BufferPool < 8<<20 || c.BufferPool > 64<<30 {
		return bad("BufferPool", fmt.Sprint(c.BufferPool), "8 MiB..64 GiB in bytes")
	}
	return nil
}

// maxThreads returns the largest thread count of the sweep.
func (c Config) maxThreads() int { return slices.Max(c.Threads) }
