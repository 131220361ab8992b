package mycnf

import (
	"fmt"
	"strconv"
	"strings"
)

// Product is a server program that reads option files: MySQL's mysqld or
// MariaDB's mariadbd. The two read different groups.
type Product int

// Products.
const (
	MySQL   Product = iota // Oracle MySQL's mysqld
	MariaDB                // MariaDB's mariadbd (also installed as mysqld)
)

// String returns "mysql" or "mariadb".
func (p Product) String() string {
	switch p {
	case MySQL:
		return "mysql"
	case MariaDB:
		return "mariadb"
	}
	return "Product(" + strconv.Itoa(int(p)) + ")"
}

// Server names the server an option file is read for, which decides the
// groups whose options apply (Groups). The zero Server is MySQL of no stated
// version, which reads [mysqld] and [server].
type Server struct {
	Product Product

	// Version is the release series as major.minor ("8.0", "5.1", "10.5"); a
	// third component is allowed and ignored ("8.0.36"). Empty means no
	// version: the version groups ([mysqld-8.0]) are not read, and a MariaDB
	// server is taken to be 10.4 or later.
	Version string
}

// ParseServer reads a server as written on a command line: "mysql",
// "mariadb", or either with a version, "mysql-8.0", "mariadb-10.5.8". Anything
// else is an error wrapping ErrInvalidConfig.
func ParseServer(s string) (Server, error) {
	name, version, dash := strings.Cut(s, "-")
	var srv Server
	switch strings.ToLower(name) {
	case "mysql":
		srv.Product = MySQL
	case "mariadb":
		srv.Product = MariaDB
	default:
		return Server{}, fmt.Errorf("mycnf: server %s, want mysql or mariadb, optionally with a version (mysql-8.0, mariadb-10.5): %w", quoteUnsafe(s), ErrInvalidConfig)
	}
	srv.Version = version
	if dash && version == "" {
		return Server{}, fmt.Errorf("mycnf: server %s: a version after '-', want mysql-8.0 or mariadb-10.5: %w", quoteUnsafe(s), ErrInvalidConfig)
	}
	if _, _, err := srv.series(); err != nil {
		return Server{}, err
	}
	return srv, nil
}

// String returns the server as ParseServer reads it: "mysql-8.0", "mariadb".
func (s Server) String() string {
	if s.Version == "" {
		return s.Product.String()
	}
	return s.Product.String() + "-" + s.Version
}

// series returns the major and minor version, or -1, -1 when Version is empty.
// A Product other than MySQL and MariaDB is an error naming the field: its
// groups and defaults are unknown, and reading it as MySQL would hide the
// mistake.
func (s Server) series() (major, minor int, err error) {
	if s.Product != MySQL && s.Product != MariaDB {
		return 0, 0, fmt.Errorf("mycnf: Server.Product = %d, want mycnf.MySQL (%d) or mycnf.MariaDB (%d): %w", int(s.Product), int(MySQL), int(MariaDB), ErrInvalidConfig)
	}
	if s.Version == "" {
		return -1, -1, nil
	}
	parts := strings.Split(s.Version, ".")
	bad := len(parts) < 2 || len(parts) > 3
	nums := make([]int, len(parts))
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || p == "" || p[0] == '+' {
			bad = true
		}
		nums[i] = n
	}
	if bad {
		return 0, 0, fmt.Errorf("mycnf: server version %s, want major.minor such as 8.0 or 10.5: %w", quoteUnsafe(s.Version), ErrInvalidConfig)
	}
	return nums[0], nums[1], nil
}

// Series returns the release series the server names, major.minor, and
// whether it names one: false for a server of no Version, a malformed one or
// a Product other than MySQL and MariaDB.
func (s Server) Series() (major, minor int, ok bool) {
	major, minor, err := s.series()
	return major, minor, err == nil && major >= 0
}

// Groups returns the option groups the server reads, in the order the server
// lists them (the order does not decide precedence: options apply in file
// order, a later line winning, whatever their group).
//
// MySQL's mysqld reads [mysqld], [server] and [mysqld-X.Y] for its own
// release series (load_default_groups in sql/mysqld.cc, with
// MYSQL_BASE_VERSION). MariaDB's reads those and [mariadb], [mariadb-X.Y],
// [client-server] and [galera] (its load_default_groups; [galera] in the
// WITH_WSREP builds that distributions ship), and from 10.4 also [mariadbd]
// and [mariadbd-X.Y]. With no Version, the -X.Y groups are left out. A
// malformed Version or a Product other than MySQL and MariaDB gives nil;
// ParseServer never makes one.
func (s Server) Groups() []string {
	major, minor, err := s.series()
	if err != nil {
		return nil
	}
	versioned := func(g string) []string {
		if major < 0 {
			return []string{g}
		}
		return []string{g, fmt.Sprintf("%s-%d.%d", g, major, minor)}
	}
	out := []string{"mysqld", "server"}
	if major >= 0 {
		out = append(out, fmt.Sprintf("mysqld-%d.%d", major, minor))
	}
	if s.Product == MariaDB {
		out = append(out, versioned("mariadb")...)
		if major < 0 || major > 10 || major == 10 && minor >= 4 {
			out = append(out, versioned("mariadbd")...)
		}
		out = append(out, "client-server", "galera")
	}
	return out
}

// Reads reports whether the server reads group (compared without regard to
// case, as MySQL compares group names).
func (s Server) Reads(group string) bool { return containsFold(s.Groups(), group) }

// isServerGroup reports whether some MySQL or MariaDB server reads group: one
// of [mysqld], [server], [mariadb], [mariadbd], [client-server], [galera], or
// [mysqld-X.Y], [mariadb-X.Y], [mariadbd-X.Y] of any version.
func isServerGroup(group string) bool {
	g := strings.ToLower(group)
	switch g {
	case "mysqld", "server", "mariadb", "mariadbd", "client-server", "galera":
		return true
	}
	base, version, ok := strings.Cut(g, "-")
	if !ok || base != "mysqld" && base != "mariadb" && base != "mariadbd" {
		return false
	}
	_, _, err := Server{Version: version}.series()
	return err == nil
}

// Defaults returns the Settings the server uses when a file sets nothing:
// Defaults, except that ThreadPriority is false for a server that never
// changes thread priorities by default: MySQL after 5.1.28 (5.1.29 or a
// later series: 5.5, 8.0) and every MariaDB, whose first release forked
// from a later 5.1. MySQL of no version, of series 5.1 with no patch level
// or up to 5.1.28, or older keeps Defaults' true. ConcurrencyTickets is 500,
// not 5000, for MySQL before 5.6.6 and MariaDB 5.x (its 5.5 is MySQL 5.5's
// InnoDB): the MySQL 5.6 manual's "Changes to Server Defaults" gives 500 up
// to 5.6.5 and 5000 from 5.6.6; a 5.6 with no patch level is taken as the
// series' GA (5.6.10), so 5000. ThreadConcurrency is 8, not 0, for MySQL 5.0
// and 5.1, whose built-in InnoDB had that default until 5.4.0 made it 0
// (WL#4965). UseNativeAIO is false for a series before 5.5 (MySQL 5.0 and
// 5.1, MariaDB 5.1 .. 5.3): Linux native AIO and innodb_use_native_aio came
// with InnoDB 1.1 in MySQL 5.5, and the InnoDB before it has only simulated
// AIO. ThreadPoolMaxThreads is 500 for MariaDB 5.5 to 10.1 (threadpool_unix.cc's
// sys_vars default; 65536 from 10.2). A malformed Version or Product gives Defaults; ParseServer never makes
// one.
func (s Server) Defaults() Settings {
	d := Defaults()
	major, minor, err := s.series()
	if err != nil {
		return d
	}
	patch := -1
	if parts := strings.Split(s.Version, "."); len(parts) == 3 {
		patch, _ = strconv.Atoi(parts[2])
	}
	later := major > 5 || major == 5 && minor > 1 || major == 5 && minor == 1 && patch > 28
	if s.Product == MariaDB || later {
		d.ThreadPriority = false
	}
	before566 := major < 5 || major == 5 && (minor < 6 || minor == 6 && patch >= 0 && patch < 6)
	if major >= 0 && major < 10 && (s.Product == MariaDB || before566) {
		d.ConcurrencyTickets = 500
	}
	if s.Product == MySQL && major == 5 && minor <= 1 {
		d.ThreadConcurrency = 8
	}
	if major >= 0 && (major < 5 || major == 5 && minor < 5) {
		d.UseNativeAIO = false
	}
	if s.Product == MariaDB && (major == 5 || major == 10 && minor <= 1) {
		d.ThreadPoolMaxThreads = 500 // threadpool_unix.cc's release
	}
	return d
}
