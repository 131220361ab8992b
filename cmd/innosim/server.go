package main

import (
	"fmt"

	"github.com/innosim/innosim/mycnf"
	"github.com/innosim/innosim/sim"
)

// checkThreadHandling refuses thread_handling = pool-of-threads for MySQL:
// the value is MariaDB's (and Percona Server's) thread pool; MySQL's mysqld
// has one-thread-per-connection and no-threads, and its Enterprise thread
// pool plugin sets loaded-dynamically.
func checkThreadHandling(srv mycnf.Server, th sim.ThreadHandling) error {
	if srv.Product != mycnf.MySQL || th != sim.PoolOfThreads {
		return nil
	}
	return fmt.Errorf("%w: thread_handling = pool-of-threads with -server %s: MySQL has no pool-of-threads (MariaDB and Percona Server have it): want -server mariadb, or one-thread-per-connection",
		errUsage, srv)
}
