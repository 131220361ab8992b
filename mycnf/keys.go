package mycnf

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// key describes one modelled option: its MySQL name, the Settings field it
// sets, its range and default in MySQL's units (microseconds for durations,
// 0/1 for booleans).
type key struct {
	name     string // MySQL variable, with underscores
	goName   string // Settings field
	min, max int64
	def      int64
	pow2     bool                  // the value must also be a power of two
	auto     string                // what a default of 0, outside min..max and not settable, stands for
	per      time.Duration         // a duration key's unit: time.Microsecond when 0
	mysqlMax int64                 // MySQL's own maximum when innosim's (max) is lower; 0 if the same
	unit     string                // shown after the range in messages, e.g. "microseconds"
	enum     []string              // the values of a *string key, the default's index in def
	mariadb  bool                  // MariaDB's alone: MySQL's community server has no such variable
	field    func(s *Settings) any // *bool, *int, *int64, *time.Duration or *string
}

// numKeys is the number of modelled options, the length of keys.
const numKeys = 22

// keys is the table of modelled options. Ranges and defaults are MySQL 8.0's
// (the MySQL Reference Manual's server system variable and InnoDB startup
// option pages) unless a Settings field comment says otherwise. Where the
// packages that take these settings accept less than MySQL does, the range is
// theirs (and mysqlMax says MySQL's), so that a value they would refuse is
// refused here, at its file and line. It is never modified.
var keys = [numKeys]key{
	{name: "innodb_thread_concurrency", goName: "ThreadConcurrency", min: 0, max: 1000, def: 0,
		field: func(s *Settings) any { return &s.ThreadConcurrency }},
	{name: "innodb_concurrency_tickets", goName: "ConcurrencyTickets", min: 1, max: 4294967295, def: 5000,
		field: func(s *Settings) any { return &s.ConcurrencyTickets }},
	{name: "innodb_thread_sleep_delay", goName: "ThreadSleepDelay", min: 0, max: 1000000, def: 10000, unit: "microseconds",
		field: func(s *Settings) any { return &s.ThreadSleepDelay }},
	{name: "innodb_adaptive_max_sleep_delay", goName: "AdaptiveMaxSleepDelay", min: 0, max: 1000000, def: 150000, unit: "microseconds",
		field: func(s *Settings) any { return &s.AdaptiveMaxSleepDelay }},
	{name: "innodb_commit_concurrency", goName: "CommitConcurrency", min: 0, max: 1000, def: 0,
		field: func(s *Settings) any { return &s.CommitConcurrency }},
	{name: "innodb_read_io_threads", goName: "ReadIOThreads", min: 1, max: 64, def: 4,
		field: func(s *Settings) any { return &s.ReadIOThreads }},
	{name: "innodb_write_io_threads", goName: "WriteIOThreads", min: 1, max: 64, def: 4,
		field: func(s *Settings) any { return &s.WriteIOThreads }},
	{name: "innodb_use_native_aio", goName: "UseNativeAIO", def: 1,
		field: func(s *Settings) any { return &s.UseNativeAIO }},
	{name: "innodb_read_ahead_threshold", goName: "ReadAheadThreshold", min: 0, max: 64, def: 56, unit: "pages",
		field: func(s *Settings) any { return &s.ReadAheadThreshold }},
	// MySQL allows up to 2^64-1 bytes on 64-bit platforms; int64 holds
	// 2^63-1.
	{name: "innodb_buffer_pool_size", goName: "BufferPoolSize", min: 5 << 20, max: 1<<63 - 1, def: 128 << 20, unit: "bytes",
		field: func(s *Settings) any { return &s.BufferPoolSize }},
	{name: "innodb_page_size", goName: "PageSize", min: 4096, max: 65536, def: 16384, pow2: true, unit: "bytes",
		field: func(s *Settings) any { return &s.PageSize }},
	{name: "innodb_spin_wait_delay", goName: "SpinWaitDelay", min: 0, max: 1000, def: 6,
		field: func(s *Settings) any { return &s.SpinWaitDelay }},
	{name: "innodb_spin_wait_pause_multiplier", goName: "SpinWaitPauseMultiplier", min: 0, max: 100, def: 50,
		field: func(s *Settings) any { return &s.SpinWaitPauseMultiplier }},
	// The simulator spins each poll as an event, so it bounds the loops at
	// MaxSyncSpinLoops; MySQL allows 0..4294967295.
	{name: "innodb_sync_spin_loops", goName: "SyncSpinLoops", min: 0, max: MaxSyncSpinLoops, mysqlMax: 4294967295, def: 30,
		field: func(s *Settings) any { return &s.SyncSpinLoops }},
	{name: "thread_priority", goName: "ThreadPriority", def: 1,
		field: func(s *Settings) any { return &s.ThreadPriority }},
	{name: "max_connections", goName: "MaxConnections", min: 1, max: 100000, def: 151,
		field: func(s *Settings) any { return &s.MaxConnections }},
	{name: "innodb_flush_log_at_trx_commit", goName: "FlushLogAtTrxCommit", min: 0, max: 2, def: 1,
		field: func(s *Settings) any { return &s.FlushLogAtTrxCommit }},
	{name: "thread_handling", goName: "ThreadHandling", def: 0, enum: ThreadHandlings,
		field: func(s *Settings) any { return &s.ThreadHandling }},
	// MariaDB's thread pool (sql/sys_vars.cc, the Sys_threadpool_*
	// variables; MySQL has none): read only with pool-of-threads.
	{name: "thread_pool_size", mariadb: true, goName: "ThreadPoolSize", min: 1, max: 100000, def: 0, auto: "the server's CPUs",
		field: func(s *Settings) any { return &s.ThreadPoolSize }},
	{name: "thread_pool_oversubscribe", mariadb: true, goName: "ThreadPoolOversubscribe", min: 1, max: 1000, def: 3,
		field: func(s *Settings) any { return &s.ThreadPoolOversubscribe }},
	{name: "thread_pool_stall_limit", mariadb: true, goName: "ThreadPoolStallLimit", min: 10, max: 4294967295, def: 500, unit: "milliseconds", per: time.Millisecond,
		field: func(s *Settings) any { return &s.ThreadPoolStallLimit }},
	{name: "thread_pool_max_threads", mariadb: true, goName: "ThreadPoolMaxThreads", min: 1, max: 65536, def: 65536,
		field: func(s *Settings) any { return &s.ThreadPoolMaxThreads }},
}

// ThreadHandlings are the thread_handling values innosim accepts, the
// default first: the two the simulator models (sim.ThreadHandling). MariaDB
// also has no-threads (one connection in all, a debugging mode), refused here
// so that a file with it fails at its line rather than in the simulator.
var ThreadHandlings = []string{"one-thread-per-connection", "pool-of-threads"}

// MaxSyncSpinLoops is the largest innodb_sync_spin_loops innosim accepts, the
// simulator's limit (MySQL allows up to 4294967295): a larger value is an
// error wrapping ErrInvalidConfig.
const MaxSyncSpinLoops = 10000

// lookup returns the key named name (underscores), or nil.
func lookup(name string) *key {
	if i := keyIndex(name); i >= 0 {
		return &keys[i]
	}
	return nil
}

// keyIndex returns the index in keys of the key named name, or -1.
func keyIndex(name string) int {
	for i := range keys {
		if keys[i].name == name {
			return i
		}
	}
	return -1
}

// want describes the allowed values, e.g. "1..64" or "a power of two in
// 4096..65536 (bytes)".
func (k *key) want() string {
	if k.enum != nil {
		return "one of " + strings.Join(k.enum, ", ")
	}
	w := fmt.Sprintf("%d..%d", k.min, k.max)
	if k.pow2 {
		w = "a power of two in " + w
	}
	if k.unit != "" {
		w += " (" + k.unit + ")"
	}
	if k.mysqlMax != 0 {
		w += fmt.Sprintf(", innosim's limit (MySQL allows up to %d)", k.mysqlMax)
	}
	if k.auto != "" {
		w += fmt.Sprintf(" (unset: %s)", k.auto)
	}
	return w
}

// unitOf returns a duration key's unit: microseconds unless per says.
func (k *key) unitOf() time.Duration {
	if k.per == 0 {
		return time.Microsecond
	}
	return k.per
}

// check reports whether v is allowed, in MySQL's units.
func (k *key) check(v int64) error {
	if v < k.min || v > k.max || (k.pow2 && v&(v-1) != 0) {
		return ErrInvalidConfig
	}
	return nil
}

// set parses an option's value and stores it in s. Errors wrap
// ErrInvalidConfig and name the key.
func (k *key) set(s *Settings, value string, hasValue bool) error {
	if p, ok := k.field(s).(*bool); ok {
		if !hasValue { // a bare boolean option means ON
			*p = true
			return nil
		}
		b, err := ParseBool(value)
		if err != nil {
			return fmt.Errorf("%s = %w", k.name, err)
		}
		*p = b
		return nil
	}
	if !hasValue {
		return fmt.Errorf("%s needs a value, want %s: %w", k.name, k.want(), ErrInvalidConfig)
	}
	if p, ok := k.field(s).(*string); ok {
		// enum values compare without regard to case, as my_getopt's
		// find_type does; dashes and underscores are not the same here
		i := slices.IndexFunc(k.enum, func(e string) bool { return strings.EqualFold(e, value) })
		if i < 0 {
			return fmt.Errorf("%s = %s, want %s: %w", k.name, quoteUnsafe(value), k.want(), ErrInvalidConfig)
		}
		*p = k.enum[i]
		return nil
	}
	v, err := ParseInt(value)
	if err != nil {
		return fmt.Errorf("%s = %w", k.name, err)
	}
	if k.check(v) != nil {
		return fmt.Errorf("%s = %s, want %s: %w", k.name, quoteUnsafe(value), k.want(), ErrInvalidConfig)
	}
	switch p := k.field(s).(type) {
	case *int:
		*p = int(v)
	case *int64:
		*p = v
	case *time.Duration:
		*p = time.Duration(v) * k.unitOf()
	}
	return nil
}
