package mycnf

import (
	"errors"
	"strconv"
)

// Sentinel errors. Every error the package returns wraps one of them, so that a
// caller can tell a typo from a missing file from a hostile input with
// errors.Is; an include that fails to open also wraps the fs error (e.g.
// fs.ErrNotExist). The exception is a top file that cannot be opened or read:
// that *Error wraps only the fs or io error.
var (
	// ErrInvalidConfig reports a value outside the range MySQL allows, a value
	// of the wrong type for its key (a word where a number belongs), or a Reader
	// limit set to a negative number. The message names the key and the range,
	// e.g. "innodb_read_io_threads = 65, want 1..64: invalid config".
	ErrInvalidConfig = errors.New("invalid config")

	// ErrSyntax reports a malformed line: an option before any [group], a group
	// header without its closing bracket, an empty key, a key with spaces, an
	// unterminated quote, an unknown ! directive.
	ErrSyntax = errors.New("syntax error")

	// ErrInclude reports an !include or !includedir that cannot be followed: the
	// file or directory is missing or unreadable, the include forms a cycle, or
	// the input came from an io.Reader, which has no directory to resolve against.
	ErrInclude = errors.New("bad include")

	// ErrLimit reports input beyond one of the Reader's bounds: a file, a line or
	// the sum of all files too long, too many files, includes nested too deep.
	ErrLimit = errors.New("limit exceeded")
)

// Error is an error at a place in an option file. Pos.Line is 0 when the error
// concerns the whole file (it cannot be opened, or it is too large). Err wraps
// one of the sentinel errors above.
type Error struct {
	Pos Pos
	Err error
}

// Error formats the error as "mycnf: file:line: message".
func (e *Error) Error() string { return "mycnf: " + e.Pos.String() + ": " + e.Err.Error() }

// Unwrap returns the underlying error, so errors.Is(err, ErrSyntax) works.
func (e *Error) Unwrap() error { return e.Err }

// Pos is a place in an option file.
type Pos struct {
	File string // the file's name as it was opened (an fs.FS path or an OS path)
	Line int    // 1-based line number; 0 means the file as a whole
}

// String returns "file:line", or "file" when Line is 0; a file name with
// control bytes in it is quoted.
func (p Pos) String() string {
	if p.Line == 0 {
		return quoteUnsafe(p.File)
	}
	return quoteUnsafe(p.File) + ":" + strconv.Itoa(p.Line)
}
