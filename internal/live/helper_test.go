package live

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// helperEnv makes the test binary a stand-in for a program live starts
// (runHelper): "sleep" sleeps for ten minutes; "term LOG" also writes TERM
// to LOG on each SIGTERM and goes on; "parent" starts a sleeping helper as
// startServer starts mariadbd, prints its pid and sleeps.
const helperEnv = "INNOSIM_LIVE_HELPER"

func runHelper(helper string) {
	switch kind, arg, _ := strings.Cut(helper, " "); kind {
	case "term":
		sigs := make(chan os.Signal, 1)
		signal.Notify(sigs, syscall.SIGTERM)
		go func() {
			for range sigs {
				f, err := os.OpenFile(arg, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
				if err == nil {
					fmt.Fprintln(f, "TERM")
					f.Close()
				}
			}
		}()
	case "parent":
		cmd := helperCommand("sleep")
		ownGroup(cmd)
		if err := startTied(cmd, make(chan error, 1)); err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		fmt.Println(cmd.Process.Pid)
	}
	time.Sleep(10 * time.Minute)
	os.Exit(0)
}

// helperCommand returns the test binary as the helper kind, with args
// after "--" (which the test binary's flags leave alone).
func helperCommand(kind string, args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], append([]string{"-test.run=^$", "--"}, args...)...)
	cmd.Env = append(os.Environ(), helperEnv+"="+kind)
	return cmd
}

// gone reports whether pid has exited (or is a zombie waiting for its
// parent).
func gone(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	_, after, _ := strings.Cut(string(b), ") ")
	return strings.HasPrefix(after, "Z")
}

// waitGone waits up to 10 s for pid to exit and reports whether it did.
func waitGone(t *testing.T, pid int) bool {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if gone(pid) {
			return true
		}
	}
	return false
}

// readPid reads the pid a "parent" helper prints.
func readPid(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	line, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err)
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	require.NoError(t, err, line)
	return pid
}
