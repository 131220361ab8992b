package mycnf

import (
	"fmt"
	"io"
	"io/fs"
)

// Default limits of a Reader, used where its field is zero.
const (
	// DefaultMaxDepth is MySQL's own nesting limit for !include and
	// !includedir (max_recursion_level in search_default_file_with_ext,
	// mysys/my_default.cc). MySQL skips deeper directives with a warning; a
	// Reader returns an error wrapping ErrLimit.
	DefaultMaxDepth = 10

	// DefaultMaxLineLength is the size of the line buffer MySQL reads option
	// files with (buff[4096] in search_default_file_with_ext). MySQL silently
	// splits a longer line in two; a Reader returns an error wrapping ErrLimit.
	DefaultMaxLineLength = 4096

	// DefaultMaxFileSize bounds one file, in bytes (1 MiB; a large real my.cnf
	// is a few KiB).
	DefaultMaxFileSize = 1 << 20

	// DefaultMaxTotalSize bounds the sum of all files read, in bytes (8 MiB).
	DefaultMaxTotalSize = 8 << 20

	// DefaultMaxFiles bounds the number of files read, the top file and every
	// include counted each time it is read.
	DefaultMaxFiles = 256

	// DefaultMaxFileOptions bounds the option lines of one file (a large
	// real my.cnf has a few hundred).
	DefaultMaxFileOptions = 4096

	// DefaultMaxOptions bounds the option lines of all files read in one
	// call. Each option is kept with its group, value and position, about a
	// hundred bytes, so this bounds memory well below what the size limits
	// alone allow (8 MiB of "a=1" lines would be two million options).
	DefaultMaxOptions = 16384
)

// Reader reads option files within bounds, so that a huge file, an endless
// stream, a very long line, a flood of options, an include cycle or a deep or
// wide include tree ends in an error that names the limit, never in a hang or
// an out-of-memory.
// Every field's zero value means its Default; a negative value is an error
// wrapping ErrInvalidConfig. A Reader holds no state between calls and may be
// used from several goroutines at once.
type Reader struct {
	MaxDepth       int   // deepest !include nesting below the top file; default DefaultMaxDepth
	MaxLineLength  int   // longest line in bytes, line end (LF or CR LF) excluded; default DefaultMaxLineLength
	MaxFileSize    int64 // largest single file in bytes; default DefaultMaxFileSize
	MaxTotalSize   int64 // largest sum of all files read, in bytes; default DefaultMaxTotalSize
	MaxFiles       int   // most files read in one call; default DefaultMaxFiles
	MaxFileOptions int   // most option lines in one file; default DefaultMaxFileOptions
	MaxOptions     int   // most option lines in all files of one call; default DefaultMaxOptions
}

// Parse reads one option file from src; name is used in positions and error
// messages. The file may not use !include or !includedir (there is no directory
// to resolve them against): such a line is an error wrapping ErrInclude. Use
// ParseFS or ParseFile for files that include others. Parse never touches the
// disk, so it is what tests and fuzzing call.
func (r Reader) Parse(src io.Reader, name string) (*File, error) {
	p, err := r.newParser(nil)
	if err != nil {
		return nil, err
	}
	return p.run(name, func() (io.ReadCloser, error) { return io.NopCloser(src), nil })
}

// ParseFS reads the option file at name in fsys and everything it includes.
// Include paths are resolved in fsys: a relative path against the directory of
// the file that holds the !include line, an absolute one (/etc/mysql/conf.d)
// against the root of fsys. A path that climbs out of fsys is an error wrapping
// ErrInclude. Only regular files are read: a directory, named pipe, device or
// socket, as the top file or as an include (a FIFO named *.cnf in an
// !includedir), is an error that names it, never a read that blocks.
func (r Reader) ParseFS(fsys fs.FS, name string) (*File, error) {
	p, err := r.newParser(fsSource{fsys})
	if err != nil {
		return nil, err
	}
	return p.run(name, func() (io.ReadCloser, error) { return fsSource{fsys}.open(name) })
}

// ParseFile reads the option file at path on the operating system's file
// system and everything it includes. A relative include path is resolved
// against the directory of the including file. (MySQL resolves it against the
// server's working directory, which is rarely what the author meant; a file that
// uses absolute paths, as distributions' my.cnf files do, reads the same.)
// As with ParseFS, only regular files are read; a named pipe is refused without
// being opened for a blocking read.
func (r Reader) ParseFile(path string) (*File, error) {
	p, err := r.newParser(osSource{})
	if err != nil {
		return nil, err
	}
	return p.run(path, func() (io.ReadCloser, error) { return osSource{}.open(path) })
}

// Parse reads one option file from src with the default limits; see
// Reader.Parse.
func Parse(src io.Reader, name string) (*File, error) { return Reader{}.Parse(src, name) }

// ParseFS reads an option file and its includes from fsys with the default
// limits; see Reader.ParseFS.
func ParseFS(fsys fs.FS, name string) (*File, error) { return Reader{}.ParseFS(fsys, name) }

// ParseFile reads an option file and its includes from the operating system's
// file system with the default limits; see Reader.ParseFile.
func ParseFile(path string) (*File, error) { return Reader{}.ParseFile(path) }

// limits returns r with defaults filled in, or an error for a negative field.
func (r Reader) limits() (Reader, error) {
	for _, f := range []struct {
		name string
		v    int64
	}{
		{"MaxDepth", int64(r.MaxDepth)},
		{"MaxLineLength", int64(r.MaxLineLength)},
		{"MaxFileSize", r.MaxFileSize},
		{"MaxTotalSize", r.MaxTotalSize},
		{"MaxFiles", int64(r.MaxFiles)},
		{"MaxFileOptions", int64(r.MaxFileOptions)},
		{"MaxOptions", int64(r.MaxOptions)},
	} {
		if f.v < 0 {
			return r, fmt.Errorf("mycnf: Reader.%s = %d, want >= 0 (0 means the default): %w", f.name, f.v, ErrInvalidConfig)
		}
	}
	if r.MaxDepth == 0 {
		r.MaxDepth = DefaultMaxDepth
	}
	if r.MaxLineLength == 0 {
		r.MaxLineLength = DefaultMaxLineLength
	}
	if r.MaxFileSize == 0 {
		r.MaxFileSize = DefaultMaxFileSize
	}
	if r.MaxTotalSize == 0 {
		r.MaxTotalSize = DefaultMaxTotalSize
	}
	if r.MaxFiles == 0 {
		r.MaxFiles = DefaultMaxFiles
	}
	if r.MaxFileOptions == 0 {
		r.MaxFileOptions = DefaultMaxFileOptions
	}
	if r.MaxOptions == 0 {
		r.MaxOptions = DefaultMaxOptions
	}
	return r, nil
}
