package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

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
		return mycnf.Settings{}, fmt.Errorf("%w: -server: %w", errUsage, err)
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
	var others []string
	for _, w := range file.Warnings(srv) {
		if all || w.Likely() {
			fmt.Fprintf(stderr, "innosim run: warning: %s\n", w)
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
			path, len(others), strings.Join(shown, ", "), more)
	}
	return s, nil
}

// writeSettings prints every modelled setting of s with the line it came from
// ("default" for MySQL's), and marks the key --vary changes per row.
func writeSettings(w io.Writer, s mycnf.Settings, server, varyKey string) {
	fmt.Fprintf(w, "settings (server %s):\n", server)
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
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", st.Key, v, from)
	}
	tw.Flush()
	fmt.Fprintln(w)
}
