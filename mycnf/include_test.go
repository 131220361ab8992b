package mycnf

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func mapFS(files map[string]string) fstest.MapFS {
	m := fstest.MapFS{}
	for name, data := range files {
		m[name] = &fstest.MapFile{Data: []byte(data)}
	}
	return m
}

func TestIncludesAreReadInPlace(t *testing.T) {
	tests := []struct {
		name    string
		files   map[string]string
		want    []opt
		sources []string
	}{
		{
			name: "include relative to the including file",
			files: map[string]string{
				"etc/my.cnf":        "[mysqld]\na=1\n!include extra/x.cnf\n[mysqld]\nc=3\n",
				"etc/extra/x.cnf":   "[client]\nb=2\n",
				"etc/extra/unused":  "garbage",
				"extra/x.cnf":       "[wrong]\nw=1\n",
				"etc/extra/y.cnf":   "[mysqld]\ny=1\n",
				"etc/extra/z.notcf": "x",
			},
			want:    []opt{{"mysqld", "a", "1", true}, {"client", "b", "2", true}, {"mysqld", "c", "3", true}},
			sources: []string{"etc/my.cnf", "etc/extra/x.cnf"},
		},
		{
			name: "an included file does not inherit the group",
			files: map[string]string{
				"my.cnf": "[mysqld]\n!include g.cnf\nafter=1\n",
				"g.cnf":  "[client]\nx=1\n",
			},
			// After the include the including file is back in its own group.
			want:    []opt{{"client", "x", "1", true}, {"mysqld", "after", "1", true}},
			sources: []string{"my.cnf", "g.cnf"},
		},
		{
			name: "an absolute include is rooted at the file system",
			files: map[string]string{
				"conf/my.cnf":         "!include /etc/mysql/base.cnf\n",
				"etc/mysql/base.cnf":  "[mysqld]\nbase=1\n",
				"conf/etc/mysql/base": "x",
			},
			want:    []opt{{"mysqld", "base", "1", true}},
			sources: []string{"conf/my.cnf", "etc/mysql/base.cnf"},
		},
		{
			name: "includedir reads the .cnf files in name order",
			files: map[string]string{
				"my.cnf":            "[mysqld]\nfirst=1\n!includedir conf.d/\n",
				"conf.d/20-b.cnf":   "[mysqld]\nb=1\n",
				"conf.d/10-a.cnf":   "[mysqld]\na=1\n",
				"conf.d/README":     "not an option file",
				"conf.d/30.cnf.bak": "[mysqld]\nbak=1\n",
				"conf.d/sub/x.cnf":  "[mysqld]\nsub=1\n",
			},
			want:    []opt{{"mysqld", "first", "1", true}, {"mysqld", "a", "1", true}, {"mysqld", "b", "1", true}},
			sources: []string{"my.cnf", "conf.d/10-a.cnf", "conf.d/20-b.cnf"},
		},
		{
			name: "the same file twice side by side is not a cycle",
			files: map[string]string{
				"my.cnf": "!include x.cnf\n!include ./x.cnf\n",
				"x.cnf":  "[mysqld]\nx=1\n",
			},
			want:    []opt{{"mysqld", "x", "1", true}, {"mysqld", "x", "1", true}},
			sources: []string{"my.cnf", "x.cnf", "x.cnf"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys := mapFS(tt.files)
			top := tt.sources[0]
			f, err := ParseFS(fsys, top)
			require.NoError(t, err)
			assert.Equal(t, tt.want, strip(f))
			assert.Equal(t, tt.sources, f.Sources)
		})
	}
}

func TestIncludeErrorsNameTheLine(t *testing.T) {
	deep := map[string]string{}
	for i := 0; i < 30; i++ {
		deep[depthName(i)] = "[mysqld]\nlevel=1\n!include " + depthName(i+1) + "\n"
	}
	tests := []struct {
		name    string
		files   map[string]string
		reader  Reader
		target  error
		at      Pos
		message string
	}{
		{
			name:    "a missing include",
			files:   map[string]string{"my.cnf": "[mysqld]\n!include nope.cnf\n"},
			target:  fs.ErrNotExist,
			at:      Pos{"my.cnf", 2},
			message: "!include nope.cnf: bad include: open nope.cnf",
		},
		{
			name:    "a missing includedir",
			files:   map[string]string{"my.cnf": "!includedir conf.d\n"},
			target:  ErrInclude,
			at:      Pos{"my.cnf", 1},
			message: "!includedir conf.d: bad include",
		},
		{
			name:    "a file that includes itself",
			files:   map[string]string{"my.cnf": "[mysqld]\na=1\n!include my.cnf\n"},
			target:  ErrInclude,
			at:      Pos{"my.cnf", 3},
			message: "include cycle my.cnf -> my.cnf",
		},
		{
			name: "a cycle through three files",
			files: map[string]string{
				"my.cnf":   "!include a/b.cnf\n",
				"a/b.cnf":  "!include ../c.cnf\n",
				"c.cnf":    "\n\n!includedir a\n",
				"a/zz.txt": "",
			},
			target:  ErrInclude,
			at:      Pos{"c.cnf", 3},
			message: "include cycle a/b.cnf -> c.cnf -> a/b.cnf",
		},
		{
			name:    "an include that climbs out of the file system",
			files:   map[string]string{"my.cnf": "!include ../../etc/passwd\n"},
			target:  ErrInclude,
			at:      Pos{"my.cnf", 1},
			message: "!include ../../etc/passwd: bad include",
		},
		{
			name:    "an error inside an included file names that file",
			files:   map[string]string{"my.cnf": "!include x.cnf\n", "x.cnf": "[mysqld]\n\nbroken line here\n"},
			target:  ErrSyntax,
			at:      Pos{"x.cnf", 3},
			message: "space in option name",
		},
		{
			name:    "a chain deeper than MySQL's ten levels",
			files:   deep,
			target:  ErrLimit,
			at:      Pos{depthName(10), 3},
			message: "includes nested deeper than 10 (Reader.MaxDepth)",
		},
		{
			name:    "a chain deeper than the Reader allows",
			files:   deep,
			reader:  Reader{MaxDepth: 2},
			target:  ErrLimit,
			at:      Pos{depthName(2), 3},
			message: "deeper than 2",
		},
		{
			name:    "an included file over the size limit",
			files:   map[string]string{"my.cnf": "!include big.cnf\n", "big.cnf": "[mysqld]\n" + strings.Repeat("a=1\n", 100)},
			reader:  Reader{MaxFileSize: 100},
			target:  ErrLimit,
			at:      Pos{"my.cnf", 1},
			message: "!include big.cnf: file longer than 100 bytes (Reader.MaxFileSize)",
		},
		{
			name: "too many files",
			files: map[string]string{
				"my.cnf":    "!includedir d\n",
				"d/1.cnf":   "",
				"d/2.cnf":   "",
				"d/3.cnf":   "",
				"d/4.cnf":   "",
				"d/x/y.cnf": "",
			},
			reader:  Reader{MaxFiles: 4},
			target:  ErrLimit,
			at:      Pos{"my.cnf", 1},
			message: "more than 4 files read (Reader.MaxFiles)",
		},
		{
			name: "a diamond that doubles at every level runs into the total size",
			files: func() map[string]string {
				m := map[string]string{}
				for i := 0; i < 10; i++ {
					m[depthName(i)] = "!include " + depthName(i+1) + "\n!include " + depthName(i+1) + "\n"
				}
				m[depthName(10)] = "[mysqld]\n" + strings.Repeat("a=1\n", 1000)
				return m
			}(),
			reader:  Reader{MaxFiles: 1 << 20, MaxTotalSize: 1 << 20, MaxOptions: 1 << 20},
			target:  ErrLimit,
			message: "files read add up to more than 1048576 bytes (Reader.MaxTotalSize)",
		},
		{
			// Seven includes of 1 MiB of "a=1" lines each took about 1 GB
			// before options were bounded.
			name: "includes that add up to many options run into the option limit",
			files: func() map[string]string {
				m := map[string]string{"my.cnf": ""}
				for i := range 7 {
					name := "part" + strconv.Itoa(i) + ".cnf"
					m["my.cnf"] += "!include " + name + "\n"
					m[name] = "[mysqld]\n" + strings.Repeat("a=1\n", 4000)
				}
				return m
			}(),
			target:  ErrLimit,
			message: "more than 16384 options in all files read (Reader.MaxOptions)",
			at:      Pos{"part4.cnf", 386},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			top := "my.cnf"
			if _, ok := tt.files[top]; !ok {
				top = depthName(0)
			}
			_, err := tt.reader.ParseFS(mapFS(tt.files), top)
			require.Error(t, err)
			assert.ErrorIs(t, err, tt.target)
			assert.Contains(t, err.Error(), tt.message)
			var e *Error
			require.True(t, errors.As(err, &e), "want *Error, got %T", err)
			if tt.at != (Pos{}) {
				assert.Equal(t, tt.at, e.Pos)
			}
		})
	}
}

func depthName(i int) string { return "d" + strings.Repeat("x", i) + ".cnf" }

func TestParseFileResolvesAgainstTheIncludingFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) {
		t.Helper()
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(data), 0o644))
	}
	write("etc/my.cnf", "[mysqld]\ninnodb_read_io_threads=8\n!include sub/more.cnf\n!includedir "+filepath.Join(dir, "conf.d")+"\n")
	write("etc/sub/more.cnf", "[mysqld]\ninnodb_write_io_threads=2\n")
	write("conf.d/b.cnf", "[mysqld]\nb=1\n")
	write("conf.d/a.cnf", "[mysqld]\na=1\n")
	write("conf.d/c.ini", "[mysqld]\nc=1\n")

	// Run from another directory, so that a path resolved against the working
	// directory (as MySQL does) would fail.
	t.Chdir(t.TempDir())
	f, err := ParseFile(filepath.Join(dir, "etc/my.cnf"))
	require.NoError(t, err)
	assert.Equal(t, []opt{
		{"mysqld", "innodb_read_io_threads", "8", true},
		{"mysqld", "innodb_write_io_threads", "2", true},
		{"mysqld", "a", "1", true},
		{"mysqld", "b", "1", true},
	}, strip(f))
	assert.Equal(t, filepath.Join(dir, "etc/sub/more.cnf"), f.Options[1].Pos.File)

	_, err = ParseFile(filepath.Join(dir, "missing.cnf"))
	assert.ErrorIs(t, err, fs.ErrNotExist)
}

func TestParseFileDetectsACycleThroughDifferentSpellings(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.cnf"), []byte("!include ./b.cnf\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "b.cnf"), []byte("!include "+filepath.Join(dir, "a.cnf")+"\n"), 0o644))
	t.Chdir(dir)
	_, err := ParseFile("a.cnf")
	assert.ErrorIs(t, err, ErrInclude)
	assert.Contains(t, err.Error(), "include cycle")
}
