// Package outfile writes the files innosim's commands produce (run's -csv,
// -json and -plot, reproduce's -json and -charts, live's -csv, calibrate's
// -out) so that a path that cannot be written is refused before the work
// starts and an interrupted or failed command leaves no partial file.
package outfile

import (
	"fmt"
	"os"
	"path/filepath"
)

// File is one output file: created as a temporary file beside its
// destination before the work starts (New), so that a directory that does
// not exist or cannot be written is refused at once, and renamed over the
// destination only when complete (Write, or Fill then Commit). A File of
// no path is no output: every method is then a no-op.
type File struct {
	flag, path string
	tmp        *os.File
	filled     bool // tmp is written and closed (Fill), waiting for Commit
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
		return nil, fmt.Errorf("%s: %w", flag, err)
	}
	o.tmp = tmp
	return o, nil
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
		o.Discard()
		return fmt.Errorf("%s: %w", o.flag, err)
	}
	return nil
}

// Commit renames a filled output over its destination.
func (o *File) Commit() error {
	if o.tmp == nil {
		return nil
	}
	if err := os.Rename(o.tmp.Name(), o.path); err != nil {
		o.Discard()
		return fmt.Errorf("%s: %w", o.flag, err)
	}
	o.tmp = nil
	return nil
}

// Discard removes the temporary file, if it is still there: the output is
// not written. The caller defers it.
func (o *File) Discard() {
	if o.tmp != nil {
		if !o.filled {
			_ = o.tmp.Close()
		}
		_ = os.Remove(o.tmp.Name()) // the command is failing already: nothing better to do
		o.tmp = nil
	}
}
