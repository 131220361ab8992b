package main

import (
	"fmt"
	"os"
	"path/filepath"
)

// output is a file a command writes at its end (-csv, -json, -plot): created
// as a temporary file beside its destination before the work starts, so that a
// directory that does not exist or cannot be written is refused at once, and
// renamed over the destination only when complete, so that an interrupted or
// failed command leaves no partial file.
type output struct {
	flag, path string
	tmp        *os.File
	filled     bool // tmp is written and closed (fill), waiting for commit
}

// newOutput creates the temporary file for path (flag names it in errors).
// The temporary name keeps path's extension, for writers that choose a format
// by it. An empty path is no output: every method is then a no-op.
func newOutput(flag, path string) (*output, error) {
	o := &output{flag: flag, path: path}
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

// write writes the output with fn (given the temporary file, open for writing)
// and renames it over the destination.
func (o *output) write(fn func(f *os.File) error) error {
	if err := o.fill(fn); err != nil {
		return err
	}
	return o.commit()
}

// fill writes the output with fn into its temporary file and closes it; the
// destination is not touched until commit. On error the temporary file is
// removed.
func (o *output) fill(fn func(f *os.File) error) error {
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
		o.discard()
		return fmt.Errorf("%s: %w", o.flag, err)
	}
	return nil
}

// commit renames a filled output over its destination.
func (o *output) commit() error {
	if o.tmp == nil {
		return nil
	}
	if err := os.Rename(o.tmp.Name(), o.path); err != nil {
		o.discard()
		return fmt.Errorf("%s: %w", o.flag, err)
	}
	o.tmp = nil
	return nil
}

// discard removes the temporary file, if it is still there.
func (o *output) discard() {
	if o.tmp != nil {
		if !o.filled {
			_ = o.tmp.Close()
		}
		_ = os.Remove(o.tmp.Name()) // the command is failing already: nothing better to do
		o.tmp = nil
	}
}

// outputs opens one output per (flag, path) pair, or none and an error (also
// when two flags name the same file); the caller defers discardAll.
func outputs(pairs ...string) ([]*output, error) {
	var outs []*output
	seen := map[string]string{} // absolute path → the flag that named it
	for i := 0; i+1 < len(pairs); i += 2 {
		if pairs[i+1] != "" {
			abs, err := filepath.Abs(pairs[i+1])
			if err != nil {
				return nil, fmt.Errorf("%s: %w", pairs[i], err)
			}
			if other, ok := seen[abs]; ok {
				discardAll(outs)
				return nil, fmt.Errorf("%w: %s and %s both name %s: want a file each", errUsage, other, pairs[i], pairs[i+1])
			}
			seen[abs] = pairs[i]
		}
		o, err := newOutput(pairs[i], pairs[i+1])
		if err != nil {
			discardAll(outs)
			return nil, err
		}
		outs = append(outs, o)
	}
	return outs, nil
}

func discardAll(outs []*output) {
	for _, o := range outs {
		o.discard()
	}
}
