//go:build !unix

package infile

import "os"

// openNonblock opens name read-only: a system without O_NONBLOCK's named
// pipes is left to the checks before and after.
func openNonblock(name string) (*os.File, error) { return os.Open(name) }

// readNow reads from f as os.File.Read does.
func readNow(f *os.File, p []byte) (int, error) { return f.Read(p) }
