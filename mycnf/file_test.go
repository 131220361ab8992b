package mycnf

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const sample = `[client]
port=3306
[mysqld]
innodb_read_io_threads=8
[Client]
user=me
[mysqld]
innodb-read-io-threads=12
`

func TestFileGroupsSelectLookup(t *testing.T) {
	f, err := Parse(strings.NewReader(sample), "my.cnf")
	require.NoError(t, err)
	assert.Equal(t, []string{"client", "mysqld"}, f.Groups())

	var keys []string
	for _, o := range f.Select("CLIENT") {
		keys = append(keys, o.Key)
	}
	assert.Equal(t, []string{"port", "user"}, keys)
	assert.Nil(t, f.Select())
	assert.Nil(t, f.Select("nope"))

	tests := []struct {
		name      string
		group     string
		key       string
		wantValue string
		wantLine  int
		found     bool
	}{
		{"the last line wins", "mysqld", "innodb_read_io_threads", "12", 8, true},
		{"dashes match underscores", "mysqld", "innodb-read-io-threads", "12", 8, true},
		{"the group ignores case", "MySQLd", "innodb_read_io_threads", "12", 8, true},
		{"another group", "client", "user", "me", 6, true},
		{"a key in another group only", "mysqld", "port", "", 0, false},
		{"a missing group", "server", "port", "", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, ok := f.Lookup(tt.group, tt.key)
			assert.Equal(t, tt.found, ok)
			assert.Equal(t, tt.wantValue, o.Value)
			assert.Equal(t, tt.wantLine, o.Pos.Line)
		})
	}
}

func TestOptionString(t *testing.T) {
	tests := []struct {
		name string
		opt  Option
		want string
	}{
		{"bare", Option{Key: "skip-name-resolve"}, "skip-name-resolve"},
		{"empty value", Option{Key: "a", HasValue: true}, "a="},
		{"plain value", Option{Key: "a", Value: "16M", HasValue: true}, "a=16M"},
		{"semicolon needs no quotes", Option{Key: "a", Value: "x;y", HasValue: true}, "a=x;y"},
		{"hash is quoted", Option{Key: "a", Value: "x#y", HasValue: true}, `a="x#y"`},
		{"edge spaces are quoted", Option{Key: "a", Value: " x ", HasValue: true}, `a=" x "`},
		{"quotes and backslashes are escaped", Option{Key: "a", Value: `it's "C:\x"`, HasValue: true}, `a="it's \"C:\\x\""`},
		{"control characters are escaped", Option{Key: "a", Value: "1\t2\n3\r\b", HasValue: true}, `a="1\t2\n3\r\b"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.opt.String())
			f, err := Parse(strings.NewReader("[g]\n"+tt.opt.String()+"\n"), "x")
			require.NoError(t, err)
			require.Len(t, f.Options, 1)
			assert.Equal(t, tt.opt.Value, f.Options[0].Value, "reads back")
			assert.Equal(t, tt.opt.HasValue, f.Options[0].HasValue)
		})
	}
}

func TestWriteToReadsBack(t *testing.T) {
	f, err := ParseFile("testdata/study_d_my.cnf")
	require.NoError(t, err)
	f2, err := Parse(strings.NewReader(sample), "s")
	require.NoError(t, err)
	for _, f := range []*File{f, f2} {
		var buf bytes.Buffer
		n, err := f.WriteTo(&buf)
		require.NoError(t, err)
		assert.Equal(t, int64(buf.Len()), n)
		back, err := Parse(&buf, "back.cnf")
		require.NoError(t, err)
		assert.Equal(t, strip(f), strip(back))
	}
}

// An option built by hand with a group or key no line can carry used to be
// written anyway, giving a file that Parse refuses ("[]") or reads as other
// options ("[a]b]", a key with '=' in it).
func TestWriteToRefusesAnOptionItCannotReadBack(t *testing.T) {
	tests := []struct {
		name string
		opt  Option
		want string
	}{
		{"empty group", Option{Group: "", Key: "a"}, `Group = ""`},
		{"bracket in group", Option{Group: "a]b", Key: "a"}, `Group = "a]b"`},
		{"line break in group", Option{Group: "a\nb", Key: "a"}, `Group = "a\nb"`},
		{"padded group", Option{Group: " mysqld", Key: "a"}, `Group = " mysqld"`},
		{"empty key", Option{Group: "mysqld"}, "Key: option without a name"},
		{"'=' in key", Option{Group: "mysqld", Key: "a=b"}, "Key: invalid character '='"},
		{"space in key", Option{Group: "mysqld", Key: "a b"}, "Key: space in option name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &File{Options: []Option{{Group: "mysqld", Key: "ok"}, tt.opt}}
			var buf bytes.Buffer
			n, err := f.WriteTo(&buf)
			require.ErrorIs(t, err, ErrSyntax)
			assert.ErrorContains(t, err, "Options[1]."+tt.want)
			assert.Zero(t, n)
			assert.Zero(t, buf.Len(), "nothing written")
		})
	}
}
