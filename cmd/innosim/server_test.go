package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/innosim/innosim/sim"
)

// pool-of-threads is MariaDB's and Percona Server's; a MySQL server used to
// be simulated with a thread pool it does not have, from the flag, a -vary
// or the option file alike.
func TestRunRefusesPoolOfThreadsForMySQL(t *testing.T) {
	cnf := filepath.Join(t.TempDir(), "my.cnf")
	if err := os.WriteFile(cnf, []byte("[mysqld]\nthread_handling=pool-of-threads\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	base := []string{"run", "--workload", "connect", "--threads", "1", "--cpus", "1", "--measure", "1ms"}
	for name, args := range map[string][]string{
		"flag, default server":   {"--thread-handling", "pool-of-threads"},
		"flag, mysql-8.0":        {"--server", "mysql-8.0", "--thread-handling", "pool-of-threads"},
		"vary":                   {"--server", "mysql-5.7", "--vary", "thread_handling=one-thread-per-connection,pool-of-threads"},
		"option file, mysql":     {"--server", "mysql", "--cnf", cnf},
		"option file, mysql-5.5": {"--server", "mysql-5.5", "--cnf", cnf},
	} {
		t.Run(name, func(t *testing.T) {
			code, _, stderr := runCmd(append(base, args...)...)
			assert.Equal(t, 2, code, stderr)
			assert.Contains(t, stderr, "thread_handling = pool-of-threads with -server mysql")
			assert.Contains(t, stderr, "MySQL has no pool-of-threads (MariaDB and Percona Server have it): want -server mariadb")
		})
	}
	code, _, stderr := runCmd(append(base, "--server", "mariadb-10.5", "--cnf", cnf)...)
	assert.Equal(t, 0, code, "MariaDB has it: %s", stderr)
}

// -server RELEASE used to choose only the option groups: every release ran
// with no wait array and 5000 tickets.
func TestRunServerReleaseSetsItsWaitArrayAndTickets(t *testing.T) {
	tests := []struct {
		server  string
		array   sim.SyncArray
		tickets int64
	}{
		{"mysql", sim.SyncArrayNone, 5000},
		{"mysql-5.0", sim.SyncArray50, 500},
		{"mysql-5.1.24", sim.SyncArray50, 500},
		{"mysql-5.5", sim.SyncArray55, 500},
		{"mysql-5.6", sim.SyncArray55, 5000},
		{"mysql-8.4", sim.SyncArray55, 5000},
		{"mariadb-10.5", sim.SyncArray55, 5000},
		{"mariadb-10.6", sim.SyncArrayNone, 5000},
		{"mariadb-11.4", sim.SyncArrayNone, 5000},
	}
	for _, tt := range tests {
		t.Run(tt.server, func(t *testing.T) {
			s, err := readCnf("", tt.server, false, io.Discard)
			require.NoError(t, err)
			s.ThreadConcurrency = 8
			if strings.HasPrefix(tt.server, "mariadb-1") && tt.array == sim.SyncArrayNone {
				s.ThreadConcurrency = 0 // removed in 10.6
			}
			c, err := buildCell(runFlags{workload: "oltp_read_only", server: tt.server, sched: "cfs", profile: "old-kernel", gate: "queue"}, s, "")
			require.NoError(t, err)
			assert.Equal(t, tt.array, c.Machine.SyncArray)
			if c.Gate != nil {
				assert.Equal(t, tt.tickets, c.Gate.Config.Tickets)
			}
		})
	}
}

func TestRunRefusesAnUnknownRelease(t *testing.T) {
	for server, want := range map[string]string{
		"mysql-6.0":    "-server mysql-6.0: not a release innosim knows: want mysql-X.Y with X.Y one of 5.0, 5.1, 5.5, 5.6, 5.7, 8.0, 8.1, 8.2, 8.3, 8.4, or mysql of no version",
		"mariadb-12.0": "-server mariadb-12.0: not a release innosim knows: want mariadb-X.Y with X.Y one of 5.5, 10.0, ",
	} {
		code, _, stderr := runCmd("run", "--workload", "connect", "--threads", "1", "--cpus", "1", "--measure", "1ms", "--server", server)
		assert.Equal(t, 2, code, server)
		assert.Contains(t, stderr, want)
	}
}

// MySQL 5.0 and 5.1 have no native AIO (innodb_use_native_aio came with
// InnoDB 1.1 in MySQL 5.5): -aio native, -vary aio=...,native or the option
// file's innodb_use_native_aio = ON simulated an io_uring path for them.
func TestRunRefusesNativeAIOBefore55(t *testing.T) {
	cnf := filepath.Join(t.TempDir(), "my.cnf")
	if err := os.WriteFile(cnf, []byte("[mysqld]\ninnodb_use_native_aio=1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	base := []string{"run", "--workload", "oltp_insert", "--threads", "1", "--cpus", "1", "--measure", "1ms"}
	for name, tt := range map[string]struct {
		args []string
		want string
	}{
		"flag":        {[]string{"--server", "mysql-5.1", "--aio", "native"}, "-aio native with -server mysql-5.1"},
		"vary":        {[]string{"--server", "mysql-5.0", "--vary", "aio=simulated,native"}, "-aio native with -server mysql-5.0"},
		"option file": {[]string{"--server", "mysql-5.1.24", "--cnf", cnf}, "innodb_use_native_aio = ON with -server mysql-5.1.24"},
	} {
		t.Run(name, func(t *testing.T) {
			code, stdout, stderr := runCmd(append(base, tt.args...)...)
			assert.Equal(t, 2, code, stderr)
			assert.Contains(t, stderr, tt.want)
			assert.Contains(t, stderr, "native AIO came with MySQL 5.5 (InnoDB 1.1); before it InnoDB has simulated AIO only: want -aio simulated")
			assert.Empty(t, stdout)
		})
	}
	for _, server := range []string{"mysql-5.1", "mysql-5.5"} {
		code, _, stderr := runCmd(append(base, "--server", server)...)
		assert.Equal(t, 0, code, "%s with its default AIO: %s", server, stderr)
	}
	code, _, stderr := runCmd(append(base, "--server", "mysql-5.5", "--aio", "native")...)
	assert.Equal(t, 0, code, "5.5 has native AIO: %s", stderr)
}

// MySQL 5.0 and 5.1 default to innodb_thread_concurrency = 8; a workload that
// never enters InnoDB's gate (connect, the mutex loads) then failed on every
// such server with "want no Gate", for a value the user never set. The
// default is left out of such a cell; a value the user sets is still refused.
func TestRunOldReleaseDefaultGateWithAWorkloadWithoutGate(t *testing.T) {
	base := []string{"run", "--threads", "1", "--cpus", "2", "--measure", "1ms"}
	for _, w := range []string{"connect", "mutex_wake_all"} {
		for _, server := range []string{"mysql-5.0", "mysql-5.1"} {
			code, _, stderr := runCmd(append(base, "--workload", w, "--server", server)...)
			assert.Equal(t, 0, code, "%s on %s: %s", w, server, stderr)
		}
	}
	code, _, stderr := runCmd(append(base, "--workload", "connect", "--server", "mysql-5.1", "--vary", "innodb_thread_concurrency=0,8")...)
	assert.Equal(t, 2, code, stderr)
	assert.Contains(t, stderr, "never enters InnoDB's gate")
	s, err := readCnf("", "mysql-5.1", false, io.Discard)
	require.NoError(t, err)
	c, err := buildCell(runFlags{workload: "oltp_read_only", server: "mysql-5.1", sched: "cfs", profile: "old-kernel", gate: "queue"}, s, "")
	require.NoError(t, err)
	require.NotNil(t, c.Gate, "a workload that enters the gate keeps 5.1's default limit")
	assert.Equal(t, 8, c.Gate.Config.Limit)
}

// -cpus 1024 with the pool failed per cell, as "cell 1 of 2", with advice
// to give ThreadPoolSize, which no run flag sets. MariaDB 5.5 to 10.1's pool
// takes 128 groups (threadpool_unix.cc), later ones 100,000, and the pool has
// a group per CPU by default: -server mariadb-5.5 with -cpus 256 is refused
// before any cell, naming -cpus, where the pool came from, the release and
// the range; -server mariadb takes the 256 groups.
func TestRunRefusesMoreCPUsThanThePoolTakesGroups(t *testing.T) {
	cnf := filepath.Join(t.TempDir(), "my.cnf")
	require.NoError(t, os.WriteFile(cnf, []byte("[mariadb]\nthread_handling = pool-of-threads\n"), 0o644))
	for _, tt := range []struct {
		args []string
		from string
	}{
		{[]string{"--thread-handling", "pool-of-threads"}, "-thread-handling pool-of-threads"},
		{[]string{"--thread-handling", "pool-of-threads", "--client", "on"}, "-thread-handling pool-of-threads"},
		{[]string{"--vary", "thread_handling=one-thread-per-connection,pool-of-threads"}, "-vary thread_handling=pool-of-threads"},
		{[]string{"--cnf", cnf}, "thread_handling = pool-of-threads at " + cnf + ":2"},
	} {
		args := append([]string{"run", "--workload", "oltp_point_select", "--cpus", "2,256", "--threads", "1", "--measure", "1ms", "--warmup", "1ms"}, tt.args...)
		code, stdout, stderr := runCmd(append(args, "--server", "mariadb-5.5")...)
		assert.Equal(t, 2, code, tt.args)
		assert.Empty(t, stdout, tt.args)
		assert.Contains(t, stderr, "-cpus 256 with pool-of-threads ("+tt.from+") and -server mariadb-5.5", tt.args)
		assert.Contains(t, stderr, "want -cpus 1..128 with pool-of-threads", tt.args)
		assert.NotContains(t, stderr, "cell ", tt.args)
		code, _, stderr = runCmd(append(args, "--server", "mariadb-10.11")...)
		assert.Equal(t, 0, code, "%v: 10.11's pool takes 256 groups: %s", tt.args, stderr)
	}
}
