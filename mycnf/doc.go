// Package mycnf reads MySQL option files (my.cnf) and turns the options innosim
// models into typed, range-checked settings for the concurrency, aio and prio
// packages and for the simulator.
//
// # Two layers
//
// The first layer is a faithful reader of the file format. It knows nothing of
// what options mean: every option of every group is kept, as written, with its
// file and line, so a my.cnf written for any MySQL version, fork or plugin
// reads without complaint (File, Option). The second layer (Settings) looks up
// the variables that decide scheduling behaviour (Keys lists them), applies
// MySQL's option prefixes and defaults, checks ranges, and lists everything else
// as unknown. Keeping the two apart means an unknown key is never an error, while a
// known key with a bad value always is. An unknown key is never silent either:
// File.Warnings lists every option that has no effect, with its file and line
// and the modelled key it is nearest to (innodb_thred_concurrency: did you mean
// innodb_thread_concurrency?).
//
// # Which groups apply
//
// A server reads only some groups of a file, and MySQL and MariaDB read
// different ones: Server names the product and release, Server.Groups gives its
// groups ([mysqld], [server], [mysqld-8.0] for mysql-8.0; MariaDB adds
// [mariadb], [mariadbd], their -X.Y forms, [client-server] and [galera]), and
// File.ServerSettings reads them. A modelled key in a group another server
// reads ([mariadb] when the server is MySQL) is a Warning.
//
// # The format, as mysys/my_default.cc reads it
//
//	# comment                 ; also a comment (';' only at the start of a line)
//	[mysqld]                  group header; names compare without regard to case
//	innodb_read_io_threads=16 key = value; spaces around '=' are ignored
//	innodb-write-io-threads=8 '-' and '_' are the same in names
//	innodb_file_per_table     bare key: a boolean set ON
//	skip-thread-priority      skip-/disable- set OFF, enable- sets ON, loose- marks optional
//	innodb_buffer_pool_size=4G  K, M, G, T, P, E multiply by 2^10 .. 2^60
//	datadir = "/data/my sql" # quotes keep spaces and '#'; a trailing # comment is dropped
//	innodb_data_file_path=ibdata1:10M;ibdata2:10M:autoextend   (';' here is data)
//	!include /etc/mysql/extra.cnf
//	!includedir conf.d        every *.cnf in the directory, in name order
//
// Values lose one pair of matching outer quotes; the escapes \n \t \r \b \s
// \" \' \\ are replaced in every value, quoted or not, and any other backslash is
// kept, all as load_defaults does. A '#' starts a comment anywhere outside
// quotes; a ';' only at the start of a line, because values such as
// innodb_data_file_path contain it.
//
// # Where mycnf is stricter than MySQL
//
// MySQL lets several doubtful lines through, to fail later or never. Each is an
// *Error here with the file and line, because a scheduling experiment run with a
// silently misread configuration is worse than one that does not start:
// an option before any [group] (MySQL also refuses it), text after a group's
// ']', an unknown ! directive, a value with an opening quote and no closing one,
// a key containing spaces or punctuation, a NUL byte, an !include whose file is
// missing (MySQL skips it silently). Bad values of modelled keys are errors
// rather than MySQL's "adjusted to" warnings: no silent clamping.
//
// Relative include paths are resolved against the directory of the including
// file, not the server's working directory as in MySQL.
//
// # Bounded work
//
// A Reader bounds what one call may read: the include depth (10, MySQL's own
// limit), the line length (4096 bytes, MySQL's line buffer, which silently
// splits longer lines), the size of each file and of all files together, the
// number of options in each file and in all files, and the number of files.
// Only regular files are read: a named pipe, device, socket or directory named
// as an option file is an error naming it, never a read that blocks forever. A
// file that includes itself, directly or through others, is an include cycle
// and an error; the same file included twice side by side is not (MySQL reads
// it twice, and so does mycnf, within the limits). Errors say
// which limit was hit and wrap ErrLimit. Input from an io.Reader (Parse) may not
// include files at all, so tests and fuzzing never touch the disk; ParseFS reads
// from any fs.FS, ParseFile from the operating system.
//
// # From a file to the other packages
//
//	f, err := mycnf.ParseFile("/etc/mysql/my.cnf")
//	s, err := f.Settings()                        // [mysqld] and [server]
//	srv := mycnf.Server{Product: mycnf.MariaDB, Version: "10.5"}
//	s, err = f.ServerSettings(srv)                // its groups, [mariadb] among them
//	for _, w := range f.Warnings(srv) { log.Print(w) } // options that do nothing
//	err = s.Set("innodb_thread_concurrency", "8") // vary one option, as a command line does
//	ac, err := s.AIOConfig()                      // aio.Config: segments, page size
//	cc, err := s.ConcurrencyConfig()              // concurrency.Config: limit, tickets, sleep delays
//	pc := s.PrioConfig()                          // prio.Config: legacy priorities or off
//
// # Names, defaults and sources
//
// Settings fields are named for the InnoDB variables (ReadIOThreads is
// innodb_read_io_threads); durations are time.Duration although MySQL counts
// microseconds. Defaults and ranges are MySQL 8.0's, from the MySQL Reference
// Manual, except where a field says otherwise: ThreadPriority defaults to true
// because the MySQL 5.1 studies innosim reproduces changed thread priorities
// unless told --skip-thread-priority. The option prefix rules follow
// my_handle_options in mysys/my_getopt.cc, the boolean and number syntax its
// get_bool_argument and eval_num_suffix.
package mycnf
