package outfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// kind is what a destination is, for how it is written.
type kind int

const (
	kindFile   kind = iota // a regular file or none yet: replaced by a rename
	kindDir                // a directory: refused
	kindStream             // a device, a named pipe, a socket, a link into /proc: written in place
)

// maxLinks bounds the symbolic links followed from one path, as the
// kernel's ELOOP does (40 in Linux's follow_link).
const maxLinks = 40

// destination follows path's symbolic links to what the output replaces:
// the path a regular file, or the file a link's target would create (as >
// creates a dangling link's target), is renamed onto, so that the link
// stays a link. A link into /proc (/dev/stdout is /proc/self/fd/1, which
// names the open file, not a path) and anything that is not a regular file
// are streams, written through path itself.
func destination(path string) (string, kind, error) {
	p := path
	for range maxLinks {
		fi, err := os.Lstat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return p, kindFile, nil
		case err != nil:
			return "", 0, err
		case fi.Mode().IsRegular():
			return p, kindFile, nil
		case fi.IsDir():
			return p, kindDir, nil
		case fi.Mode()&fs.ModeSymlink == 0:
			return p, kindStream, nil
		}
		target, err := os.Readlink(p)
		if err != nil {
			return "", 0, err
		}
		if !filepath.IsAbs(target) {
			// beside the link, its directory as the kernel reads it: a
			// lexical Clean would undo a ".." past a linked directory
			target = p[:strings.LastIndexAny(p, "/"+string(filepath.Separator))+1] + target
		}
		if strings.HasPrefix(target, "/proc/") {
			if fi, err := os.Stat(path); err == nil && fi.IsDir() {
				return path, kindDir, nil
			}
			return path, kindStream, nil
		}
		p = target
	}
	return "", 0, &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("more than %d symbolic links", maxLinks)}
}
