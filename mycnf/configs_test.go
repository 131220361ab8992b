package mycnf

import (
	"errors"
	"testing"
	"time"

	"github.com/innosim/innosim/aio"
	"github.com/innosim/innosim/concurrency"
	"github.com/innosim/innosim/prio"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestConfigsFromTheReferenceStudies(t *testing.T) {
	tests := []struct {
		file           string
		read, write    int
		limit          int
		policy         prio.Policy
		sleep, adaptMx time.Duration
	}{
		{"study_a_my.cnf", 4, 4, 0, prio.PolicyLegacy, 10 * time.Millisecond, 150 * time.Millisecond},
		{"study_d_my.cnf", 16, 16, 0, prio.PolicyLegacy, 10 * time.Millisecond, 150 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			f, err := ParseFile("testdata/" + tt.file)
			require.NoError(t, err)
			s, err := f.Settings()
			require.NoError(t, err)

			ac, err := s.AIOConfig()
			require.NoError(t, err)
			assert.Equal(t, tt.read, ac.ReadSegments)
			assert.Equal(t, tt.write, ac.WriteSegments)
			assert.Equal(t, int64(16384), ac.PageSize)
			_, err = aio.NewCore(ac)
			assert.NoError(t, err, "aio accepts the config")

			cc, err := s.ConcurrencyConfig()
			require.NoError(t, err)
			assert.Equal(t, tt.limit, cc.Limit)
			assert.Equal(t, int64(5000), cc.Tickets)
			assert.Equal(t, tt.sleep, cc.SleepDelay)
			assert.Equal(t, tt.adaptMx, cc.AdaptiveMaxSleepDelay)
			_, err = concurrency.NewQueueCore(cc)
			assert.NoError(t, err, "concurrency accepts the config")

			pc := s.PrioConfig()
			assert.Equal(t, tt.policy, pc.Policy)
			_, err = prio.New(pc)
			assert.NoError(t, err)
		})
	}
}

func TestConfigsCarryEveryModelledValue(t *testing.T) {
	s, err := settingsOf(t, `[mysqld]
innodb_read_io_threads=2
innodb_write_io_threads=64
innodb_page_size=4K
innodb_thread_concurrency=8
innodb_concurrency_tickets=500
innodb_thread_sleep_delay=0
innodb_adaptive_max_sleep_delay=1000000
skip-thread-priority
`)
	require.NoError(t, err)
	ac, err := s.AIOConfig()
	require.NoError(t, err)
	want := aio.DefaultConfig()
	want.ReadSegments, want.WriteSegments, want.PageSize = 2, 64, 4096
	want.IO, want.Wake = aio.IONative, aio.WakeTargeted // innodb_use_native_aio defaults to on
	assert.Equal(t, want, ac)
	_, err = aio.NewCore(ac)
	assert.NoError(t, err, "aio accepts the native config")

	cc, err := s.ConcurrencyConfig()
	require.NoError(t, err)
	assert.Equal(t, concurrency.Config{Limit: 8, Tickets: 500, SleepDelay: 0, AdaptiveMaxSleepDelay: time.Second,
		Starvation: concurrency.DefaultStarvation}, cc) // no my.cnf setting for it: DefaultConfig's
	_, err = concurrency.NewAtomicCore(cc)
	assert.NoError(t, err)

	assert.Equal(t, prio.Config{Policy: prio.PolicyOff}, s.PrioConfig())
}

// innodb_use_native_aio chooses aio.Config.IO: off is simulated AIO with
// MySQL's WakeAll, on is native AIO, whose requests reach the kernel as they
// are reserved (WakeTargeted).
func TestAIOConfigFollowsUseNativeAIO(t *testing.T) {
	for _, tt := range []struct {
		val  string
		io   aio.IOMode
		wake aio.WakePolicy
	}{
		{"0", aio.IOSimulated, aio.WakeAll},
		{"OFF", aio.IOSimulated, aio.WakeAll},
		{"1", aio.IONative, aio.WakeTargeted},
		{"ON", aio.IONative, aio.WakeTargeted},
	} {
		s, err := settingsOf(t, "[mysqld]\ninnodb_use_native_aio="+tt.val+"\n")
		require.NoError(t, err)
		ac, err := s.AIOConfig()
		require.NoError(t, err)
		assert.Equal(t, tt.io, ac.IO, tt.val)
		assert.Equal(t, tt.wake, ac.Wake, tt.val)
	}
}

func TestConfigsRefuseInvalidSettings(t *testing.T) {
	s := Defaults()
	s.WriteIOThreads = 0
	_, err := s.AIOConfig()
	assert.ErrorIs(t, err, ErrInvalidConfig)
	assert.ErrorContains(t, err, "WriteIOThreads = 0, want 1..64")

	s = Defaults()
	s.ThreadConcurrency = 1001
	_, err = s.ConcurrencyConfig()
	assert.ErrorIs(t, err, ErrInvalidConfig)
	assert.ErrorContains(t, err, "ThreadConcurrency = 1001, want 0..1000")
	assert.False(t, errors.Is(err, concurrency.ErrInvalidConfig), "rejected before concurrency sees it")
}
