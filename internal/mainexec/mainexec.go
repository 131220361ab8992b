// Package mainexec lets a program's tests run its main function as the
// program would run: in a child copy of the test binary, with arguments of
// the test's choosing, so that a test can check what main prints and the
// status it exits with (a flag error exits 2, as the flag package does).
package mainexec

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"go.uber.org/goleak"
)

// envArgs carries the child's arguments, separated by the ASCII unit separator (an environment variable cannot hold a NUL byte; no argument a test passes holds 0x1f).
const envArgs = "INNOSIM_MAIN_ARGS"

// Main is what a package's TestMain calls: in a child started by Run it runs main
// with Run's arguments and exits 0 when main returns; otherwise it runs the
// package's tests and fails them if a goroutine is left behind.
func Main(m *testing.M, main func()) {
	if args, ok := os.LookupEnv(envArgs); ok {
		os.Args = os.Args[:1]
		if args != "" {
			os.Args = append(os.Args, strings.Split(args, "\x1f")...)
		}
		main()
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}

// Run runs the test binary again as the program, with args, and returns its
// standard output and error together and its exit status. It fails t if the
// child cannot be started.
func Run(t testing.TB, args ...string) (out string, status int) {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), envArgs+"="+strings.Join(args, "\x1f"))
	b, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return string(b), exit.ExitCode()
	case err != nil:
		t.Fatalf("mainexec: %v", err)
	}
	return string(b), 0
}

// RunUnread runs the test binary again as the program, with args and with
// TMPDIR set to tmp, its standard output and error a pipe whose reader has
// gone (as in prog | head -0): its first write breaks the pipe. It returns
// the signal that killed the child, or nil when it exited, whatever its
// status. It fails t if the child cannot be started.
func RunUnread(t testing.TB, tmp string, args ...string) os.Signal {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatalf("mainexec: %v", err)
	}
	if err := r.Close(); err != nil { // nobody reads: the first line breaks the pipe
		t.Fatalf("mainexec: %v", err)
	}
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, envArgs+"="+strings.Join(args, "\x1f"))
	cmd.Stdout, cmd.Stderr = w, w
	err = cmd.Start()
	w.Close()
	if err != nil {
		t.Fatalf("mainexec: %v", err)
	}
	var exit *exec.ExitError
	switch err := cmd.Wait(); {
	case errors.As(err, &exit):
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return ws.Signal()
		}
	case err != nil:
		t.Fatalf("mainexec: %v", err)
	}
	return nil
}
