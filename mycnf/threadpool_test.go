package mycnf

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The thread pool's keys: their defaults (thread_pool_size's 0 standing for
// the server's CPUs, accepted by Validate but not settable), their ranges in
// MariaDB's units, and Set as -vary uses it.
func TestThreadPoolKeys(t *testing.T) {
	d := Defaults()
	assert.Equal(t, 0, d.ThreadPoolSize)
	assert.Equal(t, 3, d.ThreadPoolOversubscribe)
	assert.Equal(t, 500*time.Millisecond, d.ThreadPoolStallLimit)
	assert.Equal(t, 65536, d.ThreadPoolMaxThreads)
	require.NoError(t, d.Validate())

	for _, srv := range []string{"mariadb-5.5", "mariadb-10.1"} {
		s, err := ParseServer(srv)
		require.NoError(t, err)
		assert.Equal(t, 500, s.Defaults().ThreadPoolMaxThreads, srv)
	}
	s, err := ParseServer("mariadb-10.2")
	require.NoError(t, err)
	assert.Equal(t, 65536, s.Defaults().ThreadPoolMaxThreads)

	var list []string
	for _, st := range d.List() {
		if strings.HasPrefix(st.Key, "thread_pool_") {
			list = append(list, st.Key+"="+st.Value+" "+st.Unit)
		}
	}
	assert.Equal(t, []string{"thread_pool_size=0 ", "thread_pool_oversubscribe=3 ", "thread_pool_stall_limit=500 milliseconds", "thread_pool_max_threads=65536 "}, list)

	require.NoError(t, d.Set("thread_pool_stall_limit", "60"))
	assert.Equal(t, 60*time.Millisecond, d.ThreadPoolStallLimit)
	require.NoError(t, d.Set("thread-pool-size", "18"))
	assert.Equal(t, 18, d.ThreadPoolSize)

	for _, tt := range []struct{ key, value, want string }{
		{"thread_pool_size", "0", "thread_pool_size = 0, want 1..100000 (unset: the server's CPUs)"},
		{"thread_pool_size", "100001", "thread_pool_size = 100001, want 1..100000 (unset: the server's CPUs)"},
		{"thread_pool_oversubscribe", "0", "thread_pool_oversubscribe = 0, want 1..1000"},
		{"thread_pool_stall_limit", "5", "thread_pool_stall_limit = 5, want 10..4294967295 (milliseconds)"},
		{"thread_pool_max_threads", "65537", "thread_pool_max_threads = 65537, want 1..65536"},
	} {
		before := d
		err := d.Set(tt.key, tt.value)
		require.Error(t, err, tt.key)
		assert.True(t, errors.Is(err, ErrInvalidConfig))
		assert.Contains(t, err.Error(), tt.want)
		assert.Equal(t, before, d, "unchanged on error")
	}

	bad := Defaults()
	bad.ThreadPoolStallLimit = 1500 * time.Microsecond
	bad.ThreadPoolSize = -1
	err = bad.Validate()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "ThreadPoolSize = -1, want 1..100000 (unset: the server's CPUs) (thread_pool_size)")
	assert.Contains(t, err.Error(), "ThreadPoolStallLimit = 1.5ms, want 10ms..")
}
