package mycnf

import (
	"fmt"
	"strings"

	"github.com/agnivade/levenshtein"
)

// Warning is an option that has no effect on the settings of a server: a key
// innosim does not model (a typo, or an option of the server that does not
// decide scheduling), or a modelled key in a group the server does not read.
// It is not an error: a real my.cnf is full of options innosim does not
// model, and files shared between servers hold groups for each of them.
type Warning struct {
	Option Option // the option, with its file and line in Option.Pos

	// Nearest is the modelled key nearest to Option's name (after its
	// prefixes), when it is close enough to be a likely misspelling (an edit
	// distance of at most 3, and under a third of the name); "" otherwise and
	// for an option in an unread group.
	Nearest string

	// Unread reports a modelled key in a group srv does not read; false for a
	// key innosim does not model.
	Unread bool

	// Foreign reports a modelled key of MariaDB's alone in a group a MySQL
	// server reads: thread_pool_*, of MariaDB's thread pool, which MySQL's
	// community server does not have.
	Foreign bool

	// Message says why the option has no effect, without the position.
	Message string
}

// Likely reports whether the option is probably a mistake rather than an
// option innosim merely does not model: a modelled key in a group the server
// does not read, or an unmodelled key near a modelled one.
func (w Warning) Likely() bool { return w.Unread || w.Foreign || w.Nearest != "" }

// String returns "file:line: message".
func (w Warning) String() string { return w.Option.Pos.String() + ": " + w.Message }

// Warnings lists, in file order, the options of f that have no effect on the
// Settings srv reads (f.Settings(srv.Groups()...)): every option of a group
// srv reads that is not a modelled key, with the nearest modelled key when one
// is close, and every modelled key in a group srv does not read, whoever reads
// that group: another server's ([mariadb] for MySQL, [mysqld-5.7] for
// mysql-8.0), another program's ([client], [mysqld_safe]) or nobody's (a
// misspelt [mysqd], for which the message names the nearest group srv reads);
// and for a MySQL server, every key of MariaDB's alone (thread_pool_*) in a
// group it reads: MySQL's community server has no thread pool.
// Unmodelled options of groups srv does not read ([client] port) are not
// listed: they belong to other programs. A malformed srv (Version or
// Product) reads no group, so every modelled key is listed.
func (f *File) Warnings(srv Server) []Warning {
	groups := srv.Groups()
	var out []Warning
	for _, o := range f.Options {
		k, _, _ := resolve(o.Name(), o.Value, o.HasValue)
		switch {
		case containsFold(groups, o.Group):
			if k != nil && k.mariadb && srv.Product == MySQL {
				out = append(out, Warning{Option: o, Foreign: true, Message: fmt.Sprintf(
					"[%s] %s: MySQL has no thread pool (%s is MariaDB's; MySQL Enterprise's thread pool plugin is not modelled); the option has no effect",
					quoteUnsafe(o.Group), o.Key, k.name)})
				continue
			}
			if k != nil {
				continue
			}
			w := Warning{Option: o, Nearest: nearestKey(o.Name())}
			w.Message = fmt.Sprintf("[%s] %s: not an option innosim models; it has no effect", quoteUnsafe(o.Group), o.Key)
			if w.Nearest != "" {
				w.Message += " (did you mean " + w.Nearest + "?)"
			}
			out = append(out, w)
		case k != nil:
			msg := fmt.Sprintf("[%s] %s: %s does not read group [%s] (it reads [%s]); the option has no effect",
				quoteUnsafe(o.Group), o.Key, srv, quoteUnsafe(o.Group), strings.Join(groups, "], ["))
			if g := nearestGroup(o.Group, groups); g != "" && !isServerGroup(o.Group) {
				msg += " (did you mean [" + g + "]?)"
			}
			out = append(out, Warning{Option: o, Unread: true, Message: msg})
		}
	}
	return out
}

// nearestGroup returns the group of groups nearest to group when it is close
// enough to be a misspelling of it (as nearestKey judges), else "".
func nearestGroup(group string, groups []string) string {
	best, bestD := "", 0
	for _, g := range groups {
		d := levenshtein.ComputeDistance(strings.ToLower(group), strings.ToLower(g))
		if d <= 3 && 3*d < len(group) && (best == "" || d < bestD) {
			best, bestD = g, d
		}
	}
	return best
}

// nearestKey returns the modelled key nearest to name (underscores), tried
// with and without MySQL's option prefixes, when it is close enough to be a
// misspelling of it; else "".
func nearestKey(name string) string {
	candidates := []string{name}
	for rest := name; ; {
		stripped := false
		for _, p := range [...]string{"skip_", "disable_", "enable_", "loose_"} {
			if r, ok := strings.CutPrefix(rest, p); ok {
				rest, stripped = r, true
				candidates = append(candidates, rest)
				break
			}
		}
		if !stripped {
			break
		}
	}
	best, bestD := "", 0
	for _, c := range candidates {
		for i := range keys {
			d := levenshtein.ComputeDistance(c, keys[i].name)
			if d <= 3 && 3*d < len(c) && (best == "" || d < bestD) {
				best, bestD = keys[i].name, d
			}
		}
	}
	return best
}
