//go:build linux

package aio

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// Each way the kernel refuses io_uring_setup is named in the error, which
// wraps both ErrNativeUnavailable and the errno.
func TestSetupRefusalSaysWhich(t *testing.T) {
	tests := []struct {
		name     string
		errno    unix.Errno
		disabled string
		want     string
	}{
		{"a kernel without io_uring", unix.ENOSYS, "", "the kernel has no io_uring"},
		{"the sysctl disables it for all", unix.EPERM, "2\n", "kernel.io_uring_disabled = 2"},
		{"the sysctl keeps it for a group", unix.EPERM, "1\n", "kernel.io_uring_disabled = 1"},
		{"a seccomp filter", unix.EPERM, "0\n", "refused by a seccomp filter or a security module (kernel.io_uring_disabled = 0 allows it)"},
		{"a seccomp filter, an unknown sysctl value", unix.EPERM, "3\n", "refused by a seccomp filter or a security module (kernel.io_uring_disabled = 3)"},
		{"a seccomp filter, no sysctl", unix.EPERM, "", "seccomp filter"},
		{"RLIMIT_MEMLOCK", unix.ENOMEM, "0\n", "RLIMIT_MEMLOCK is 65536 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := setupError(tt.errno, tt.disabled, 64<<10)
			require.ErrorIs(t, err, ErrNativeUnavailable)
			require.ErrorIs(t, err, tt.errno)
			require.Contains(t, err.Error(), tt.want)
		})
	}
}

// io_uring_setup failing for want of a descriptor (the process's, EMFILE,
// or the system's, ENFILE) is not io_uring refused: the error says so and
// wraps the errno but not ErrNativeUnavailable, so a program that falls back
// to simulated AIO on that error does not do so because it is out of
// descriptors.
func TestSetupOutOfDescriptorsIsNotARefusal(t *testing.T) {
	tests := []struct {
		errno unix.Errno
		want  string
	}{
		{unix.EMFILE, "the process is out of file descriptors"},
		{unix.ENFILE, "the system is out of file descriptors"},
	}
	for _, tt := range tests {
		t.Run(tt.errno.Error(), func(t *testing.T) {
			err := setupError(tt.errno, "0\n", 64<<10)
			require.ErrorIs(t, err, tt.errno)
			require.NotErrorIs(t, err, ErrNativeUnavailable)
			require.Contains(t, err.Error(), tt.want)
		})
	}
}

// A short transfer that is not the end of the file is finished with plain
// pread: the requests it covers then succeed. One that ends at the end of the
// file fails the requests past it with io.ErrUnexpectedEOF, and a canceled
// one is done again whole.
func TestNativeResultFinishesShortTransfers(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	data := make([]byte, 3*4096)
	for i := range data {
		data[i] = byte(i)
	}
	require.NoError(t, os.WriteFile(path, data[:2*4096+100], 0o600)) // 2 pages and a bit
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	tests := []struct {
		name       string
		res        int32
		wantFailed int
	}{
		{"half of the first page came back", 2048, 1},
		{"nothing but an EINTR came back", -int32(unix.EINTR), 1},
		{"a cancel", -int32(unix.ECANCELED), 1},
		{"the end of the file at once", 0, 3},
		{"an I/O error", -int32(unix.EIO), 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reqs := make([]*Request, 3)
			for i := range reqs {
				reqs[i] = &Request{File: f, Offset: int64(i) * 4096, Buf: make([]byte, 4096)}
			}
			if tt.res > 0 {
				copy(reqs[0].Buf[:tt.res], data) // what the kernel transferred
			}
			fs := &nativeSlot{n: 3, op: Read, offset: 0, length: 3 * 4096}
			errs, ns := make([]error, 3), make([]int, 3)
			var n native
			failed, canceled := n.result(fs, tt.res, reqs, errs, ns)
			require.Equal(t, tt.wantFailed, failed)
			require.Zero(t, canceled, "no cancel was asked for: the kernel's own ECANCELED is redone")
			if tt.wantFailed == 1 {
				require.Equal(t, data[:4096], reqs[0].Buf)
				require.Equal(t, data[4096:2*4096], reqs[1].Buf)
				require.NoError(t, errs[0])
				require.NoError(t, errs[1])
				require.ErrorIs(t, errs[2], io.ErrUnexpectedEOF)
			}
			if tt.res == -int32(unix.EIO) {
				for _, err := range errs {
					require.True(t, errors.Is(err, unix.EIO), "%v", err)
				}
			}
		})
	}
}
