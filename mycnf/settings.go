package mycnf

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Settings is the typed view of the options innosim models: the ones that
// decide how the concurrency gate, the AIO handler threads, the spin-then-wait
// mutexes and the thread priorities behave. Every field names its MySQL
// variable, unit, range and default. Durations are time.Duration even where
// MySQL counts microseconds. Build one with Defaults or File.Settings; a
// Settings built by hand can be checked with Validate.
type Settings struct {
	// ThreadConcurrency is innodb_thread_concurrency: how many threads may be
	// inside InnoDB at once; 0 turns the check off. Range 0..1000, default 0
	// (MySQL 5.5 and later; 5.1's built-in InnoDB defaulted to 8).
	ThreadConcurrency int

	// ConcurrencyTickets is innodb_concurrency_tickets: how many times a
	// thread admitted by the gate may enter again without being checked.
	// Range 1..4294967295, default 5000 (MySQL 5.6.6 and later; 500 before).
	ConcurrencyTickets int64

	// ThreadSleepDelay is innodb_thread_sleep_delay, in microseconds in MySQL:
	// how long a thread refused by the gate sleeps before it queues (5.5) or
	// retries (5.6+). Range 0..1s, default 10ms.
	ThreadSleepDelay time.Duration

	// AdaptiveMaxSleepDelay is innodb_adaptive_max_sleep_delay, in
	// microseconds in MySQL: the ceiling of the sleep delay when MySQL 5.6.3+
	// adjusts it on its own; 0 turns the adjustment off. Range 0..1s, default
	// 150ms.
	AdaptiveMaxSleepDelay time.Duration

	// CommitConcurrency is innodb_commit_concurrency: how many threads may
	// commit at once; 0 means no limit. Range 0..1000, default 0.
	CommitConcurrency int

	// ReadIOThreads is innodb_read_io_threads: the number of read segments of
	// the AIO array, one handler thread each. Range 1..64, default 4.
	ReadIOThreads int

	// WriteIOThreads is innodb_write_io_threads: the number of write
	// segments, one handler thread each. Range 1..64, default 4.
	WriteIOThreads int

	// UseNativeAIO is innodb_use_native_aio: true uses Linux native AIO,
	// false InnoDB's simulated AIO (the array, segments and handler threads);
	// AIOConfig maps it to aio.Config.IO. Default true (ON); File.ServerSettings
	// (Server.Defaults) reads false for a release before 5.5 (simulated AIO only).
	UseNativeAIO bool

	// ReadAheadThreshold is innodb_read_ahead_threshold: how many pages of an
	// extent must be read in order before linear read-ahead fetches the next
	// extent. Range 0..64 pages, default 56.
	ReadAheadThreshold int

	// BufferPoolSize is innodb_buffer_pool_size in bytes (K, M, G ... in a
	// file): the pages InnoDB keeps in memory; a page found there is not read
	// (buf_page_peek). Range 5 MiB..2^63-1 (MySQL allows 2^64-1 on 64-bit
	// platforms), default 128 MiB.
	BufferPoolSize int64

	// PageSize is innodb_page_size in bytes: 4096, 8192, 16384, 32768 or
	// 65536 (written 4K..64K in a file). Default 16384.
	PageSize int64

	// SpinWaitDelay is innodb_spin_wait_delay: the upper bound of the random
	// pause between polls of a spinning mutex, in units of
	// SpinWaitPauseMultiplier PAUSE instructions. Range 0..1000 (MySQL 8.0.13
	// and later), default 6.
	SpinWaitDelay int

	// SpinWaitPauseMultiplier is innodb_spin_wait_pause_multiplier: PAUSE
	// instructions per unit of SpinWaitDelay. Range 0..100 (MySQL 8.0.16 and
	// later; fixed at 50 before), default 50.
	SpinWaitPauseMultiplier int

	// SyncSpinLoops is innodb_sync_spin_loops: how many times a thread polls a
	// held mutex before it waits on the mutex's event. Range 0..10000
	// (MaxSyncSpinLoops, the simulator's limit; MySQL allows up to
	// 4294967295), default 30.
	SyncSpinLoops int64

	// ThreadPriority reports whether connection threads change their OS
	// priority around each query (MySQL 5.1's QUERY_PRIOR / WAIT_PRIOR), the
	// behaviour --skip-thread-priority turns off. Default true, as in MySQL
	// 5.1 up to 5.1.28; later releases never change priorities, and
	// File.ServerSettings (Server.Defaults) reads such a server's default as
	// false. File.Settings, which names no server, keeps true.
	ThreadPriority bool

	// MaxConnections is max_connections: the most client connections, so the
	// most connection threads. Range 1..100000, default 151.
	MaxConnections int

	// FlushLogAtTrxCommit is innodb_flush_log_at_trx_commit: 1 writes and
	// fsyncs the redo log at every commit, 2 writes it at every commit and
	// fsyncs it once a second, 0 does both once a second. Range 0..2,
	// default 1.
	FlushLogAtTrxCommit int

	// ThreadHandling is thread_handling: how connections get a server
	// thread, one of ThreadHandlings — one-thread-per-connection (the
	// default) or pool-of-threads (MariaDB's thread pool; MySQL's needs its
	// Enterprise plugin). Case does not matter in a file; the value is
	// stored in its listed spelling.
	ThreadHandling string

	// ThreadPoolSize is MariaDB's thread_pool_size: the thread pool's
	// groups. Range 1..100000 (MariaDB 5.5 to 10.1 allow 128: the simulator
	// refuses more for them); 0, the default, is the server's CPUs, as
	// MariaDB's my_getncpus(), and cannot be set.
	ThreadPoolSize int

	// ThreadPoolOversubscribe is thread_pool_oversubscribe: how many
	// workers of a group beyond the first may be active before it takes no
	// more requests from its queue. Range 1..1000, default 3.
	ThreadPoolOversubscribe int

	// ThreadPoolStallLimit is thread_pool_stall_limit, in milliseconds in
	// MariaDB: how often the timer checks the groups for a stall
	// (check_stall). Range 10ms..4294967295ms, default 500ms.
	ThreadPoolStallLimit time.Duration

	// ThreadPoolMaxThreads is thread_pool_max_threads: the most workers of
	// the whole pool. Range 1..65536, default 65536 (MariaDB 10.2 on);
	// Server.Defaults reads 500 for MariaDB 5.5 to 10.1.
	ThreadPoolMaxThreads int

	// The four thread_pool_* fields are read only with pool-of-threads, as
	// MariaDB reads them; with one-thread-per-connection they have no
	// effect, and the command that runs the settings says so.

	// Unknown lists the options of the selected groups that are none of the
	// above, in file order, as written. They are not errors: a my.cnf is
	// full of options innosim does not model. File.Warnings says the same
	// with the nearest modelled key.
	Unknown []Option

	// from holds where each key's value came from, by index in keys: the
	// zero Pos for the default.
	from [numKeys]Pos
}

// Setting is one modelled option's value in a Settings, and where it came from.
type Setting struct {
	Key   string // MySQL variable name, with underscores
	Value string // in MySQL's units and spelling: "8", "10000" (microseconds), "ON"
	Unit  string // "microseconds", "bytes", "pages" or ""
	From  Pos    // the option line that set it; the zero Pos for MySQL's default, Pos{File: "Set"} for Settings.Set
}

// IsDefault reports whether the value is the default (no line set it).
func (s Setting) IsDefault() bool { return s.From == Pos{} }

// List returns every modelled option's value, in the order of Keys, with the
// line that set it: what a run with these settings actually uses.
func (s Settings) List() []Setting {
	out := make([]Setting, len(keys))
	for i := range keys {
		k := &keys[i]
		v := ""
		switch p := k.field(&s).(type) {
		case *bool:
			v = "OFF"
			if *p {
				v = "ON"
			}
		case *int:
			v = fmt.Sprint(*p)
		case *int64:
			v = fmt.Sprint(*p)
		case *time.Duration:
			v = fmt.Sprint(int64(*p / k.unitOf()))
		case *string:
			v = *p
		}
		out[i] = Setting{Key: k.name, Value: v, Unit: k.unit, From: s.from[i]}
	}
	return out
}

// Defaults returns the Settings MySQL uses when a file sets nothing (the
// default named in each field's comment).
func Defaults() Settings {
	var s Settings
	for i := range keys {
		k := &keys[i]
		switch p := k.field(&s).(type) {
		case *bool:
			*p = k.def != 0
		case *int:
			*p = int(k.def)
		case *int64:
			*p = k.def
		case *time.Duration:
			*p = time.Duration(k.def) * k.unitOf()
		case *string:
			*p = k.enum[k.def]
		}
	}
	return s
}

// Settings reads the typed view from the options of the named groups (compared
// without regard to case); with no names, from [mysqld] and [server], the
// groups mysqld reads. Server.Groups gives the groups of a given MySQL or
// MariaDB release (ServerSettings reads them), and File.Warnings the options
// that then have no effect. Options apply in file order, so a later line wins.
// Names compare with dashes read as underscores. The skip-, disable-, enable-
// and loose- prefixes work as in MySQL's my_getopt: skip-X and disable-X set X
// to 0 (OFF), enable-X sets it to 1 (ON), "=0" after skip- or disable- means ON
// again, and loose- only marks X as optional. A modelled key given a bad value
// is an error (an *Error at the option's line, wrapping ErrInvalidConfig, that
// names the key and its range); all such errors are joined. On error the
// returned Settings still hold every valid value and the defaults.
func (f *File) Settings(groups ...string) (Settings, error) {
	if len(groups) == 0 {
		groups = []string{"mysqld", "server"}
	}
	return f.settingsOver(Defaults(), groups)
}

// settingsOver applies the options of groups over the defaults s.
func (f *File) settingsOver(s Settings, groups []string) (Settings, error) {
	var errs []error
	for _, o := range f.Select(groups...) {
		k, value, hasValue := resolve(o.Name(), o.Value, o.HasValue)
		if k == nil {
			s.Unknown = append(s.Unknown, o)
			continue
		}
		if err := k.set(&s, value, hasValue); err != nil {
			errs = append(errs, &Error{o.Pos, err})
			continue
		}
		s.from[keyIndex(k.name)] = o.Pos
	}
	return s, errors.Join(errs...)
}

// ServerSettings reads the typed view from the groups srv reads
// (srv.Groups()), as Settings does, over srv's defaults (Server.Defaults).
// A malformed srv (a Product other than MySQL and MariaDB, a Version not
// major.minor) is an error wrapping ErrInvalidConfig that names the field.
func (f *File) ServerSettings(srv Server) (Settings, error) {
	if _, _, err := srv.series(); err != nil {
		return Defaults(), err
	}
	return f.settingsOver(srv.Defaults(), srv.Groups())
}

// Set applies one option to s as if "key=value" were the next line of the file,
// prefixes and all: Set("innodb_thread_concurrency", "8"),
// Set("skip-thread-priority", ""); an empty value is a bare key. It is how a
// command line varies one setting of a my.cnf. A key innosim does not model is
// an error here (a typo on a command line should not pass silently), as is a
// bad value; both wrap ErrInvalidConfig. On error s is unchanged.
func (s *Settings) Set(key, value string) error {
	if err := checkKey(key); err != nil {
		return fmt.Errorf("mycnf: %w: %w", err, ErrInvalidConfig)
	}
	k, v, hasValue := resolve(normalize(key), value, value != "")
	if k == nil {
		if near := nearestKey(normalize(key)); near != "" {
			return fmt.Errorf("mycnf: %s is not a modelled option (did you mean %s?): %w", key, near, ErrInvalidConfig)
		}
		return fmt.Errorf("mycnf: %s is not a modelled option (want one of %s): %w", key, strings.Join(Keys(), ", "), ErrInvalidConfig)
	}
	t := *s
	if err := k.set(&t, v, hasValue); err != nil {
		return fmt.Errorf("mycnf: %w", err)
	}
	t.from[keyIndex(k.name)] = Pos{File: "Set"}
	*s = t
	return nil
}

// Keys returns the MySQL names of the options Settings models, with
// underscores, in the order of the Settings fields.
func Keys() []string {
	out := make([]string, len(keys))
	for i := range keys {
		out[i] = keys[i].name
	}
	return out
}

// Validate checks every field against its MySQL range and returns the joined
// errors, each wrapping ErrInvalidConfig and naming the field, the variable
// and the range, e.g. "mycnf: ReadIOThreads = 0, want 1..64
// (innodb_read_io_threads): invalid config". Settings from Defaults or
// File.Settings are always valid.
func (s Settings) Validate() error {
	var errs []error
	for i := range keys {
		k := &keys[i]
		var v int64
		var shown string
		switch p := k.field(&s).(type) {
		case *bool:
			continue
		case *string:
			if !slices.Contains(k.enum, *p) {
				errs = append(errs, fmt.Errorf("mycnf: %s = %q, want %s (%s): %w", k.goName, *p, k.want(), k.name, ErrInvalidConfig))
			}
			continue
		case *int:
			v, shown = int64(*p), fmt.Sprint(*p)
		case *int64:
			v, shown = *p, fmt.Sprint(*p)
		case *time.Duration:
			lo, hi := time.Duration(k.min)*k.unitOf(), time.Duration(k.max)*k.unitOf()
			if *p < lo || *p > hi || k.per != 0 && *p%k.per != 0 {
				errs = append(errs, fmt.Errorf("mycnf: %s = %v, want %v..%v (%s): %w", k.goName, *p, lo, hi, k.name, ErrInvalidConfig))
			}
			continue
		}
		if v == 0 && k.auto != "" {
			continue // the default: what auto says
		}
		if err := k.check(v); err != nil {
			errs = append(errs, fmt.Errorf("mycnf: %s = %s, want %s (%s): %w", k.goName, shown, k.want(), k.name, ErrInvalidConfig))
		}
	}
	return errors.Join(errs...)
}

// resolve finds the modelled key an option sets, stripping MySQL's special
// prefixes as my_handle_options in mysys/my_getopt.cc does: the name is looked
// up as written first (so an option whose own name starts with skip- is found),
// then with one prefix removed at a time; the last prefix removed decides the
// value. It returns nil for an option innosim does not model.
//
// MySQL 5.1's old form "set-variable = name=value" is read as "name=value".
func resolve(name, value string, hasValue bool) (k *key, _ string, _ bool) {
	if name == "set_variable" && hasValue {
		if n, v, ok := strings.Cut(value, "="); ok {
			name, value = normalize(trimSpace(n)), trimSpace(v)
		}
	}
	prefix := ""
	for {
		if k = lookup(name); k != nil {
			break
		}
		stripped := false
		for _, p := range [...]string{"skip", "disable", "enable", "loose"} {
			if rest, ok := strings.CutPrefix(name, p+"_"); ok {
				name, prefix, stripped = rest, p, true
				break
			}
		}
		if !stripped {
			return nil, "", false
		}
	}
	// "=0" after a negating prefix is a double negation, as in my_getopt.
	zero := hasValue && value == "0"
	switch prefix {
	case "skip", "disable":
		value, hasValue = "0", true
		if zero {
			value = "1"
		}
	case "enable":
		value, hasValue = "1", true
		if zero {
			value = "0"
		}
	}
	return k, value, hasValue
}
