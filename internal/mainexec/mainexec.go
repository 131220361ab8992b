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
