package mycnf

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// MariaDB's thread pool options are read from an option file: no warning
// for them, their values in Settings (stall limit in milliseconds), and the
// pool options innosim does not model still warned of.
func TestPoolOptionsAreReadFromAnOptionFile(t *testing.T) {
	const cnf = `[mariadb]
thread_handling = pool-of-threads
thread_pool_size = 4
loose-thread-pool-stall-limit = 100
thread_pool_max_threads = 500
thread_pool_oversubscribe = 10
thread_pool_idle_timeout = 60
`
	f, err := Parse(strings.NewReader(cnf), "my.cnf")
	require.NoError(t, err)
	srv := Server{Product: MariaDB, Version: "10.6"}
	var got []string
	for _, w := range f.Warnings(srv) {
		got = append(got, w.String())
	}
	assert.Equal(t, []string{"my.cnf:7: [mariadb] thread_pool_idle_timeout: not an option innosim models; it has no effect"}, got)
	s, err := f.ServerSettings(srv)
	require.NoError(t, err)
	assert.Equal(t, 4, s.ThreadPoolSize)
	assert.Equal(t, 100*time.Millisecond, s.ThreadPoolStallLimit)
	assert.Equal(t, 500, s.ThreadPoolMaxThreads)
	assert.Equal(t, 10, s.ThreadPoolOversubscribe)
	assert.NoError(t, s.Validate())
}

func TestWarningsNameOptionsThatDoNothing(t *testing.T) {
	const cnf = `[mysqld]
innodb_thred_concurrency = 8
loose-innodb-sync-spin-loop = 5
datadir = /var/lib/mysql
innodb_read_io_threads = 8
[mariadb]
innodb_write_io_threads = 2
wsrep_on = ON
[client]
port = 3306
[mysqld-5.7]
max_connections = 10
`
	f, err := Parse(strings.NewReader(cnf), "my.cnf")
	require.NoError(t, err)
	var got []string
	for _, w := range f.Warnings(Server{Product: MySQL, Version: "8.0"}) {
		got = append(got, w.String())
	}
	assert.Equal(t, []string{
		"my.cnf:2: [mysqld] innodb_thred_concurrency: not an option innosim models; it has no effect (did you mean innodb_thread_concurrency?)",
		"my.cnf:3: [mysqld] loose-innodb-sync-spin-loop: not an option innosim models; it has no effect (did you mean innodb_sync_spin_loops?)",
		"my.cnf:4: [mysqld] datadir: not an option innosim models; it has no effect",
		"my.cnf:7: [mariadb] innodb_write_io_threads: mysql-8.0 does not read group [mariadb] (it reads [mysqld], [server], [mysqld-8.0]); the option has no effect",
		"my.cnf:12: [mysqld-5.7] max_connections: mysql-8.0 does not read group [mysqld-5.7] (it reads [mysqld], [server], [mysqld-8.0]); the option has no effect",
	}, got)

	ws := f.Warnings(Server{Product: MariaDB})
	require.Len(t, ws, 5, "MariaDB reads [mariadb]: wsrep_on is unmodelled there, innodb_write_io_threads applies")
	assert.Equal(t, "wsrep_on", ws[3].Option.Key)
	assert.Equal(t, "innodb_thread_concurrency", ws[0].Nearest)
	assert.Equal(t, "", ws[2].Nearest, "datadir is near no modelled key")
	var likely []bool
	for _, w := range f.Warnings(Server{Product: MySQL, Version: "8.0"}) {
		likely = append(likely, w.Likely())
	}
	assert.Equal(t, []bool{true, true, false, true, true}, likely, "misspellings and unread groups are likely mistakes; datadir is not")
}

func TestWarningsNameModelledKeysInEveryUnreadGroup(t *testing.T) {
	const cnf = `[mysqd]
innodb_thread_concurrency = 8
[client]
port = 3306
innodb_read_io_threads = 8
[mysqld_safe]
innodb_sync_spin_loops = 5
`
	f, err := Parse(strings.NewReader(cnf), "my.cnf")
	require.NoError(t, err)
	var got []string
	for _, w := range f.Warnings(Server{Product: MySQL, Version: "8.0"}) {
		got = append(got, w.String())
		assert.True(t, w.Likely(), "%s", w)
	}
	assert.Equal(t, []string{
		"my.cnf:2: [mysqd] innodb_thread_concurrency: mysql-8.0 does not read group [mysqd] (it reads [mysqld], [server], [mysqld-8.0]); the option has no effect (did you mean [mysqld]?)",
		"my.cnf:5: [client] innodb_read_io_threads: mysql-8.0 does not read group [client] (it reads [mysqld], [server], [mysqld-8.0]); the option has no effect",
		"my.cnf:7: [mysqld_safe] innodb_sync_spin_loops: mysql-8.0 does not read group [mysqld_safe] (it reads [mysqld], [server], [mysqld-8.0]); the option has no effect",
	}, got, "[client] port is another program's option and is not listed")
}

// A thread_pool_* line in a group MySQL reads drew no warning here, and
// run's warning said MariaDB reads it only with pool-of-threads: MySQL's
// community server has no thread pool at all. It is now a likely mistake,
// said as such; MariaDB's reading of the same file warns of nothing.
func TestWarningsSayMySQLHasNoThreadPool(t *testing.T) {
	const cnf = "[mysqld]\nthread_pool_size = 4\nthread_pool_stall_limit = 60\nmax_connections = 500\n"
	f, err := Parse(strings.NewReader(cnf), "my.cnf")
	require.NoError(t, err)
	ws := f.Warnings(Server{Product: MySQL, Version: "8.0"})
	require.Len(t, ws, 2)
	assert.Equal(t, "my.cnf:2: [mysqld] thread_pool_size: MySQL has no thread pool (thread_pool_size is MariaDB's; MySQL Enterprise's thread pool plugin is not modelled); the option has no effect", ws[0].String())
	assert.Equal(t, "thread_pool_stall_limit", ws[1].Option.Key)
	for _, w := range ws {
		assert.True(t, w.Foreign)
		assert.True(t, w.Likely())
		assert.NotContains(t, w.Message, "only with pool-of-threads")
	}
	assert.Empty(t, f.Warnings(Server{Product: MariaDB, Version: "10.5"}))
}
