package main

import (
	"fmt"
	"strings"

	"github.com/innosim/innosim/aio"
	"github.com/innosim/innosim/internal/cmdflag"
	"github.com/innosim/innosim/mycnf"
	"github.com/innosim/innosim/sim"
)

// release is a server release series run knows: the way its InnoDB mutexes
// wait, read from that release's source.
type release struct {
	product      mycnf.Product
	major, minor int
	syncArray    sim.SyncArray
}

// releases lists the series -server may name. MySQL 5.0 and 5.1's built-in
// InnoDB count every signal under the wait array's mutex
// (sync_array_object_signalled in sync0arr.c: sim.SyncArray50); the InnoDB
// of 5.5 .. 8.4 (and MariaDB's up to 10.5, whose InnoDB is MySQL 5.5's to
// 5.7's) waits through the array but counts signals with an atomic
// (sim.SyncArray55); MariaDB 10.6 replaced InnoDB's own mutexes and their
// array with pthread mutexes and futex-based srw locks (MDEV-21452), so its
// waits go straight to a futex (sim.SyncArrayNone).
var releases = func() []release {
	var out []release
	for _, v := range [][2]int{{5, 0}, {5, 1}} {
		out = append(out, release{mycnf.MySQL, v[0], v[1], sim.SyncArray50})
	}
	for _, v := range [][2]int{{5, 5}, {5, 6}, {5, 7}, {8, 0}, {8, 1}, {8, 2}, {8, 3}, {8, 4}} {
		out = append(out, release{mycnf.MySQL, v[0], v[1], sim.SyncArray55})
	}
	out = append(out, release{mycnf.MariaDB, 5, 5, sim.SyncArray55})
	for minor := 0; minor <= 11; minor++ {
		arr := sim.SyncArray55
		if minor >= 6 {
			arr = sim.SyncArrayNone
		}
		out = append(out, release{mycnf.MariaDB, 10, minor, arr})
	}
	for minor := 0; minor <= 8; minor++ {
		out = append(out, release{mycnf.MariaDB, 11, minor, sim.SyncArrayNone})
	}
	return out
}()

// syncArrayOf returns the wait array of srv's release: SyncArrayNone for a
// server of no version (the model as before releases were named), and an
// error listing the known series for a release not in releases.
func syncArrayOf(srv mycnf.Server) (sim.SyncArray, error) {
	if srv.Version == "" {
		return sim.SyncArrayNone, nil
	}
	if major, minor, ok := srv.Series(); ok {
		for _, r := range releases {
			if r.product == srv.Product && r.major == major && r.minor == minor {
				return r.syncArray, nil
			}
		}
	}
	var known []string
	for _, r := range releases {
		if r.product == srv.Product {
			known = append(known, fmt.Sprintf("%d.%d", r.major, r.minor))
		}
	}
	return 0, cmdflag.Usagef("-server %s: not a release innosim knows: want %s-X.Y with X.Y one of %s, or %s of no version",
		srv, srv.Product, strings.Join(known, ", "), srv.Product)
}

// checkThreadHandling refuses thread_handling = pool-of-threads for MySQL:
// the value is MariaDB's (and Percona Server's) thread pool; MySQL's mysqld
// has one-thread-per-connection and no-threads, and its Enterprise thread
// pool plugin sets loaded-dynamically.
func checkThreadHandling(srv mycnf.Server, th sim.ThreadHandling) error {
	if srv.Product != mycnf.MySQL || th != sim.PoolOfThreads {
		return nil
	}
	return cmdflag.Usagef("thread_handling = pool-of-threads with -server %s: MySQL has no pool-of-threads (MariaDB and Percona Server have it): want -server mariadb, or one-thread-per-connection",
		srv)
}

// checkNativeAIO refuses native AIO for a release before 5.5: Linux native
// AIO (innodb_use_native_aio) came with InnoDB 1.1 in MySQL 5.5, and the
// InnoDB of MySQL 5.0 and 5.1 (and of MariaDB 5.1 .. 5.3) has only its
// simulated AIO. flagged says that -aio (given or varied) asked for it;
// otherwise innodb_use_native_aio did.
func checkNativeAIO(srv mycnf.Server, c sim.Cell, flagged bool) error {
	if c.AIO == nil || c.AIO.IO != aio.IONative || srv.Version == "" {
		return nil
	}
	major, minor, ok := srv.Series()
	if !ok || major > 5 || major == 5 && minor >= 5 {
		return nil
	}
	what := "innodb_use_native_aio = ON"
	if flagged {
		what = "-aio native"
	}
	return cmdflag.Usagef("%s with -server %s: native AIO came with MySQL 5.5 (InnoDB 1.1); before it InnoDB has simulated AIO only: want -aio simulated (or innodb_use_native_aio = OFF), or a -server of 5.5 or later",
		what, srv)
}
