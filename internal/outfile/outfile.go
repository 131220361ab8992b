// Package outfile writes the files innosim's commands produce (run's -csv,
// -json and -plot, reproduce's -json and -charts, live's -csv, calibrate's
// -out, every command's -json) so that a path that cannot be written is
// refused before the work starts and an interrupted or failed command leaves
// no partial file.
//
// A path is written as the shell's > writes it, but atomically where it can
// be: a new or regular file is replaced whole (a temporary file beside it,
// renamed over it when complete); a symbolic link is followed to its target,
// which is written (the link itself is kept); a character device, a named
// pipe or a link into /proc (/dev/stdout, /dev/null, a FIFO with its reader)
// is opened before the work starts and written once the output is complete.
// An output that may go to the command's standard output (NewStdout: every
// output but a chart) takes the path "-" for it, and so does a path that
// names the standard output it was given (/dev/stdout, when that is the
// command's); an output that cannot (New) refuses "-". A directory is
// refused, and so is an output that is the file of one of the command's
// inputs (CheckInput).
package outfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/innosim/innosim/internal/cmdflag"
)

// Stdout is the path that names the command's standard output (NewStdout).
const Stdout = "-"

// File is one output: created as a temporary file beside its destination
// before the work starts (New), so that a directory that does not exist or
// cannot be written is refused at once, and renamed over the destination
// only when complete (Write, or Fill then Commit); or, for a destination
// that is a stream (a device, a named pipe, standard output), held until
// Commit writes it there. A File of no path is no output: every method is
// then a no-op. Its errors begin with the flag and name the destination,
// never the temporary file, which the user did not give and which is gone
// when the command ends; they wrap their cause (errors.Is(err,
// fs.ErrNotExist), errors.As a *os.PathError).
type File struct {
	flag, path string
	dest       string   // where the temporary file is renamed: path, or the target of path's links
	tmp        *os.File // the temporary file, beside dest (atomic) or in the system's (a stream)
	filled     bool     // tmp is written and closed (Fill), waiting for Commit

	stream io.Writer     // a destination written at Commit, not renamed: standard output or through
	held   *bytes.Buffer // what FillStream wrote for stream, until Commit
	// through is the open device, named pipe or /proc link that path
	// names, which stream writes; nil for standard output.
	through *os.File
}

// New creates the output of path, or refuses path: "-" (this output cannot
// go to standard output), a directory, a named pipe with no reader, a path
// whose directory does not exist or cannot be written; flag (-plot) names
// the file in errors. A temporary file keeps path's extension, for writers
// that choose a format by it. An empty path is no output.
func New(flag, path string) (*File, error) {
	if path == Stdout {
		return nil, cmdflag.Usagef("%s -: this output cannot go to standard output: want a file path", flag)
	}
	return create(flag, path)
}

// NewStdout is New for an output that may go to the command's standard
// output, w, instead of a file: the path "-" names w, and so does a path
// that names the file w is (/dev/stdout when w is the process's standard
// output), so that the two are one output. The output is then written with
// WriteStream or FillStream and Commit (Write and Fill, which hand fn an
// *os.File, return an error), and reaches w only at Commit, so that a
// command that fails before it writes nothing there either.
func NewStdout(flag, path string, w io.Writer) (*File, error) {
	if path == Stdout {
		return &File{flag: flag, path: path, stream: w}, nil
	}
	o, err := create(flag, path)
	if err != nil || o.through == nil || !sameAsWriter(o.through, w) {
		return o, err
	}
	o.Discard()
	return &File{flag: flag, path: path, stream: w}, nil
}

// sameAsWriter reports whether f is the file that w writes, when w is a
// file.
func sameAsWriter(f *os.File, w io.Writer) bool {
	wf, ok := w.(interface{ Stat() (fs.FileInfo, error) })
	if !ok {
		return false
	}
	a, errA := f.Stat()
	b, errB := wf.Stat()
	return errA == nil && errB == nil && os.SameFile(a, b)
}

// create makes the output of path (New), "-" being a file's name here.
func create(flag, path string) (*File, error) {
	o := &File{flag: flag, path: path, dest: path}
	if path == "" {
		return o, nil
	}
	dest, kind, err := destination(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", flag, err)
	}
	switch kind {
	case kindDir:
		return nil, cmdflag.Usagef("%s %s: a directory: want a file path", flag, cmdflag.QuotePath(path))
	case kindStream:
		f, err := openThrough(path)
		if err != nil {
			return nil, o.refusedStream(err)
		}
		o.through, o.stream = f, f
		return o, nil
	}
	o.dest = dest
	dir, base := filepath.Split(dest)
	if dir == "" {
		dir = "."
	}
	// A short name: a name of 255 bytes, the longest most file systems
	// take, is a legal output whose ".name.tmp" would not be.
	ext := filepath.Ext(base)
	if len(ext) > maxExt {
		ext = ""
	}
	stem := strings.TrimSuffix(base, ext)
	if len(stem) > maxStem {
		stem = stem[:maxStem]
	}
	tmp, err := os.CreateTemp(dir, "."+stem+".tmp*"+ext)
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

// maxExt bounds the extension a temporary file keeps (".svg", ".json"),
// and maxStem the bytes of the rest of the name it begins with.
const (
	maxExt  = 8
	maxStem = 32
)

// refusedStream is the error of opening a stream destination.
func (o *File) refusedStream(err error) error {
	if isNoReader(err) {
		return cmdflag.Usagef("%s %s: a named pipe with no reader: start its reader first, or want a file path", o.flag, cmdflag.QuotePath(o.path))
	}
	return fmt.Errorf("%s: %w", o.flag, err)
}

// IsStdout reports whether the output goes to the command's standard output
// (NewStdout's "-", or the path of the file it is).
func (o *File) IsStdout() bool { return o.stream != nil && o.through == nil }

// Path returns the destination, as given to New.
func (o *File) Path() string { return o.path }

// WriteStream writes the output with fn, given an io.Writer, and commits it:
// Write for a file, or to standard output.
func (o *File) WriteStream(fn func(w io.Writer) error) error {
	if err := o.FillStream(fn); err != nil {
		return err
	}
	return o.Commit()
}

// FillStream writes the output with fn, given an io.Writer: Fill for a file;
// for a stream (standard output, a device), into memory until Commit.
func (o *File) FillStream(fn func(w io.Writer) error) error {
	if o.stream == nil {
		return o.Fill(func(f *os.File) error { return fn(f) })
	}
	o.held = new(bytes.Buffer)
	if err := fn(o.held); err != nil {
		o.held = nil
		return fmt.Errorf("%s: %w", o.flag, err)
	}
	return nil
}

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
// removed. A stream destination (a device, a named pipe) is filled through
// a temporary file of the system's (os.TempDir) that Commit copies there;
// standard output is refused (use FillStream).
func (o *File) Fill(fn func(f *os.File) error) error {
	if o.IsStdout() {
		return fmt.Errorf("%s: standard output is not a file: want a file path", o.flag)
	}
	if o.through != nil && o.tmp == nil {
		ext := filepath.Ext(o.path)
		if len(ext) > maxExt {
			ext = ""
		}
		tmp, err := os.CreateTemp("", "innosim*"+ext)
		if err != nil {
			return fmt.Errorf("%s: %w", o.flag, err)
		}
		o.tmp = tmp
	}
	if o.tmp == nil {
		return nil
	}
	err := fn(o.tmp)
	if err == nil && o.through == nil {
		err = o.tmp.Chmod(o.mode()) // CreateTemp's 0600 is for secrets, not results
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

// mode is the permission of the file Commit puts in place: the
// destination's, when it is there (as > keeps it), else 0644.
func (o *File) mode() fs.FileMode {
	if fi, err := os.Stat(o.dest); err == nil && fi.Mode().IsRegular() {
		return fi.Mode().Perm()
	}
	return 0o644
}

// Commit renames a filled output over its destination, or writes it to its
// stream (standard output, a device, a named pipe).
func (o *File) Commit() error {
	switch {
	case o.stream != nil && o.tmp != nil: // filled through a temporary file
		err := o.copyTmp()
		o.Discard()
		if err != nil {
			return fmt.Errorf("%s: %w", o.flag, err)
		}
		return nil
	case o.stream != nil:
		if o.held == nil {
			return nil
		}
		_, err := o.held.WriteTo(o.stream)
		o.held = nil
		if err == nil && o.through != nil {
			err = o.through.Close()
			o.through = nil
		}
		if err != nil {
			o.Discard()
			return fmt.Errorf("%s: %w", o.flag, err)
		}
		return nil
	case o.tmp == nil:
		return nil
	}
	if err := os.Rename(o.tmp.Name(), o.dest); err != nil {
		tmp := o.tmp.Name()
		o.Discard()
		return o.named(err, tmp)
	}
	o.tmp = nil
	return nil
}

// copyTmp copies the filled temporary file to the stream.
func (o *File) copyTmp() error {
	f, err := os.Open(o.tmp.Name())
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := io.Copy(o.stream, f); err != nil {
		return err
	}
	err = o.through.Close()
	o.through = nil
	return err
}

// named returns err, a failure of the temporary file tmp, told by the
// destination's name and prefixed with the flag: tmp's name is replaced by
// the destination's in its message, and a rename's two names ("rename TMP
// PATH: ...") by the one the user gave ("rename onto PATH: ..."). It wraps err.
func (o *File) named(err error, tmp string) error {
	var le *os.LinkError
	msg := strings.ReplaceAll(err.Error(), tmp, cmdflag.QuotePath(o.path))
	if errors.As(err, &le) && le.Old == tmp {
		msg = fmt.Sprintf("rename onto %s: %v", cmdflag.QuotePath(o.path), le.Err)
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

// Discard removes the temporary file, if it is still there, and closes a
// stream destination: the output is not written. The caller defers it.
func (o *File) Discard() {
	o.held = nil
	if o.tmp != nil {
		if !o.filled {
			_ = o.tmp.Close()
		}
		_ = os.Remove(o.tmp.Name()) // the command is failing already: nothing better to do
		o.tmp = nil
	}
	if o.through != nil {
		_ = o.through.Close()
		o.through = nil
	}
}
