package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/innosim/innosim/internal/cmdflag"
	"github.com/innosim/innosim/mycnf"
)

// readCnf reads the settings of the option file at path for the server named
// server (mysql-8.0, mariadb-10.5): MySQL's defaults when path is empty. An
// option that is likely a mistake (a key near a modelled one, a modelled key in
// a group the server does not read) is a warning on stderr with its file and
// line, so that a misspelt key never runs the defaults unnoticed. The options
// innosim does not model (datadir, innodb_log_file_size: most of a real my.cnf)
// are one summary line, or one warning each when all is set.
func readCnf(path, server string, all bool, stderr io.Writer) (mycnf.Settings, error) {
	srv, err := mycnf.ParseServer(server)
	if err != nil {
		return mycnf.Settings{}, cmdflag.Usagef("-server: %w", err)
	}
	if path == "" {
		return srv.Defaults(), nil
	}
	file, err := mycnf.ParseFile(path)
	if err != nil {
		return mycnf.Settings{}, fmt.Errorf("-cnf: %w", err)
	}
	s, err := file.ServerSettings(srv)
	if err != nil {
		return mycnf.Settings{}, fmt.Errorf("-cnf: %w", err)
	}
	for _, st := range s.List() {
		if !st.IsDefault() && removedBy(srv, st.Key) {
			return mycnf.Settings{}, cmdflag.Usagef("-cnf: %s: %s = %s: %s", st.From, st.Key, st.Value, removedMessage(srv, st.Key))
		}
	}
	var others []string
	for _, w := range file.Warnings(srv) {
		if all || w.Likely() {
			fmt.Fprintf(stderr, "innosim run: warning: %s\n", cmdflag.TerminalSafe(w.String()))
		} else {
			others = append(others, w.Option.Key)
		}
	}
	if len(others) > 0 {
		shown := others[:min(len(others), 5)]
		more := ""
		if len(others) > len(shown) {
			more = ", ..."
		}
		fmt.Fprintf(stderr, "innosim run: %s: %d options innosim does not model have no effect (%s%s); -show-settings lists each\n",
			cmdflag.QuotePath(path), len(others), strings.Join(shown, ", "), more)
	}
	return s, nil
}

// writeSettings prints every modelled setting of s with the line it came from
// ("default" for MySQL's) or the run flag of f that sets it (-thread-handling,
// -aio), marks the key --vary changes per row, and says which cost profile
// the cells use and where the client runs (-client).
func writeSettings(w io.Writer, s mycnf.Settings, server, varyKey string, f runFlags) {
	fmt.Fprintf(w, "settings (server %s):\n", server)
	byFlag := map[string][2]string{} // a key a run flag sets: its value and the flag
	if f.threadHandling != "" {
		byFlag["thread_handling"] = [2]string{f.threadHandling, "-thread-handling"}
	}
	if f.aio != "" {
		byFlag["innodb_use_native_aio"] = [2]string{map[string]string{"native": "ON", "simulated": "OFF"}[f.aio], "-aio"}
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	vary := strings.ReplaceAll(varyKey, "-", "_")
	if vary == "aio" { // the run flag that sets it by its mode's name
		vary = "innodb_use_native_aio"
	}
	for _, st := range s.List() {
		from := "default"
		if !st.IsDefault() {
			from = st.From.String()
		}
		if st.Key == vary {
			from += ", varied by -vary"
		}
		v := st.Value
		if st.Unit != "" {
			v += " " + st.Unit
		}
		if st.Key == "thread_pool_size" && st.Value == "0" {
			v = "the server's CPUs"
		}
		if fl, ok := byFlag[st.Key]; ok {
			v, from = fl[0], fl[1]
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", st.Key, v, from)
	}
	tw.Flush()
	fmt.Fprintf(w, "cost profile: %s\n", costsInUse(f, varyKey))
	fmt.Fprintf(w, "warm-up (-warmup): %s\n", warmupName(f))
	if f.client.cfg != nil {
		fmt.Fprintf(w, "client on the machine (-client): %s\n", f.client.String())
	} else {
		fmt.Fprintln(w, "client off the machine (its round trip a sleep)")
	}
	fmt.Fprintln(w)
}

// mariadbRemoved are the admission keys MariaDB ignores from 10.5.5 and
// removed in 10.6 (MDEV-23379: "Deprecate&ignore InnoDB concurrency
// throttling parameters", hard-wired to 0).
var mariadbRemoved = []string{"innodb_thread_concurrency", "innodb_concurrency_tickets",
	"innodb_thread_sleep_delay", "innodb_adaptive_max_sleep_delay", "innodb_commit_concurrency"}

// removedBy reports whether srv, a MariaDB of series 10.6 or later, no longer
// has key: simulating it would give the server a gate it does not have.
// A server of no version is not judged.
func removedBy(srv mycnf.Server, key string) bool {
	if srv.Product != mycnf.MariaDB || !slices.Contains(mariadbRemoved, strings.ReplaceAll(key, "-", "_")) {
		return false
	}
	major, minor, ok := srv.Series()
	return ok && (major > 10 || major == 10 && minor >= 6)
}

// removedMessage says why key is refused for srv.
func removedMessage(srv mycnf.Server, key string) string {
	return fmt.Sprintf("%s has no %s (MariaDB ignores it from 10.5.5 and removed it in 10.6, MDEV-23379): want it unset, or a -server that has it (mariadb-10.4, mysql)", srv, key)
}

// checkMaxConnections refuses a sweep whose client threads, a connection
// each (as sysbench opens them), exceed a max_connections the option file
// sets: the server would refuse every connection past it with "Too many
// connections" (ER_CON_COUNT_ERROR, MariaDB's sql/sql_connect.cc), which the
// simulator does not model, so a cell past it would print a figure for a
// server that cannot run it. MySQL's default (151), which no line of the
// file chose, is not held against the sweep: the simulator's cells then
// stand for a server with max_connections raised to their threads.
func checkMaxConnections(s mycnf.Settings, threads []int) error {
	i := slices.IndexFunc(s.List(), func(st mycnf.Setting) bool { return st.Key == "max_connections" })
	if i < 0 || len(threads) == 0 {
		return nil
	}
	st := s.List()[i]
	if st.IsDefault() {
		return nil
	}
	most := slices.Max(threads)
	if most <= s.MaxConnections {
		return nil
	}
	return cmdflag.Usagef("-threads %d with %s: max_connections = %d: the server refuses every connection past %d (Too many connections), and a client thread is a connection: want -threads up to %d, or a higher max_connections",
		most, st.From, s.MaxConnections, s.MaxConnections, s.MaxConnections)
}
