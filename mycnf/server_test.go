package mycnf

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestServerGroups(t *testing.T) {
	tests := []struct {
		server string
		want   []string
	}{
		{"mysql", []string{"mysqld", "server"}},
		{"mysql-5.1", []string{"mysqld", "server", "mysqld-5.1"}},
		{"mysql-8.0.36", []string{"mysqld", "server", "mysqld-8.0"}},
		{"mariadb", []string{"mysqld", "server", "mariadb", "mariadbd", "client-server", "galera"}},
		{"mariadb-10.3", []string{"mysqld", "server", "mysqld-10.3", "mariadb", "mariadb-10.3", "client-server", "galera"}},
		{"MariaDB-10.5", []string{"mysqld", "server", "mysqld-10.5", "mariadb", "mariadb-10.5", "mariadbd", "mariadbd-10.5", "client-server", "galera"}},
		{"mariadb-11.4", []string{"mysqld", "server", "mysqld-11.4", "mariadb", "mariadb-11.4", "mariadbd", "mariadbd-11.4", "client-server", "galera"}},
	}
	for _, tt := range tests {
		t.Run(tt.server, func(t *testing.T) {
			srv, err := ParseServer(tt.server)
			require.NoError(t, err)
			assert.Equal(t, tt.want, srv.Groups())
			assert.Equal(t, strings.ToLower(tt.server), srv.String())
		})
	}
	assert.Equal(t, []string{"mysqld", "server"}, Server{}.Groups(), "the zero Server is mysqld's own groups")
}

func TestParseServerRejects(t *testing.T) {
	for _, s := range []string{"", "postgres", "mysql-8", "mysql-8.x", "mysql-8.0.1.2", "mysql-", "mariadb-10.-1", "mysql-+8.0"} {
		_, err := ParseServer(s)
		assert.ErrorIs(t, err, ErrInvalidConfig, "%q", s)
	}
}

// Study C is a MariaDB study: options under [mariadb] and in a version group
// apply to MariaDB and not to MySQL, where they used to be ignored silently.
func TestServerSettingsReadTheServersGroups(t *testing.T) {
	const cnf = "[mysqld]\ninnodb_read_io_threads=2\n[mariadb]\ninnodb_thread_concurrency=16\n" +
		"[mysqld-5.1]\ninnodb_write_io_threads=3\n[mariadb-10.5]\nmax_connections=500\n[client]\nmax_connections=9\n"
	f, err := Parse(strings.NewReader(cnf), "my.cnf")
	require.NoError(t, err)
	tests := []struct {
		server                    string
		concurrency, write, conns int
	}{
		{"mysql", 0, 4, 151},
		{"mysql-5.1", 8, 3, 151}, // 5.1's own default, not [mariadb]'s 16
		{"mariadb", 16, 4, 151},
		{"mariadb-10.5", 16, 4, 500},
	}
	for _, tt := range tests {
		t.Run(tt.server, func(t *testing.T) {
			srv, err := ParseServer(tt.server)
			require.NoError(t, err)
			s, err := f.ServerSettings(srv)
			require.NoError(t, err)
			assert.Equal(t, 2, s.ReadIOThreads)
			assert.Equal(t, tt.concurrency, s.ThreadConcurrency)
			assert.Equal(t, tt.write, s.WriteIOThreads)
			assert.Equal(t, tt.conns, s.MaxConnections)
		})
	}
}

// A server that never changes thread priorities by default reads
// thread_priority as OFF unless its file says otherwise: mysql-8.0 with an
// empty [mysqld] simulated 5.1's two priority calls per query.
func TestServerDefaultsThreadPriorityByRelease(t *testing.T) {
	for _, tt := range []struct {
		server string
		want   bool
	}{
		{"mysql", true}, {"mysql-5.0", true}, {"mysql-5.1", true}, {"mysql-5.1.24", true}, {"mysql-5.1.28", true},
		{"mysql-5.1.29", false}, {"mysql-5.5", false}, {"mysql-8.0", false}, {"mariadb", false}, {"mariadb-10.3", false},
	} {
		srv, err := ParseServer(tt.server)
		require.NoError(t, err)
		assert.Equal(t, tt.want, srv.Defaults().ThreadPriority, tt.server)
		f, err := Parse(strings.NewReader("[mysqld]\n"), "my.cnf")
		require.NoError(t, err)
		s, err := f.ServerSettings(srv)
		require.NoError(t, err)
		assert.Equal(t, tt.want, s.ThreadPriority, "%s, an empty [mysqld]", tt.server)
		f, err = Parse(strings.NewReader("[mysqld]\nthread_priority=ON\n"), "my.cnf")
		require.NoError(t, err)
		s, err = f.ServerSettings(srv)
		require.NoError(t, err)
		assert.True(t, s.ThreadPriority, "%s: the file's ON wins", tt.server)
	}
}

// A Server whose Product is neither MySQL nor MariaDB (a Product(2) built by
// hand) used to be read as MySQL without a word.
func TestServerSettingsRefusesAnUndefinedProduct(t *testing.T) {
	f, err := Parse(strings.NewReader("[mysqld]\ninnodb_thread_concurrency=8\n"), "my.cnf")
	require.NoError(t, err)
	for _, srv := range []Server{{Product: 2}, {Product: -1, Version: "8.0"}} {
		_, err := f.ServerSettings(srv)
		require.ErrorIs(t, err, ErrInvalidConfig, "%v", srv)
		assert.ErrorContains(t, err, "Server.Product")
		assert.ErrorContains(t, err, "want mycnf.MySQL (0) or mycnf.MariaDB (1)")
		assert.Nil(t, srv.Groups(), "%v reads no groups", srv)
	}
}

// innodb_concurrency_tickets was 500 up to MySQL 5.6.5 and 5000 from 5.6.6
// (the MySQL 5.6 manual's "Changes to Server Defaults"); a server of an older
// release used to get 5000, and 5.6.0-5.6.5 did until the cutover was checked.
func TestServerDefaultsTicketsOfTheRelease(t *testing.T) {
	for server, want := range map[string]int64{
		"mysql": 5000, "mysql-5.0": 500, "mysql-5.1.24": 500, "mysql-5.5": 500, "mysql-5.6": 5000, "mysql-5.6.5": 500, "mysql-5.6.6": 5000, "mysql-5.6.10": 5000, "mysql-8.0": 5000,
		"mariadb": 5000, "mariadb-5.5": 500, "mariadb-10.0": 5000, "mariadb-10.5": 5000,
	} {
		srv, err := ParseServer(server)
		require.NoError(t, err)
		assert.Equal(t, want, srv.Defaults().ConcurrencyTickets, server)
	}
}

// innodb_thread_concurrency defaulted to 8 in MySQL 5.0 and 5.1 and to 0
// from 5.4.0 (WL#4965); a 5.1 server used to run with no gate.
func TestServerDefaultsThreadConcurrencyOfTheRelease(t *testing.T) {
	for server, want := range map[string]int64{
		"mysql": 0, "mysql-5.0": 8, "mysql-5.0.19": 8,
		"mysql-5.1": 8, "mysql-5.1.24": 8, "mysql-5.5": 0, "mysql-8.0": 0, "mariadb-5.5": 0, "mariadb-10.5": 0,
	} {
		srv, err := ParseServer(server)
		require.NoError(t, err)
		assert.Equal(t, want, int64(srv.Defaults().ThreadConcurrency), server)
	}
}

// Linux native AIO came with InnoDB 1.1 in MySQL 5.5 (innodb_use_native_aio);
// the InnoDB of MySQL 5.0 and 5.1, and of MariaDB 5.1 .. 5.3 built on it, has
// only simulated AIO. A 5.1 server used to default to native AIO, so that run
// -server mysql-5.1 simulated an io_uring path that release never had.
func TestServerDefaultsNativeAIOOfTheRelease(t *testing.T) {
	for server, want := range map[string]bool{
		"mysql": true, "mysql-5.0": false, "mysql-5.1": false, "mysql-5.1.49": false, "mysql-5.5": true,
		"mysql-8.0": true, "mariadb": true, "mariadb-5.3": false, "mariadb-5.5": true, "mariadb-10.6": true,
	} {
		srv, err := ParseServer(server)
		require.NoError(t, err)
		assert.Equal(t, want, srv.Defaults().UseNativeAIO, server)
		f, err := Parse(strings.NewReader("[mysqld]\n"), "my.cnf")
		require.NoError(t, err)
		s, err := f.ServerSettings(srv)
		require.NoError(t, err)
		assert.Equal(t, want, s.UseNativeAIO, "%s, an empty [mysqld]", server)
	}
}
