// Package outfile writes the files innosim's commands produce (run's -csv,
// -json and -plot, reproduce's -json and -charts, live's -csv, calibrate's
// -out, every command's -json) so that a path that cannot be written is
// refused before the work starts and an interrupted or failed command leaves
// no partial file. An output that may go to the command's standard output
// instead (NewStdout: every -json) takes the path "-" for it.
package outfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Stdout is the path that names the command's standard output (NewStdout).
const Stdout = "-"

// File is one output file: created as a temporary file beside its
// destination before the work starts (New), so that a directory that does
// not exist or cannot be written is refused at once, and renamed over the
// destination only when complete (Write, or Fill then Commit). A File of
// no path is no output: every method is then a no-op. Its errors begin with
// the flag and name the destination, never the temporary file, which the
// user did not give and which is gone when the command ends; they wrap
// their cause (errors.Is(err, fs.ErrNotExist), errors.As a *os.PathError).
type File struct {
	flag, path string
	tmp        *os.File
	filled     bool // tmp is written and closed (Fill), waiting for Commit

	stdout io.Writer     // the command's standard output, for the path "-" (NewStdout)
	held   *bytes.Buffer // what FillStream wrote for stdout, until Commit
}

// New creates the temporary file for path, or refuses path when it names
// something other than a regular file; flag (-csv) names the file in errors.
// The temporary name keeps path's extension, for writers that choose a
// format by it. An empty path is no output.
func New(flag, path string) (*File, error) {
	o := &File{flag: flag, path: path}
	if path == "" {
		return o, nil
	}
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s %s: not a regular file", flag, path)
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp*"+filepath.Ext(base))
	if err != nil {
		var pe *os.PathError // the temporary name CreateTemp tried
		if errors.As(err, &pe) {
			return nil, o.named(err, pe.Path)
		}
		return nil, fmt.Errorf("%s: %w", flag, err)
	}
	o.tmp = tmp
	return o, nil
}

// NewStdout is New for an output that may go to the command's standard
// output, w, instead of a file: the path "-" names w. The output is then
// written with WriteStream or FillStream and Commit (Write and Fill, which
// hand fn an *os.File, return an error), and reaches w only at Commit, so
// that a command that fails before it writes nothing there either.
func NewStdout(flag, path string, w io.Writer) (*File, error) {
	if path == Stdout {
		return &File{flag: flag, path: path, stdout: w}, nil
	}
	return New(flag, path)
}

// IsStdout reports whether the output goes to the command's standard output
// (NewStdout's "-").
func (o *File) IsStdout() bool { return o.stdout != nil }

// WriteStream writes the output with fn, given an io.Writer, and commits it:
// Write for a file, or to standard output.
func (o *File) WriteStream(fn func(w io.Writer) error) error {
	if err := o.FillStream(fn); err != nil {
		return err
	}
	return o.Commit()
}

// FillStream writes the output with fn, given an io.Writer: Fill for a file;
// for standard output, into memory until Commit.
func (o *File) FillStream(fn func(w io.Writer) error) error {
	if o.stdout == nil {
		return o.Fill(func(f *os.File) error { return fn(f) })
	}
	o.held = new(bytes.Buffer)
	if err := fn(o.held); err != nil {
		o.held = nil
		return fmt.Errorf("%s: %w", o.flag, err)
	}
	return nil
}

// Path returns the destination, as given to New.
func (o *File) Path() string { return o.path }

// Write writes the output with fn (given the temporary file, open for
// writing) and renames it over the destination.
func (o *File) Write(fn func(f *os.File) error) error {
	if err := o.Fill(fn); err != nil {
		return err
	}
	return o.Commit()
}

// Fill writes the output with fn into its temporary file and closes it; the
// destination is not touched until Commit. On error the temporary file is
// removed.
func (o *File) Fill(fn func(f *os.File) error) error {
	if o.stdout != nil {
		return fmt.Errorf("%s: standard output is not a file: want a file path", o.flag)
	}
	if o.tmp == nil {
		return nil
	}
	err := fn(o.tmp)
	if err == nil {
		err = o.tmp.Chmod(0o644) // CreateTemp's 0600 is for secrets, not results
	}
	if cerr := o.tmp.Close(); err == nil {
		err = cerr
	}
	o.filled = true
	if err != nil {
		tmp := o.tmp.Name()
		o.Discard()
		return o.named(err, tmp)
	}
	return nil
}

// Commit renames a filled output over its destination, or writes it to
// standard output.
func (o *File) Commit() error {
	if o.stdout != nil {
		if o.held == nil {
			return nil
		}
		_, err := o.held.WriteTo(o.stdout)
		o.held = nil
		return err
	}
	if o.tmp == nil {
		return nil
	}
	if err := os.Rename(o.tmp.Name(), o.path); err != nil {
		tmp := o.tmp.Name()
		o.Discard()
		return o.named(err, tmp)
	}
	o.tmp = nil
	return nil
}

// named returns err, a failure of the temporary file tmp, told by the
// destination's name and prefixed with the flag: tmp's name is replaced by
// the destination's in its message, and a rename's two names ("rename TMP
// PATH: ...") by the one the user gave ("rename onto PATH: ..."). It wraps err.
func (o *File) named(err error, tmp string) error {
	var le *os.LinkError
	msg := strings.ReplaceAll(err.Error(), tmp, o.path)
	if errors.As(err, &le) && le.Old == tmp {
		msg = fmt.Sprintf("rename onto %s: %v", o.path, le.Err)
	}
	return &namedError{msg: o.flag + ": " + msg, err: err}
}

// namedError is an error of the temporary file with the destination's name
// in its message (File.named).
type namedError struct {
	msg string
	err error
}

// Error returns the message, which names the destination.
func (e *namedError) Error() string { return e.msg }

// Unwrap returns the temporary file's error.
func (e *namedError) Unwrap() error { return e.err }

// Discard removes the temporary file, if it is still there: the output is
// not written. The caller defers it.
func (o *File) Discard() {
	o.held = nil
	if o.tmp != nil {
		if !o.filled {
			_ = o.tmp.Close()
		}
		_ = os.Remove(o.tmp.Name()) // the command is failing already: nothing better to do
		o.tmp = nil
	}
}
