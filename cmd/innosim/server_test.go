package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
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
