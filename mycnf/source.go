package mycnf

import (
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/innosim/innosim/internal/infile"
)

// source is where included files come from: an fs.FS or the operating system.
// Names are whatever the source uses (slash paths in an fs.FS, OS paths
// otherwise) and are what Pos.File shows.
type source interface {
	open(name string) (io.ReadCloser, error)
	// resolve returns the name of the file or directory arg names, written in
	// a !include or !includedir line of file from.
	resolve(from, arg string) (string, error)
	// optionFiles returns the names of the option files in directory dir, in
	// name order: the entries that are not directories and end in ".cnf", as
	// MySQL reads them on Unix (my_dir sorts by name; on Windows MySQL also
	// reads ".ini").
	optionFiles(dir string) ([]string, error)
	// id returns a name that is equal for two names of the same file, for the
	// cycle guard.
	id(name string) string
}

// fsSource resolves includes inside an fs.FS.
type fsSource struct{ fsys fs.FS }

// open opens name only if it is a regular file, checked before opening (an
// fs.FS may block in Open on a named pipe) and again on the open file.
func (s fsSource) open(name string) (io.ReadCloser, error) {
	if fi, err := fs.Stat(s.fsys, name); err != nil {
		return nil, err
	} else if err := regular(name, fi); err != nil {
		return nil, err
	}
	f, err := s.fsys.Open(name)
	if err != nil {
		return nil, err
	}
	return checkOpened(name, f)
}

// checkOpened closes f and returns an error unless it is a regular file.
func checkOpened(name string, f fs.File) (io.ReadCloser, error) {
	fi, err := f.Stat()
	if err == nil {
		err = regular(name, fi)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// errNotRegular is the error for an option file that is a directory, a named
// pipe, a device or a socket: reading a pipe or a terminal can block forever
// and a device can be endless, so only regular files are read.
var errNotRegular = infile.ErrNotRegular

// regular returns nil when fi is a regular file, else an *fs.PathError
// wrapping errNotRegular that names the file and its type.
func regular(name string, fi fs.FileInfo) error { return infile.Regular(name, fi) }

func (s fsSource) resolve(from, arg string) (string, error) {
	var p string
	if strings.HasPrefix(arg, "/") {
		p = strings.TrimLeft(path.Clean(arg), "/")
		if p == "" {
			p = "."
		}
	} else {
		p = path.Join(path.Dir(from), arg)
	}
	if !fs.ValidPath(p) {
		return "", &fs.PathError{Op: "resolve", Path: arg, Err: fs.ErrInvalid}
	}
	return p, nil
}

func (s fsSource) optionFiles(dir string) ([]string, error) {
	entries, err := fs.ReadDir(s.fsys, dir) // sorted by name
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".cnf") {
			out = append(out, path.Join(dir, e.Name()))
		}
	}
	return out, nil
}

func (s fsSource) id(name string) string { return path.Clean(name) }

// osSource resolves includes on the operating system's file system.
type osSource struct{}

// open opens name only if it is a regular file (infile.Open): it checks
// before opening, because opening a named pipe for reading blocks until a
// writer comes, opens without blocking and checks again, so that a pipe
// swapped in between cannot block either; and a read of a file with no data
// to give (/proc/kmsg, which stat calls regular) fails instead of waiting.
func (osSource) open(name string) (io.ReadCloser, error) {
	f, err := infile.Open(name)
	if err != nil {
		return nil, err
	}
	return f, nil
}

func (osSource) resolve(from, arg string) (string, error) {
	if filepath.IsAbs(arg) {
		return filepath.Clean(arg), nil
	}
	return filepath.Join(filepath.Dir(from), arg), nil
}

func (osSource) optionFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	var out []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".cnf") {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out, nil
}

func (osSource) id(name string) string {
	if abs, err := filepath.Abs(name); err == nil {
		return abs
	}
	return filepath.Clean(name)
}
