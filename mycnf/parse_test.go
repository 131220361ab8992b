package mycnf

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// opt is an Option without its position, for compact tables.
type opt struct {
	Group, Key, Value string
	HasValue          bool
}

func strip(f *File) []opt {
	out := make([]opt, 0, len(f.Options))
	for _, o := range f.Options {
		out = append(out, opt{o.Group, o.Key, o.Value, o.HasValue})
	}
	return out
}

func TestParseReadsTheFormatAsMySQLDoes(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []opt
	}{
		{"key=value", "[mysqld]\na=1\n", []opt{{"mysqld", "a", "1", true}}},
		{"spaces around the equals sign are dropped", "[mysqld]\n  a  =  1  \n", []opt{{"mysqld", "a", "1", true}}},
		{"a bare key has no value", "[mysqld]\ninnodb_file_per_table\n", []opt{{"mysqld", "innodb_file_per_table", "", false}}},
		{"key= is an empty value", "[mysqld]\na=\n", []opt{{"mysqld", "a", "", true}}},
		{"a hash line is a comment", "[mysqld]\n# a=1\n  #b=2\n", []opt{}},
		{"a semicolon line is a comment", "[mysqld]\n; a=1\n\t;b\n", []opt{}},
		{"a trailing hash comment is dropped", "[mysqld]\na=1 # one\nb # bare\n", []opt{{"mysqld", "a", "1", true}, {"mysqld", "b", "", false}}},
		{"a hash glued to the value starts a comment", "[mysqld]\na=1#x\n", []opt{{"mysqld", "a", "1", true}}},
		{"a semicolon inside a value is data", "[mysqld]\np=ibdata1:10M;ibdata2:10M:autoextend\n", []opt{{"mysqld", "p", "ibdata1:10M;ibdata2:10M:autoextend", true}}},
		{"double quotes are removed", "[client]\npassword=\"a b\"\n", []opt{{"client", "password", "a b", true}}},
		{"single quotes are removed", "[mysqld]\ninnodb_monitor_enable='%'\n", []opt{{"mysqld", "innodb_monitor_enable", "%", true}}},
		{"a hash inside quotes is data", "[mysqld]\na=\"x#y\" # z\n", []opt{{"mysqld", "a", "x#y", true}}},
		{"an escaped quote does not end the quotes", "[mysqld]\na=\"x\\\"#y\"\n", []opt{{"mysqld", "a", "x\"#y", true}}},
		{"escapes are replaced", "[mysqld]\na=\"1\\t2\\n3\\s4\\\\5\\'6\"\n", []opt{{"mysqld", "a", "1\t2\n3 4\\5'6", true}}},
		{"escapes apply to unquoted values too", "[mysqld]\na=x\\sy\n", []opt{{"mysqld", "a", "x y", true}}},
		{"an unknown escape keeps its backslash", "[mysqld]\ndatadir=C:\\mysql\\data\n", []opt{{"mysqld", "datadir", "C:\\mysql\\data", true}}},
		{"a backslash at the end is kept", "[mysqld]\na=x\\\n", []opt{{"mysqld", "a", "x\\", true}}},
		{"an inner quote is data", "[mysqld]\na=it's\n", []opt{{"mysqld", "a", "it's", true}}},
		{"quotes strip only the outer pair", "[mysqld]\na=\"x\" \"y\"\n", []opt{{"mysqld", "a", "x\" \"y", true}}},
		{"the first equals sign splits", "[mysqld]\nperformance-schema-instrument='wait/%=ON'\n", []opt{{"mysqld", "performance-schema-instrument", "wait/%=ON", true}}},
		{"group names lose their spaces", "[ mysqld ]\na=1\n[client] # c\nb=2\n", []opt{{"mysqld", "a", "1", true}, {"client", "b", "2", true}}},
		{"keys are kept as written", "[mysqld]\nskip-name-resolve\nloose_X=1\n", []opt{{"mysqld", "skip-name-resolve", "", false}, {"mysqld", "loose_X", "1", true}}},
		{"a dot is allowed in a key", "[mysqld]\nhot_cache.key_buffer_size=1M\n", []opt{{"mysqld", "hot_cache.key_buffer_size", "1M", true}}},
		{"CRLF line ends", "[mysqld]\r\na = 1\r\n", []opt{{"mysqld", "a", "1", true}}},
		{"no newline at the end", "[mysqld]\na=1", []opt{{"mysqld", "a", "1", true}}},
		{"a byte order mark is skipped", "\xef\xbb\xbf[mysqld]\na=1\n", []opt{{"mysqld", "a", "1", true}}},
		{"an empty file", "", []opt{}},
		{"later groups follow in file order", "[a]\nx=1\n[b]\nx=2\n[a]\nx=3\n", []opt{{"a", "x", "1", true}, {"b", "x", "2", true}, {"a", "x", "3", true}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Parse(strings.NewReader(tt.in), "my.cnf")
			require.NoError(t, err)
			assert.Equal(t, tt.want, strip(f))
		})
	}
}

func TestParseRecordsFileAndLine(t *testing.T) {
	f, err := Parse(strings.NewReader("# header\n\n[mysqld]\na=1\n\nb\n"), "x.cnf")
	require.NoError(t, err)
	require.Len(t, f.Options, 2)
	assert.Equal(t, Pos{"x.cnf", 4}, f.Options[0].Pos)
	assert.Equal(t, Pos{"x.cnf", 6}, f.Options[1].Pos)
	assert.Equal(t, []string{"x.cnf"}, f.Sources)
	assert.Equal(t, "x.cnf", f.Name)
}

func TestParseRejectsMalformedLines(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		line    int
		message string
	}{
		{"an option before any group", "a=1\n", 1, "option a before any [group]"},
		{"a group without its bracket", "[mysqld]\n[client\n", 2, "group header without ']'"},
		{"an empty group name", "[ ]\n", 1, "empty group name"},
		{"text after the group", "[mysqld] x\n", 1, "text after group header [mysqld]: x"},
		{"an empty key", "[mysqld]\n= 1\n", 2, "option without a name"},
		{"a space in the key", "[mysqld]\ninnodb thread concurrency 8\n", 2, "space in option name"},
		{"punctuation in the key", "[mysqld]\na/b=1\n", 2, "invalid character '/' in option name \"a/b\""},
		{"an unterminated double quote", "[mysqld]\n\na=\"x # y\n", 3, "unterminated quote in value of a"},
		{"a lone quote", "[mysqld]\na='\n", 2, "unterminated quote"},
		{"an unknown directive", "!includ x.cnf\n", 1, "unknown directive !includ"},
		{"an include without a path", "[mysqld]\n!include   \n", 2, "!include without a path"},
		{"an includedir without a path", "!includedir\n", 1, "!includedir without a path"},
		{"a NUL byte", "[mysqld]\na=\x00\n", 2, "NUL byte"},
		{"an option in a file that opened no group after a blank group", "[mysqld\n", 1, "without ']'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(tt.in), "bad.cnf")
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrSyntax)
			var e *Error
			require.True(t, errors.As(err, &e), "want *Error, got %T", err)
			assert.Equal(t, Pos{"bad.cnf", tt.line}, e.Pos)
			assert.Contains(t, err.Error(), tt.message)
			assert.True(t, strings.HasPrefix(err.Error(), "mycnf: bad.cnf:"), err.Error())
		})
	}
}

func TestParseFromAReaderRefusesIncludes(t *testing.T) {
	for _, in := range []string{"!include other.cnf\n", "[mysqld]\n!includedir /etc/mysql/conf.d/\n"} {
		_, err := Parse(strings.NewReader(in), "my.cnf")
		assert.ErrorIs(t, err, ErrInclude, in)
		assert.Contains(t, err.Error(), "use ParseFS or ParseFile")
	}
}
