package mycnf

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// liveReference is where the shared reference studies live, relative to this
// package's directory in the innosim work tree. Outside it (a fresh clone) the
// copies in testdata are what is tested.
const liveReference = "../../shared/reference"

func TestReferenceConfigurationsParse(t *testing.T) {
	tests := []struct {
		file    string
		check   func(t *testing.T, s Settings)
		unknown int
	}{
		{
			file: "study_a_my.cnf",
			check: func(t *testing.T, s Settings) {
				assert.Equal(t, 0, s.ThreadConcurrency)
				assert.True(t, s.ThreadPriority, "study A's server changed priorities: no skip-thread-priority")
				assert.Equal(t, 4, s.ReadIOThreads)
				assert.Equal(t, 1, s.FlushLogAtTrxCommit)
				assert.Equal(t, int64(4096)<<20, s.BufferPoolSize)
			},
			unknown: 8, // 11 options, of which innosim models innodb_thread_concurrency, innodb_buffer_pool_size and innodb_flush_log_at_trx_commit
		},
		{
			file: "study_d_my.cnf",
			check: func(t *testing.T, s Settings) {
				assert.Equal(t, 16, s.ReadIOThreads)
				assert.Equal(t, 16, s.WriteIOThreads)
				assert.Equal(t, 0, s.ThreadConcurrency)
				assert.Equal(t, 6, s.SpinWaitDelay)
				assert.True(t, s.UseNativeAIO)
				assert.Equal(t, 4000, s.MaxConnections)
				assert.Equal(t, 10*time.Millisecond, s.ThreadSleepDelay)
			},
			unknown: 40, // 47 options, of which innosim models seven
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			f, err := ParseFile(filepath.Join("testdata", tt.file))
			require.NoError(t, err)
			s, err := f.Settings()
			require.NoError(t, err)
			tt.check(t, s)
			assert.Len(t, s.Unknown, tt.unknown)

			live := filepath.Join(liveReference, tt.file)
			data, err := os.ReadFile(live)
			if os.IsNotExist(err) {
				t.Logf("%s not present; tested the copy only", live)
				return
			}
			require.NoError(t, err)
			copied, err := os.ReadFile(filepath.Join("testdata", tt.file))
			require.NoError(t, err)
			_, body, _ := bytes.Cut(copied, []byte("\n"))
			assert.Equal(t, string(data), string(body), "testdata copy is stale: refresh it from %s", live)
			lf, err := ParseFile(live)
			require.NoError(t, err)
			ls, err := lf.Settings()
			require.NoError(t, err)
			tt.check(t, ls)
		})
	}
}

func TestStudyDValuesReadAsWritten(t *testing.T) {
	f, err := ParseFile("testdata/study_d_my.cnf")
	require.NoError(t, err)
	o, ok := f.Lookup("mysqld", "innodb_monitor_enable")
	require.True(t, ok)
	assert.Equal(t, "%", o.Value, "quotes removed")
	o, ok = f.Lookup("mysqld", "skip-character-set-client-handshake")
	require.True(t, ok)
	assert.False(t, o.HasValue)
	_, ok = f.Lookup("mysqld", "innodb_log_buffer_size")
	require.True(t, ok)
	o, _ = f.Lookup("mysqld", "innodb_log_buffer_size")
	assert.Equal(t, "64M", o.Value, "the commented-out 24M line is not read")

	a, err := ParseFile("testdata/study_a_my.cnf")
	require.NoError(t, err)
	o, ok = a.Lookup("mysqld", "innodb_data_file_path")
	require.True(t, ok)
	assert.Equal(t, "ibdata1:2000M;ibdata2:100M:autoextend", o.Value, "';' inside a value is data")
	o, _ = a.Lookup("mysqld", "innodb_flush_log_at_trx_commit")
	assert.Equal(t, "1", o.Value)
}
