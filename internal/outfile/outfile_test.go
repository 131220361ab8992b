package outfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every error names the path the user gave, with its cause: they named the
// temporary file beside it (-csv: open /no/dir/.x.csv.tmp2729896211.csv: ...),
// which the user never gave and which is gone when the command ends.
func TestErrorsNameTheDestinationNotTheTemporaryFile(t *testing.T) {
	dir := t.TempDir()

	missing := filepath.Join(dir, "no", "x.csv")
	_, err := New("-csv", missing)
	require.Error(t, err)
	assert.EqualError(t, err, "-csv: open "+missing+": no such file or directory")
	assert.ErrorIs(t, err, fs.ErrNotExist, "the cause is kept")

	path := filepath.Join(dir, "y.csv")
	o, err := New("-csv", path)
	require.NoError(t, err)
	err = o.Write(func(f *os.File) error {
		return &os.PathError{Op: "write", Path: f.Name(), Err: syscall.ENOSPC}
	})
	assert.EqualError(t, err, "-csv: write "+path+": no space left on device")
	assert.ErrorIs(t, err, syscall.ENOSPC)
	var pe *os.PathError
	assert.True(t, errors.As(err, &pe), "the cause is kept")

	o, err = New("-json", path)
	require.NoError(t, err)
	require.NoError(t, os.Mkdir(path, 0o755)) // the destination becomes a directory under it
	require.NoError(t, os.WriteFile(filepath.Join(path, "f"), nil, 0o644))
	err = o.Write(func(f *os.File) error { _, err := f.WriteString("{}\n"); return err })
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), "-json: rename onto "+path+": "), err.Error())
	assert.NotContains(t, err.Error(), ".tmp")
	var le *os.LinkError
	assert.True(t, errors.As(err, &le), "the cause is kept")

	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "no temporary file left")
	assert.Equal(t, "y.csv", entries[0].Name())
}

func TestWriteReplacesTheDestination(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.csv")
	require.NoError(t, os.WriteFile(path, []byte("old\n"), 0o600))
	o, err := New("-csv", path)
	require.NoError(t, err)
	assert.Equal(t, path, o.Path())
	require.NoError(t, o.Write(func(f *os.File) error {
		assert.Equal(t, ".csv", filepath.Ext(f.Name()), "the temporary file keeps the extension")
		_, err := f.WriteString("new\n")
		return err
	}))
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "new\n", string(b))
	fi, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), "the destination's permissions are kept, as > keeps them")

	fresh := filepath.Join(filepath.Dir(path), "fresh.csv")
	o, err = New("-csv", fresh)
	require.NoError(t, err)
	require.NoError(t, o.Write(func(f *os.File) error { _, err := f.WriteString("x\n"); return err }))
	fi, err = os.Stat(fresh)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o644), fi.Mode().Perm(), "a new file is 0644, not CreateTemp's 0600")
}

// "-" is standard output for an output that may go there (every -json):
// nothing reaches it before Commit, and nothing at all when the command
// fails first.
func TestStdoutIsWrittenAtCommit(t *testing.T) {
	var stdout strings.Builder
	o, err := NewStdout("-json", "-", &stdout)
	require.NoError(t, err)
	assert.True(t, o.IsStdout())
	require.NoError(t, o.FillStream(func(w io.Writer) error { _, err := io.WriteString(w, "{}\n"); return err }))
	assert.Empty(t, stdout.String(), "held until Commit")
	require.NoError(t, o.Commit())
	assert.Equal(t, "{}\n", stdout.String())

	stdout.Reset()
	o, err = NewStdout("-json", "-", &stdout)
	require.NoError(t, err)
	require.NoError(t, o.FillStream(func(w io.Writer) error { _, err := io.WriteString(w, "{}\n"); return err }))
	o.Discard()
	require.NoError(t, o.Commit())
	assert.Empty(t, stdout.String(), "a discarded output is not written")
	assert.ErrorContains(t, o.Write(func(*os.File) error { return nil }), "-json: standard output is not a file")

	path := filepath.Join(t.TempDir(), "r.json")
	o, err = NewStdout("-json", path, &stdout)
	require.NoError(t, err)
	assert.False(t, o.IsStdout())
	require.NoError(t, o.WriteStream(func(w io.Writer) error { _, err := io.WriteString(w, "[]\n"); return err }))
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "[]\n", string(b))
	assert.Empty(t, stdout.String())
}
