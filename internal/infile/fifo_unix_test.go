//go:build unix

package infile

import (
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// mkfifo makes a named pipe at path and returns path.
func mkfifo(t *testing.T, path string) string {
	require.NoError(t, syscall.Mkfifo(path, 0o600))
	return path
}
