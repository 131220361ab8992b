package outfile

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// /dev/stdout is a link into /proc, which names an open file rather than a
// path: it is written through, never renamed over, and when it is the
// standard output the command was given, it is that output, as "-" is.
func TestAProcLinkIsWrittenThrough(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "redirected.txt")
	f, err := os.Create(file) // the shell's "> redirected.txt"
	require.NoError(t, err)
	defer f.Close()
	_, err = f.WriteString("text\n")
	require.NoError(t, err)
	stdout := filepath.Join(dir, "stdout")
	require.NoError(t, os.Symlink(fmt.Sprintf("/proc/self/fd/%d", f.Fd()), stdout)) // as /dev/stdout

	o, err := New("-json", stdout)
	require.NoError(t, err)
	require.NoError(t, o.WriteStream(writeString("{}\n")))
	fi, err := os.Lstat(stdout)
	require.NoError(t, err)
	assert.Equal(t, os.ModeSymlink, fi.Mode().Type(), "the link is kept")
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	assert.Equal(t, "text\n{}\n", string(b), "written after what the command wrote there")

	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer r.Close()
	defer w.Close()
	o, err = NewStdout("-json", fmt.Sprintf("/proc/self/fd/%d", w.Fd()), w)
	require.NoError(t, err)
	assert.True(t, o.IsStdout(), "the command's own standard output, as -")
	require.NoError(t, o.WriteStream(writeString("[]\n")))
	require.NoError(t, w.Close())
	b, err = io.ReadAll(r)
	require.NoError(t, err)
	assert.Equal(t, "[]\n", string(b))
}
