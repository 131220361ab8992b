package mycnf

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func settingsOf(t *testing.T, in string, groups ...string) (Settings, error) {
	t.Helper()
	f, err := Parse(strings.NewReader(in), "my.cnf")
	require.NoError(t, err)
	return f.Settings(groups...)
}

func TestDefaultsAreMySQLs(t *testing.T) {
	d := Defaults()
	assert.Equal(t, Settings{
		ThreadConcurrency:       0,
		ConcurrencyTickets:      5000,
		ThreadSleepDelay:        10 * time.Millisecond,
		AdaptiveMaxSleepDelay:   150 * time.Millisecond,
		CommitConcurrency:       0,
		ReadIOThreads:           4,
		WriteIOThreads:          4,
		UseNativeAIO:            true,
		ReadAheadThreshold:      56,
		BufferPoolSize:          128 << 20,
		PageSize:                16384,
		SpinWaitDelay:           6,
		SpinWaitPauseMultiplier: 50,
		SyncSpinLoops:           30,
		ThreadPriority:          true,
		MaxConnections:          151,
		FlushLogAtTrxCommit:     1,
		ThreadHandling:          "one-thread-per-connection",
		ThreadPoolOversubscribe: 3,
		ThreadPoolStallLimit:    500 * time.Millisecond,
		ThreadPoolMaxThreads:    65536,
	}, d)
	assert.NoError(t, d.Validate())

	s, err := settingsOf(t, "")
	require.NoError(t, err)
	assert.Equal(t, d, s, "an empty file gives the defaults")
}

func TestSettingsReadEachModelledKey(t *testing.T) {
	tests := []struct {
		line  string
		check func(Settings) any
		want  any
	}{
		{"innodb_thread_concurrency=16", func(s Settings) any { return s.ThreadConcurrency }, 16},
		{"thread_handling=pool-of-threads", func(s Settings) any { return s.ThreadHandling }, "pool-of-threads"},
		{"thread-handling = Pool-Of-Threads", func(s Settings) any { return s.ThreadHandling }, "pool-of-threads"},
		{"innodb_concurrency_tickets=4294967295", func(s Settings) any { return s.ConcurrencyTickets }, int64(4294967295)},
		{"innodb_thread_sleep_delay=250", func(s Settings) any { return s.ThreadSleepDelay }, 250 * time.Microsecond},
		{"innodb_thread_sleep_delay=0", func(s Settings) any { return s.ThreadSleepDelay }, time.Duration(0)},
		{"innodb_adaptive_max_sleep_delay=1000000", func(s Settings) any { return s.AdaptiveMaxSleepDelay }, time.Second},
		{"innodb_commit_concurrency=3", func(s Settings) any { return s.CommitConcurrency }, 3},
		{"innodb_read_io_threads=64", func(s Settings) any { return s.ReadIOThreads }, 64},
		{"innodb_write_io_threads = 1", func(s Settings) any { return s.WriteIOThreads }, 1},
		{"innodb_use_native_aio=OFF", func(s Settings) any { return s.UseNativeAIO }, false},
		{"innodb_read_ahead_threshold=0", func(s Settings) any { return s.ReadAheadThreshold }, 0},
		{"innodb_page_size=4K", func(s Settings) any { return s.PageSize }, int64(4096)},
		{"innodb_buffer_pool_size=4G", func(s Settings) any { return s.BufferPoolSize }, int64(4 << 30)},
		{"innodb_page_size=65536", func(s Settings) any { return s.PageSize }, int64(65536)},
		{"innodb_spin_wait_delay=0", func(s Settings) any { return s.SpinWaitDelay }, 0},
		{"innodb_spin_wait_pause_multiplier=100", func(s Settings) any { return s.SpinWaitPauseMultiplier }, 100},
		{"innodb_sync_spin_loops=0", func(s Settings) any { return s.SyncSpinLoops }, int64(0)},
		{"skip-thread-priority", func(s Settings) any { return s.ThreadPriority }, false},
		{"max_connections=4000", func(s Settings) any { return s.MaxConnections }, 4000},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			s, err := settingsOf(t, "[mysqld]\n"+tt.line+"\n")
			require.NoError(t, err)
			assert.Equal(t, tt.want, tt.check(s))
			assert.Empty(t, s.Unknown)
		})
	}
}

func TestSettingsApplyPrefixesAsMyGetopt(t *testing.T) {
	tests := []struct {
		name       string
		line       string
		priority   bool
		nativeAIO  bool
		concurrent int
	}{
		{"bare boolean is on", "thread_priority", true, true, 0},
		{"skip- turns off", "skip-thread-priority", false, true, 0},
		{"skip_ with underscores", "skip_thread_priority", false, true, 0},
		{"disable- turns off", "disable-innodb-use-native-aio", true, false, 0},
		{"enable- turns on", "enable-innodb_use_native_aio", true, true, 0},
		{"skip-X=0 is a double negation", "skip-thread-priority=0", true, true, 0},
		{"skip-X=1 still turns off", "skip-thread-priority=1", false, true, 0},
		{"skip-X=OFF turns off (only 0 negates)", "skip-thread-priority=OFF", false, true, 0},
		{"enable-X=0 turns off", "enable-innodb-use-native-aio=0", true, false, 0},
		{"loose- is optional but applies", "loose-innodb-thread-concurrency=8", true, true, 8},
		{"loose-skip- combines", "loose-skip-thread-priority", false, true, 0},
		{"skip- on a number sets 0", "skip-innodb-thread-concurrency", true, true, 0},
		{"enable- on a number sets 1", "enable-innodb-thread-concurrency", true, true, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := settingsOf(t, "[mysqld]\ninnodb_thread_concurrency=4\n"+tt.line+"\n")
			require.NoError(t, err)
			assert.Equal(t, tt.priority, s.ThreadPriority, "ThreadPriority")
			assert.Equal(t, tt.nativeAIO, s.UseNativeAIO, "UseNativeAIO")
			if strings.Contains(tt.line, "concurrency") {
				assert.Equal(t, tt.concurrent, s.ThreadConcurrency, "ThreadConcurrency")
			}
		})
	}
}

func TestSettingsLaterLinesWinAndGroupsSelect(t *testing.T) {
	in := `[client]
innodb_read_io_threads=2
[mysqld]
innodb_read_io_threads=8
[MYSQLD]
innodb-read-io-threads=16
[server]
innodb_write_io_threads=12
[mysqld-8.0]
innodb_write_io_threads=3
`
	s, err := settingsOf(t, in)
	require.NoError(t, err)
	assert.Equal(t, 16, s.ReadIOThreads, "the last [mysqld] line wins; group names ignore case")
	assert.Equal(t, 12, s.WriteIOThreads, "[server] is read by default, [mysqld-8.0] is not")

	s, err = settingsOf(t, in, "client")
	require.NoError(t, err)
	assert.Equal(t, 2, s.ReadIOThreads)
	assert.Equal(t, 4, s.WriteIOThreads)

	s, err = settingsOf(t, in, "mysqld", "mysqld-8.0")
	require.NoError(t, err)
	assert.Equal(t, 3, s.WriteIOThreads)
}

func TestSettingsListUnknownKeys(t *testing.T) {
	s, err := settingsOf(t, `[mysqld]
innodb_file_per_table
skip-name-resolve
loose-rpl_semi_sync_master_enabled=1
INNODB_READ_IO_THREADS=8
maximum-innodb-thread-concurrency=10
innodb_read_io_threads=6
[client]
other=1
`)
	require.NoError(t, err)
	var keys []string
	for _, o := range s.Unknown {
		keys = append(keys, o.Key)
	}
	assert.Equal(t, []string{"innodb_file_per_table", "skip-name-resolve", "loose-rpl_semi_sync_master_enabled", "INNODB_READ_IO_THREADS", "maximum-innodb-thread-concurrency"}, keys,
		"names are case-sensitive as in my_getopt; other groups are not listed")
	assert.Equal(t, 6, s.ReadIOThreads)
	assert.Equal(t, Pos{"my.cnf", 5}, s.Unknown[3].Pos)
}

func TestSettingsRejectBadValues(t *testing.T) {
	tests := []struct {
		line    string
		message string
	}{
		{"innodb_read_io_threads=0", "innodb_read_io_threads = 0, want 1..64"},
		{"innodb_read_io_threads=65", "innodb_read_io_threads = 65, want 1..64"},
		{"innodb_write_io_threads=1K", "innodb_write_io_threads = 1K, want 1..64"},
		{"innodb_thread_concurrency=1001", "innodb_thread_concurrency = 1001, want 0..1000"},
		{"innodb_thread_concurrency=-1", "innodb_thread_concurrency = -1, want 0..1000"},
		{"innodb_concurrency_tickets=0", "innodb_concurrency_tickets = 0, want 1..4294967295"},
		{"innodb_concurrency_tickets=4G", "innodb_concurrency_tickets = 4G, want 1..4294967295"},
		{"innodb_thread_sleep_delay=1000001", "innodb_thread_sleep_delay = 1000001, want 0..1000000 (microseconds)"},
		{"innodb_adaptive_max_sleep_delay=2M", "innodb_adaptive_max_sleep_delay = 2M, want 0..1000000 (microseconds)"},
		{"innodb_page_size=12K", "innodb_page_size = 12K, want a power of two in 4096..65536 (bytes)"},
		{"innodb_page_size=128K", "innodb_page_size = 128K, want a power of two in 4096..65536 (bytes)"},
		{"innodb_spin_wait_delay=1001", "innodb_spin_wait_delay = 1001, want 0..1000"},
		{"innodb_spin_wait_pause_multiplier=101", "innodb_spin_wait_pause_multiplier = 101, want 0..100"},
		{"innodb_sync_spin_loops=-1", "innodb_sync_spin_loops = -1, want 0..10000, innosim's limit (MySQL allows up to 4294967295)"},
		// MySQL takes it; the simulator does not, and used to refuse it with
		// no file and line.
		{"innodb_sync_spin_loops=10001", "innodb_sync_spin_loops = 10001, want 0..10000, innosim's limit (MySQL allows up to 4294967295)"},
		// a control byte in a value is quoted, never echoed to a terminal
		{"innodb_read_io_threads=6\x1b[2J5", `innodb_read_io_threads = "6\x1b[2J5" is not an integer`},
		{"max_connections=0", "max_connections = 0, want 1..100000"},
		{"innodb_read_io_threads=four", "innodb_read_io_threads = \"four\" is not an integer"},
		{"innodb_read_io_threads", "innodb_read_io_threads needs a value, want 1..64"},
		{"innodb_read_io_threads=", "innodb_read_io_threads = \"\" is not an integer"},
		{"innodb_use_native_aio=maybe", "innodb_use_native_aio = \"maybe\", want ON, OFF, TRUE, FALSE, 1 or 0"},
		{"skip-innodb-concurrency-tickets", "innodb_concurrency_tickets = 0, want 1..4294967295"},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			s, err := settingsOf(t, "[mysqld]\n\n"+tt.line+"\n")
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrInvalidConfig)
			assert.ErrorContains(t, err, "mycnf: my.cnf:3: "+tt.message)
			var e *Error
			require.True(t, errors.As(err, &e))
			assert.Equal(t, Pos{"my.cnf", 3}, e.Pos)
			assert.NoError(t, s.Validate(), "a rejected value is not stored")
		})
	}
}

func TestSettingsReportEveryBadLineAndKeepTheGoodOnes(t *testing.T) {
	s, err := settingsOf(t, "[mysqld]\ninnodb_read_io_threads=0\ninnodb_write_io_threads=8\ninnodb_thread_concurrency=5000\n")
	require.Error(t, err)
	assert.ErrorContains(t, err, "my.cnf:2: innodb_read_io_threads")
	assert.ErrorContains(t, err, "my.cnf:4: innodb_thread_concurrency")
	assert.Equal(t, 8, s.WriteIOThreads)
	assert.Equal(t, 4, s.ReadIOThreads, "the bad value leaves the default")
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name    string
		change  func(*Settings)
		message string
	}{
		{"read io threads", func(s *Settings) { s.ReadIOThreads = 0 }, "mycnf: ReadIOThreads = 0, want 1..64 (innodb_read_io_threads): invalid config"},
		{"write io threads", func(s *Settings) { s.WriteIOThreads = 65 }, "WriteIOThreads = 65, want 1..64 (innodb_write_io_threads)"},
		{"tickets", func(s *Settings) { s.ConcurrencyTickets = 1 << 32 }, "ConcurrencyTickets = 4294967296, want 1..4294967295"},
		{"sleep delay", func(s *Settings) { s.ThreadSleepDelay = time.Second + time.Nanosecond }, "ThreadSleepDelay = 1.000000001s, want 0s..1s (innodb_thread_sleep_delay)"},
		{"negative sleep", func(s *Settings) { s.AdaptiveMaxSleepDelay = -time.Millisecond }, "AdaptiveMaxSleepDelay = -1ms, want 0s..1s"},
		{"page size", func(s *Settings) { s.PageSize = 10000 }, "PageSize = 10000, want a power of two in 4096..65536 (bytes) (innodb_page_size)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Defaults()
			tt.change(&s)
			err := s.Validate()
			assert.ErrorIs(t, err, ErrInvalidConfig)
			assert.ErrorContains(t, err, tt.message)
		})
	}
}

func TestSettingsReadMySQL51SetVariable(t *testing.T) {
	s, err := settingsOf(t, "[mysqld]\nset-variable = innodb_thread_concurrency = 8\nset-variable=innodb-read-io-threads=2\nset-variable = other=1\n")
	require.NoError(t, err)
	assert.Equal(t, 8, s.ThreadConcurrency)
	assert.Equal(t, 2, s.ReadIOThreads)
	require.Len(t, s.Unknown, 1)
	assert.Equal(t, "other=1", s.Unknown[0].Value)
}

func TestSet(t *testing.T) {
	tests := []struct {
		name    string
		key     string
		value   string
		check   func(Settings) any
		want    any
		wantErr string
	}{
		{"a number", "innodb_thread_concurrency", "8", func(s Settings) any { return s.ThreadConcurrency }, 8, ""},
		{"dashes", "innodb-write-io-threads", "16", func(s Settings) any { return s.WriteIOThreads }, 16, ""},
		{"a duration in microseconds", "innodb_thread_sleep_delay", "500", func(s Settings) any { return s.ThreadSleepDelay }, 500 * time.Microsecond, ""},
		{"a prefix with an empty value", "skip-thread-priority", "", func(s Settings) any { return s.ThreadPriority }, false, ""},
		{"a boolean word", "innodb_use_native_aio", "off", func(s Settings) any { return s.UseNativeAIO }, false, ""},
		{"out of range", "innodb_read_io_threads", "100", func(s Settings) any { return s.ReadIOThreads }, 4, "mycnf: innodb_read_io_threads = 100, want 1..64: invalid config"},
		{"a size under MySQL's minimum", "innodb_buffer_pool_size", "1M", func(s Settings) any { return s.BufferPoolSize }, int64(128 << 20), "mycnf: innodb_buffer_pool_size = 1M, want 5242880..9223372036854775807 (bytes): invalid config"},
		{"a number without a value", "innodb_read_io_threads", "", func(s Settings) any { return s.ReadIOThreads }, 4, "innodb_read_io_threads needs a value"},
		{"a misspelt key", "innodb_thread_concurency", "8", func(s Settings) any { return s.ThreadConcurrency }, 0, "innodb_thread_concurency is not a modelled option (did you mean innodb_thread_concurrency?)"},
		{"an unknown key", "innodb_log_file_size", "8", func(s Settings) any { return s.ThreadConcurrency }, 0, "innodb_log_file_size is not a modelled option (want one of innodb_thread_concurrency, "},
		{"a malformed key", "a b", "8", func(s Settings) any { return s.ThreadConcurrency }, 0, "space in option name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Defaults()
			err := s.Set(tt.key, tt.value)
			if tt.wantErr != "" {
				assert.ErrorIs(t, err, ErrInvalidConfig)
				assert.ErrorContains(t, err, tt.wantErr)
				assert.Equal(t, Defaults(), s, "unchanged on error")
			} else {
				assert.NoError(t, err)
			}
			assert.Equal(t, tt.want, tt.check(s))
		})
	}
}

func TestKeysAreTheModelledOptions(t *testing.T) {
	ks := Keys()
	assert.Len(t, ks, 22)
	assert.Equal(t, "innodb_thread_concurrency", ks[0])
	s := Defaults()
	for _, k := range ks {
		assert.Nil(t, s.Unknown)
		f, err := Parse(strings.NewReader("[mysqld]\n"+k+"=1\n"), "k.cnf")
		require.NoError(t, err)
		got, _ := f.Settings()
		assert.Empty(t, got.Unknown, "%s is modelled", k)
	}
}
