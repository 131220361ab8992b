package mycnf_test

import (
	"errors"
	"fmt"
	"strings"
	"testing/fstest"

	"github.com/innosim/innosim/concurrency"
	"github.com/innosim/innosim/mycnf"
)

func ExampleParse() {
	const cnf = `
[mysqld]
innodb_read_io_threads = 16   # one handler thread per read segment
innodb-write-io-threads=16
innodb_data_file_path=ibdata1:10M;ibdata2:10M:autoextend
skip-name-resolve
datadir = "/var/lib/my sql"
`
	f, err := mycnf.Parse(strings.NewReader(cnf), "my.cnf")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, o := range f.Options {
		fmt.Printf("%s [%s] %s=%q\n", o.Pos, o.Group, o.Name(), o.Value)
	}
	// Output:
	// my.cnf:3 [mysqld] innodb_read_io_threads="16"
	// my.cnf:4 [mysqld] innodb_write_io_threads="16"
	// my.cnf:5 [mysqld] innodb_data_file_path="ibdata1:10M;ibdata2:10M:autoextend"
	// my.cnf:6 [mysqld] skip_name_resolve=""
	// my.cnf:7 [mysqld] datadir="/var/lib/my sql"
}

func ExampleFile_Settings() {
	const cnf = `
[mysqld]
innodb_thread_concurrency = 8
innodb_concurrency_tickets = 500
innodb_thread_sleep_delay = 10000
loose-innodb_adaptive_max_sleep_delay = 0
skip-thread-priority
innodb_file_per_table
`
	f, err := mycnf.Parse(strings.NewReader(cnf), "my.cnf")
	if err != nil {
		fmt.Println(err)
		return
	}
	s, err := f.Settings() // [mysqld] and [server]
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("inside at once:", s.ThreadConcurrency, "tickets:", s.ConcurrencyTickets)
	fmt.Println("sleep delay:", s.ThreadSleepDelay, "adaptive max:", s.AdaptiveMaxSleepDelay)
	fmt.Println("read/write handler threads:", s.ReadIOThreads, s.WriteIOThreads)
	fmt.Println("thread priorities:", s.ThreadPriority)
	for _, o := range s.Unknown {
		fmt.Println("not modelled:", o.Key, "at", o.Pos)
	}
	// Output:
	// inside at once: 8 tickets: 500
	// sleep delay: 10ms adaptive max: 0s
	// read/write handler threads: 4 4
	// thread priorities: false
	// not modelled: innodb_file_per_table at my.cnf:8
}

func ExampleFile_Settings_rangeError() {
	f, _ := mycnf.Parse(strings.NewReader("[mysqld]\ninnodb_read_io_threads=128\n"), "my.cnf")
	_, err := f.Settings()
	fmt.Println(err)
	fmt.Println(errors.Is(err, mycnf.ErrInvalidConfig))
	// Output:
	// mycnf: my.cnf:2: innodb_read_io_threads = 128, want 1..64: invalid config
	// true
}

func ExampleParseFS() {
	fsys := fstest.MapFS{
		"etc/my.cnf":             {Data: []byte("[mysqld]\ninnodb_read_io_threads=4\n!includedir conf.d\n")},
		"etc/conf.d/10-io.cnf":   {Data: []byte("[mysqld]\ninnodb_read_io_threads=16\n")},
		"etc/conf.d/20-loop.cnf": {Data: []byte("!include ../my.cnf\n")},
	}
	_, err := mycnf.ParseFS(fsys, "etc/my.cnf")
	fmt.Println(err)
	fmt.Println(errors.Is(err, mycnf.ErrInclude))

	delete(fsys, "etc/conf.d/20-loop.cnf")
	f, err := mycnf.ParseFS(fsys, "etc/my.cnf")
	if err != nil {
		fmt.Println(err)
		return
	}
	s, _ := f.Settings()
	fmt.Println(f.Sources, s.ReadIOThreads)
	// Output:
	// mycnf: etc/conf.d/20-loop.cnf:1: !include ../my.cnf: include cycle etc/my.cnf -> etc/conf.d/20-loop.cnf -> etc/my.cnf: bad include
	// true
	// [etc/my.cnf etc/conf.d/10-io.cnf] 16
}

func ExampleReader() {
	r := mycnf.Reader{MaxLineLength: 80}
	_, err := r.Parse(strings.NewReader("[mysqld]\nplugin_load="+strings.Repeat("x", 100)+"\n"), "my.cnf")
	fmt.Println(err)
	fmt.Println(errors.Is(err, mycnf.ErrLimit))
	// Output:
	// mycnf: my.cnf:2: line longer than 80 bytes (Reader.MaxLineLength): limit exceeded
	// true
}

func ExampleFile_Warnings() {
	const cnf = `
[mysqld]
innodb_thred_concurrency = 8
datadir = /var/lib/mysql
[mariadb]
innodb_read_io_threads = 16
`
	f, err := mycnf.Parse(strings.NewReader(cnf), "my.cnf")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, w := range f.Warnings(mycnf.Server{Product: mycnf.MySQL, Version: "8.0"}) {
		fmt.Println(w)
	}
	s, _ := f.ServerSettings(mycnf.Server{Product: mycnf.MariaDB, Version: "10.5"})
	fmt.Println("MariaDB 10.5 read handler threads:", s.ReadIOThreads)
	// Output:
	// my.cnf:3: [mysqld] innodb_thred_concurrency: not an option innosim models; it has no effect (did you mean innodb_thread_concurrency?)
	// my.cnf:4: [mysqld] datadir: not an option innosim models; it has no effect
	// my.cnf:6: [mariadb] innodb_read_io_threads: mysql-8.0 does not read group [mariadb] (it reads [mysqld], [server], [mysqld-8.0]); the option has no effect
	// MariaDB 10.5 read handler threads: 16
}

// A my.cnf read for the server it configures, then turned into the configs of
// the concurrency and aio packages: the path from a production option file to
// a gate and an AIO array.
func ExampleFile_ServerSettings() {
	const cnf = `
[mysqld]
innodb_thread_concurrency = 16
innodb_read_io_threads = 8
[mysqld-5.5]
innodb_concurrency_tickets = 1000
[mysqld-8.0]
innodb_thread_concurrency = 0
`
	f, err := mycnf.Parse(strings.NewReader(cnf), "my.cnf")
	if err != nil {
		fmt.Println(err)
		return
	}
	srv, err := mycnf.ParseServer("mysql-5.5") // reads [mysqld], [server] and [mysqld-5.5]
	if err != nil {
		fmt.Println(err)
		return
	}
	s, err := f.ServerSettings(srv)
	if err != nil {
		fmt.Println(err)
		return
	}
	cc, err := s.ConcurrencyConfig()
	if err != nil {
		fmt.Println(err)
		return
	}
	g, err := concurrency.New(concurrency.PolicyQueue, cc) // MySQL 5.5's gate
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("gate:", g.Limit(), "inside at once,", cc.Tickets, "tickets, sleep", cc.SleepDelay)
	ac, err := s.AIOConfig()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("aio:", ac.IO, "with", ac.ReadSegments, "read and", ac.WriteSegments, "write segments")
	// Output:
	// gate: 16 inside at once, 1000 tickets, sleep 10ms
	// aio: native with 8 read and 4 write segments
}
