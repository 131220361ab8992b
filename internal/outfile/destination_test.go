package outfile

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/innosim/innosim/internal/cmdflag"
)

func writeString(s string) func(w io.Writer) error {
	return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
}

// A symbolic link is written through, as > writes it: its target gets the
// output and the link stays a link. The link was renamed over: as root,
// run --json /dev/stdout replaced /dev/stdout with a regular file.
func TestASymlinkIsWrittenThroughAndKept(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target.json")
	require.NoError(t, os.WriteFile(target, []byte("old\n"), 0o600))
	sub := filepath.Join(dir, "sub")
	require.NoError(t, os.Mkdir(sub, 0o755))
	link := filepath.Join(sub, "link.json")
	require.NoError(t, os.Symlink("../target.json", link)) // relative to the link's directory
	chain := filepath.Join(dir, "chain.json")
	require.NoError(t, os.Symlink(link, chain))

	for _, path := range []string{link, chain} {
		o, err := New("-json", path)
		require.NoError(t, err)
		require.NoError(t, o.WriteStream(writeString("new "+filepath.Base(path)+"\n")))
		fi, err := os.Lstat(path)
		require.NoError(t, err)
		assert.Equal(t, os.ModeSymlink, fi.Mode().Type(), "%s is still a link", path)
		b, err := os.ReadFile(target)
		require.NoError(t, err)
		assert.Equal(t, "new "+filepath.Base(path)+"\n", string(b))
		fi, err = os.Stat(target)
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), "the target keeps its permissions, as > keeps them")
	}

	dangling := filepath.Join(dir, "dangling.csv")
	require.NoError(t, os.Symlink("made.csv", dangling))
	o, err := New("-csv", dangling)
	require.NoError(t, err)
	require.NoError(t, o.Write(func(f *os.File) error { _, err := f.WriteString("a\n"); return err }))
	b, err := os.ReadFile(filepath.Join(dir, "made.csv"))
	require.NoError(t, err, "a dangling link's target is made, as > makes it")
	assert.Equal(t, "a\n", string(b))

	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		assert.False(t, strings.HasPrefix(e.Name(), "."), "temporary file %s left", e.Name())
	}
}

// "-" names standard output only where an output may go there: a chart
// refuses it, plainly, instead of writing a file named "-".
func TestDashIsStandardOutputOrRefused(t *testing.T) {
	t.Chdir(t.TempDir())
	_, err := New("-plot", "-")
	require.Error(t, err)
	assert.True(t, cmdflag.IsUsage(err))
	assert.EqualError(t, err, "-plot -: this output cannot go to standard output: want a file path")
	_, statErr := os.Stat("-")
	assert.True(t, os.IsNotExist(statErr), "no file named -")

	var stdout strings.Builder
	o, err := NewStdout("-csv", "-", &stdout)
	require.NoError(t, err)
	assert.True(t, o.IsStdout())
	require.NoError(t, o.WriteStream(writeString("a,b\n")))
	assert.Equal(t, "a,b\n", stdout.String())
}

// A directory is refused before any work, as a command-line error.
func TestADirectoryIsRefused(t *testing.T) {
	dir := t.TempDir()
	_, err := New("-out", dir)
	require.Error(t, err)
	assert.True(t, cmdflag.IsUsage(err))
	assert.EqualError(t, err, "-out "+dir+": a directory: want a file path")
}

// The temporary file's name is short, whatever the destination's: a legal
// name of 254 bytes was refused (file name too long) for its temporary
// ".<name>.tmp<digits>.csv".
func TestALongNameIsWritten(t *testing.T) {
	dir := t.TempDir()
	name := strings.Repeat("n", 250) + ".csv"
	require.Len(t, name, 254)
	o, err := New("-csv", filepath.Join(dir, name))
	require.NoError(t, err)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1)
	assert.Regexp(t, `^\.n{32}\.tmp[0-9]+\.csv$`, entries[0].Name(), "the temporary file: .name.tmpN.ext, its name cut short")
	require.NoError(t, o.WriteStream(writeString("x\n")))
	b, err := os.ReadFile(filepath.Join(dir, name))
	require.NoError(t, err)
	assert.Equal(t, "x\n", string(b))
}

// An output that is the file of an input is refused, whatever path names
// it: run --cnf ok.cnf --csv ok.cnf replaced the option file.
func TestAnOutputThatIsAnInputIsRefused(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "my.cnf")
	require.NoError(t, os.WriteFile(in, []byte("[mysqld]\n"), 0o644))
	hard := filepath.Join(dir, "hard.cnf")
	require.NoError(t, os.Link(in, hard))
	soft := filepath.Join(dir, "soft.cnf")
	require.NoError(t, os.Symlink(in, soft))
	other := filepath.Join(dir, "other.csv")
	require.NoError(t, os.WriteFile(other, nil, 0o644))

	for _, path := range []string{in, "./" + filepath.Base(in), hard, soft} {
		t.Run(path, func(t *testing.T) {
			t.Chdir(dir)
			o, err := New("-csv", path)
			require.NoError(t, err)
			defer o.Discard()
			err = CheckInputs([]*File{o}, "-cnf "+in, in)
			require.Error(t, err)
			assert.True(t, cmdflag.IsUsage(err))
			assert.EqualError(t, err, "-csv "+path+" is the file of -cnf "+in+": the output would replace its input; want another path")
		})
	}
	o, err := New("-csv", other)
	require.NoError(t, err)
	defer o.Discard()
	assert.NoError(t, o.CheckInput("-cnf "+in, in))
	n, err := New("-csv", filepath.Join(dir, "new.csv"))
	require.NoError(t, err)
	defer n.Discard()
	assert.NoError(t, n.CheckInput("-cnf "+in, in), "an output not there yet replaces nothing")
	b, err := os.ReadFile(in)
	require.NoError(t, err)
	assert.Equal(t, "[mysqld]\n", string(b))
}
