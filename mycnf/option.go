package mycnf

import "strings"

// Option is one key=value or bare key line of an option file, as the file says
// it: nothing is resolved against the keys the package models (that is
// Settings' job), so options of any program, plugin or MySQL version are kept.
type Option struct {
	// Group is the name between the brackets of the [group] the line is under,
	// with surrounding spaces removed, e.g. "mysqld". Never empty.
	Group string

	// Key is the name as written, prefixes included, e.g. "skip-name-resolve"
	// or "loose_innodb_spin_wait_delay". Never empty; contains only letters,
	// digits, '-', '_' and '.'.
	Key string

	// Value is the text after '=', with surrounding spaces and a trailing
	// # comment removed, one pair of matching outer quotes removed, and the
	// escapes \n \t \r \b \s \" \' \\ replaced, as load_defaults does in
	// mysys/my_default.cc. "" for a bare key.
	Value string

	// HasValue reports whether the line had an '=' (so "key=" is an empty
	// value, while "key" is a bare key).
	HasValue bool

	// Pos is the file and line the option came from.
	Pos Pos
}

// Name returns Key with every '-' replaced by '_', the form in which MySQL
// compares option names (getopt_compare_strings in mysys/my_getopt.cc treats the
// two as equal). Case is kept: MySQL's option names are case-sensitive.
func (o Option) Name() string { return normalize(o.Key) }

// String returns the option as an option-file line: "key", or "key=value" with
// the value quoted and escaped when it must be for the line to read back the
// same.
func (o Option) String() string {
	if !o.HasValue {
		return o.Key
	}
	return o.Key + "=" + quoteValue(o.Value)
}

// normalize maps dashes to underscores.
func normalize(key string) string { return strings.ReplaceAll(key, "-", "_") }
