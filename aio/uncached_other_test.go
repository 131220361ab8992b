//go:build !linux

package aio_test

import (
	"os"
	"testing"
)

// uncachedFile is a file for ReadAt requests; only Linux reads the page
// cache on the caller's thread, so any file will do elsewhere.
func uncachedFile(t testing.TB, size int) *os.File { return sparseFile(t) }
