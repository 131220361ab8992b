//go:build linux

package aio_test

import (
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/innosim/innosim/aio"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// Where a seccomp filter refuses io_uring_setup, New's error wraps
// ErrNativeUnavailable and the errno, and says which refusal it was. Each
// case runs in a child process, which installs the filter on all its threads
// (a filter cannot be removed).
func TestNativeRefusedBySeccompSaysWhy(t *testing.T) {
	const env = "INNOSIM_AIO_TEST_SECCOMP_ERRNO"
	if v := os.Getenv(env); v != "" {
		errno := unix.EPERM
		if v == "ENOSYS" {
			errno = unix.ENOSYS
		}
		runtime.LockOSThread()
		if err := refuseIOUringSetup(errno); err != nil {
			t.Skipf("cannot install a seccomp filter here: %v", err)
		}
		cfg := aio.DefaultConfig()
		cfg.IO, cfg.Wake = aio.IONative, aio.WakeTargeted
		a, err := aio.New(cfg)
		require.Nil(t, a)
		require.ErrorIs(t, err, aio.ErrNativeUnavailable)
		require.ErrorIs(t, err, errno)
		require.NotErrorIs(t, err, aio.ErrInvalidConfig)
		t.Log(err) // the parent reads the message
		return
	}
	sysctl, err := os.ReadFile("/proc/sys/kernel/io_uring_disabled")
	if err != nil || strings.TrimSpace(string(sysctl)) != "0" {
		t.Skipf("kernel.io_uring_disabled is not 0 here (%q, %v): an EPERM would be the sysctl's", sysctl, err)
	}
	tests := []struct {
		errno string
		want  string
	}{
		{"EPERM", "refused by a seccomp filter or a security module (kernel.io_uring_disabled = 0 allows it)"},
		{"ENOSYS", "the kernel has no io_uring (Linux 5.1 added it) or a seccomp filter hides it"},
	}
	for _, tt := range tests {
		t.Run(tt.errno, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestNativeRefusedBySeccompSaysWhy$", "-test.v", "-test.count=1")
			cmd.Env = append(os.Environ(), env+"="+tt.errno)
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, "%s", out)
			if strings.Contains(string(out), "--- SKIP") {
				t.Skipf("child skipped: %s", out)
			}
			require.Contains(t, string(out), tt.want)
		})
	}
}

// refuseIOUringSetup installs, on every thread of the process, a seccomp
// filter under which io_uring_setup fails with errno and every other system
// call is allowed.
func refuseIOUringSetup(errno unix.Errno) error {
	const (
		ldAbsW    = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeqK      = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		retK      = unix.BPF_RET | unix.BPF_K
		retErrno  = 0x00050000 // SECCOMP_RET_ERRNO
		retAllow  = 0x7fff0000 // SECCOMP_RET_ALLOW
		setFilter = 1          // SECCOMP_SET_MODE_FILTER
		tsync     = 1          // SECCOMP_FILTER_FLAG_TSYNC
	)
	prog := []unix.SockFilter{
		{Code: ldAbsW, K: 0}, // seccomp_data.nr (the architecture is this binary's)
		{Code: jeqK, Jt: 0, Jf: 1, K: unix.SYS_IO_URING_SETUP},
		{Code: retK, K: retErrno | uint32(errno)},
		{Code: retK, K: retAllow},
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return err
	}
	if _, _, e := unix.Syscall(unix.SYS_SECCOMP, setFilter, tsync, uintptr(unsafe.Pointer(&fprog))); e != 0 {
		return e
	}
	return nil
}

// New with IO = native in a process out of descriptors fails with EMFILE,
// and not with ErrNativeUnavailable: it is not told to fall back to
// simulated AIO. Each ring takes a descriptor, and a table of registered
// files with an entry per slot, which the kernel refuses above
// RLIMIT_NOFILE.
func TestNativeOutOfDescriptorsIsNotUnavailable(t *testing.T) {
	requireNative(t)
	var limit unix.Rlimit
	require.NoError(t, unix.Getrlimit(unix.RLIMIT_NOFILE, &limit))
	open := fdCount(t)
	tests := []struct {
		name    string
		nofile  uint64
		slots   int
		message string
	}{
		{"no descriptor for a ring", 0, 256, "io_uring_setup: the process is out of file descriptors"},
		{"a file table above RLIMIT_NOFILE", uint64(open + 64), open + 128, "registering a table of"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.nofile > limit.Max || uint64(tt.slots) > limit.Cur {
				t.Skipf("RLIMIT_NOFILE %d (hard %d) leaves no room for the case", limit.Cur, limit.Max)
			}
			low := limit
			low.Cur = tt.nofile
			require.NoError(t, unix.Setrlimit(unix.RLIMIT_NOFILE, &low))
			cfg := aio.DefaultConfig()
			cfg.IO, cfg.Wake, cfg.SlotsPerSegment = aio.IONative, aio.WakeTargeted, tt.slots
			a, err := aio.New(cfg)
			require.NoError(t, unix.Setrlimit(unix.RLIMIT_NOFILE, &limit))
			if a != nil {
				require.NoError(t, a.Close())
			}
			require.Nil(t, a)
			require.ErrorIs(t, err, unix.EMFILE)
			require.NotErrorIs(t, err, aio.ErrNativeUnavailable)
			require.NotErrorIs(t, err, aio.ErrInvalidConfig)
			require.ErrorContains(t, err, tt.message)
		})
	}
}
