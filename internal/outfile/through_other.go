//go:build !unix

package outfile

import "os"

// openThrough opens a stream destination for writing, in append mode.
func openThrough(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
}

// isNoReader reports false: the system has no named pipes that refuse a
// writer.
func isNoReader(error) bool { return false }
