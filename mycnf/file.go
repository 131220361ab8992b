package mycnf

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// File is the result of reading an option file and everything it includes.
type File struct {
	// Name is the name of the top file, as given to the Reader.
	Name string

	// Options holds every option line of every group, in the order MySQL reads
	// them: an included file's options sit where its !include line was.
	Options []Option

	// Sources lists every file read, in the order opened, the top file first.
	// A file included twice (not in a cycle) is listed twice.
	Sources []string
}

// Groups returns the names of the groups that hold at least one option, each
// once, in order of first appearance; names that differ only in case count as
// one (MySQL matches group names without regard to case).
func (f *File) Groups() []string {
	var out []string
	for _, o := range f.Options {
		if !containsFold(out, o.Group) {
			out = append(out, o.Group)
		}
	}
	return out
}

// Select returns the options of the named groups (compared without regard to
// case), in file order: the sequence a program that reads those groups sees,
// where a later line overrides an earlier one. With no names it returns nil.
func (f *File) Select(groups ...string) []Option {
	var out []Option
	for _, o := range f.Options {
		if containsFold(groups, o.Group) {
			out = append(out, o)
		}
	}
	return out
}

// Lookup returns the last option in group whose Name equals name with dashes
// read as underscores (so "innodb-read-io-threads" finds innodb_read_io_threads).
// Prefixes are not resolved: Lookup("mysqld", "log_bin") does not find
// skip-log-bin. ok is false when there is no such option.
func (f *File) Lookup(group, name string) (opt Option, ok bool) {
	name = normalize(name)
	for i := len(f.Options) - 1; i >= 0; i-- {
		o := f.Options[i]
		if strings.EqualFold(o.Group, group) && o.Name() == name {
			return o, true
		}
	}
	return Option{}, false
}

// WriteTo writes the options back as a single option file with no includes: a
// [group] header whenever the group changes, then one Option.String line per
// option. Reading the output back yields the same options (groups, keys, values)
// in the same order; comments, blank lines and the include structure are not
// kept. It implements io.WriterTo. An option that no line can carry (a Group
// that is empty, padded with spaces, or holds ']' or a newline; a Key
// that Parse would refuse) is an error wrapping ErrSyntax that names the
// option's index, and nothing is written.
func (f *File) WriteTo(w io.Writer) (int64, error) {
	var b strings.Builder
	group := ""
	for i, o := range f.Options {
		if field, err := checkWritable(o); err != nil {
			return 0, fmt.Errorf("mycnf: write: Options[%d].%s%w: %w", i, field, err, ErrSyntax)
		}
		if i == 0 || o.Group != group {
			group = o.Group
			b.WriteString("[" + group + "]\n")
		}
		b.WriteString(o.String() + "\n")
	}
	n, err := io.WriteString(w, b.String())
	return int64(n), err
}

// checkWritable refuses an option whose [group] header or key line would not
// read back as the same group and key, and names the field.
func checkWritable(o Option) (field string, err error) {
	g := o.Group
	if g == "" || trimSpace(g) != g || strings.ContainsAny(g, "]\n") {
		return "Group", fmt.Errorf(" = %s, want a non-empty name without ']', a newline or spaces at either end", strconv.Quote(g))
	}
	if err := checkKey(o.Key); err != nil {
		return "Key", fmt.Errorf(": %w", err)
	}
	return "", nil
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}
