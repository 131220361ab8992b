package live

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ErrLimit is wrapped when a limit of this machine or of the server caps the
// sweep (open files, max_connections); the error names the field and the
// range the limit allows.
var ErrLimit = errors.New("limit caps the sweep")

// programs are the three programs' paths.
type programs struct{ mariadbd, installDB, sysbench string }

// findPrograms resolves the programs of c, looking in PATH and then in
// /usr/sbin and /usr/bin (mariadbd is in /usr/sbin, which a user's PATH
// often lacks).
func findPrograms(c Config) (programs, error) {
	find := func(given, name string) (string, error) {
		if given != "" {
			p, err := exec.LookPath(given)
			if err != nil {
				return "", fmt.Errorf("live: %s %q: not found or not executable (install with: %s): %w", name, given, InstallHint, ErrMissing)
			}
			return p, nil
		}
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
		for _, d := range []string{"/usr/sbin", "/usr/bin"} {
			p := filepath.Join(d, name)
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
				return p, nil
			}
		}
		return "", fmt.Errorf("live: %s not found in PATH, /usr/sbin or /usr/bin (install with: %s): %w", name, InstallHint, ErrMissing)
	}
	var p programs
	var err error
	if p.mariadbd, err = find(c.Mariadbd, "mariadbd"); err != nil {
		return p, err
	}
	if p.installDB, err = find(c.InstallDB, "mariadb-install-db"); err != nil {
		return p, err
	}
	p.sysbench, err = find(c.Sysbench, "sysbench")
	return p, err
}

// server is one private mariadbd: its files live in dir, its process leads a
// group of its own.
type server struct {
	dir, datadir, socket, errlog string
	cmd                          *exec.Cmd
	exited                       chan struct{} // closed when cmd.Wait returned
	waitErr                      error         // cmd.Wait's error, set before exited closes
}

// installDatadir runs mariadb-install-db into dir/data: the system tables,
// root@localhost with no password (--auth-root-authentication-method=normal),
// no test database.
func installDatadir(ctx context.Context, p programs, dir string) error {
	tmp, err := tmpdir(dir)
	if err != nil {
		return err
	}
	args := []string{"--no-defaults", "--datadir=" + filepath.Join(dir, "data"), "--tmpdir=" + tmp,
		"--auth-root-authentication-method=normal", "--skip-test-db"}
	if os.Geteuid() == 0 {
		args = append(args, "--user=root")
	}
	out, _, err := runGroup(ctx, p.installDB, args...)
	if err != nil {
		return fmt.Errorf("live: mariadb-install-db: %w\n%s", err, tail(out, 20))
	}
	return nil
}

// tmpdir makes and returns dir/tmp, the server's tmpdir. With the default,
// /tmp, two mariadb-install-db run at once (two tests, two sweeps) failed one
// time in six on this host: each bootstrap's temporary tables are named
// #sql-temptable-<pid>-<thread>-<n> in tmpdir, and one dropped the other's
// (ERROR 1051 Unknown table 'mysql.tmp_user_sys').
func tmpdir(dir string) (string, error) {
	tmp := filepath.Join(dir, "tmp")
	if err := os.MkdirAll(tmp, 0o700); err != nil {
		return "", fmt.Errorf("live: %w", err)
	}
	return tmp, nil
}

// startServer starts mariadbd on dir's datadir with no option file, no
// network, a Unix socket in dir, the buffer pool of c, max_connections for
// the sweep, and setting=value when setting is not empty; it returns when the
// server says it is ready for connections. On an error nothing is left
// running.
func startServer(ctx context.Context, p programs, c Config, dir, setting, value string) (*server, error) {
	s := &server{dir: dir, datadir: filepath.Join(dir, "data"), socket: filepath.Join(dir, "mysqld.sock"),
		errlog: filepath.Join(dir, "error.log"), exited: make(chan struct{})}
	init := filepath.Join(dir, "init.sql")
	if err := os.WriteFile(init, []byte("CREATE DATABASE IF NOT EXISTS sbtest;\n"), 0o644); err != nil {
		return nil, fmt.Errorf("live: %w", err)
	}
	if err := os.Remove(s.errlog); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("live: %w", err)
	}
	// Three times the sweep's threads: with pool-of-threads the server closes
	// connections in its own time, so the previous run's (and, under connect,
	// this run's) may still count when new ones arrive (error 1040, too many
	// connections: twice was not enough for connect at 1,024 threads); 16 for
	// slack. mariadbd asks for about five open files per connection.
	maxConn := connFactor*c.maxThreads() + 16
	tmp, err := tmpdir(dir)
	if err != nil {
		return nil, err
	}
	args := []string{"--no-defaults",
		"--datadir=" + s.datadir, "--tmpdir=" + tmp, "--socket=" + s.socket, "--skip-networking",
		"--pid-file=" + filepath.Join(dir, "mysqld.pid"), "--log-error=" + s.errlog,
		"--init-file=" + init,
		"--innodb-buffer-pool-size=" + strconv.FormatInt(c.BufferPool, 10),
		"--max-connections=" + strconv.Itoa(maxConn),
		// connect's clients all knock at once: a listen backlog shorter than
		// the sweep's threads refuses some with EAGAIN (error 2002)
		"--back-log=" + strconv.Itoa(min(maxConn, 65535)),
		// oltp_common.lua prepares its statements per table and thread: 4 tables
		// × 1,024 threads pass the default max_prepared_stmt_count (16,382)
		"--max-prepared-stmt-count=1048576",
		"--skip-log-bin", "--skip-name-resolve",
	}
	if os.Geteuid() == 0 {
		args = append(args, "--user=root") // mariadbd refuses to run as root without it
	}
	if setting != "" {
		args = append(args, "--"+strings.ReplaceAll(setting, "_", "-")+"="+value)
	}
	s.cmd = exec.Command(p.mariadbd, args...)
	ownGroup(s.cmd)
	waited := make(chan error, 1)
	if err := startTied(s.cmd, waited); err != nil {
		return nil, fmt.Errorf("live: start mariadbd: %w", err)
	}
	go func() {
		s.waitErr = <-waited
		close(s.exited)
	}()
	if err := s.waitReady(ctx, 2*time.Minute); err != nil {
		s.stop(0) // a server not yet ready has nothing to shut down cleanly
		return nil, err
	}
	if err := s.checkLimits(maxConn); err != nil {
		s.stop(stopGrace)
		return nil, err
	}
	if err := s.checkSettingUsed(setting); err != nil {
		s.stop(stopGrace)
		return nil, err
	}
	return s, nil
}

// checkSettingUsed refuses a server that accepted setting but says it does
// nothing: MariaDB keeps removed variables for old option files and logs
// "'innodb-thread-concurrency' was removed. It does nothing now" (10.11), so
// a sweep of it would measure one server several times over.
func (s *server) checkSettingUsed(setting string) error {
	if setting == "" {
		return nil
	}
	dashed := "'" + strings.ReplaceAll(setting, "_", "-") + "'"
	b, _ := os.ReadFile(s.errlog)
	for _, line := range strings.Split(string(b), "\n") {
		if strings.Contains(line, dashed) && (strings.Contains(line, "was removed") || strings.Contains(line, "does nothing")) {
			_, msg, _ := strings.Cut(line, "[Warning] ")
			return fmt.Errorf("live: Setting %s: mariadbd ignores it (%s): want a variable this server reads: %w", setting, strings.TrimSpace(msg), ErrInvalidConfig)
		}
	}
	return nil
}

// waitReady polls the error log for mariadbd's "ready for connections" line.
func (s *server) waitReady(ctx context.Context, limit time.Duration) error {
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		if b, err := os.ReadFile(s.errlog); err == nil && bytes.Contains(b, []byte("ready for connections")) {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-s.exited:
			return fmt.Errorf("live: mariadbd exited before it was ready (%v); its log:\n%s", s.waitErr, s.logTail())
		case <-deadline.C:
			return fmt.Errorf("live: mariadbd not ready after %v; its log:\n%s", limit, s.logTail())
		case <-tick.C:
		}
	}
}

// checkLimits refuses a server that lowered max_connections below what the
// sweep needs: mariadbd does so, saying "Changed limits: max_connections: N
// (requested M)", when it cannot raise its open-files limit far enough.
func (s *server) checkLimits(want int) error {
	b, _ := os.ReadFile(s.errlog)
	for _, line := range strings.Split(string(b), "\n") {
		_, after, ok := strings.Cut(line, "Changed limits: max_connections: ")
		if !ok {
			continue
		}
		got, _, _ := strings.Cut(after, " ")
		n, err := strconv.Atoi(got)
		if err == nil && n < want {
			return fmt.Errorf("live: Threads up to %d need max_connections %d, but mariadbd could raise it only to %d (its open files limit): want Threads ≤ %d, or a higher ulimit -n: %w",
				(want-16)/connFactor, want, n, max((n-16)/connFactor, 0), ErrLimit)
		}
	}
	return nil
}

// stopGrace is how long stop waits for mariadbd's own shutdown at the end of
// a sweep before it kills it. An interrupted sweep (or a server not yet
// ready) gives it none: the user is waiting, and the datadir is about to be
// removed, so that a clean shutdown saves nothing.
const stopGrace = 30 * time.Second

// connFactor is max_connections over the sweep's largest thread count.
const connFactor = 3

// pid returns the server's process id.
func (s *server) pid() int { return s.cmd.Process.Pid }

// stop shuts the server down: SIGTERM to its group (mariadbd's normal
// shutdown), then SIGKILL if it has not exited within grace; with no grace,
// SIGKILL at once. It returns when the process has been reaped.
func (s *server) stop(grace time.Duration) {
	select {
	case <-s.exited:
		return
	default:
	}
	if grace > 0 {
		_ = killGroup(s.pid(), syscall.SIGTERM)
		t := time.NewTimer(grace)
		defer t.Stop()
		select {
		case <-s.exited:
		case <-t.C:
		}
	}
	_ = killGroup(s.pid(), syscall.SIGKILL) // the server if still there, and anything it left in its group
	<-s.exited
}

// logTail returns the last lines of the server's error log.
func (s *server) logTail() string {
	b, _ := os.ReadFile(s.errlog)
	return tail(b, 20)
}

// runGroup runs a program in a process group of its own and returns its
// combined output and the CPU time (user + system) it used; cancelling ctx
// kills the whole group.
func runGroup(ctx context.Context, name string, args ...string) ([]byte, time.Duration, error) {
	out, u, err := runGroupUsage(ctx, nil, name, args...)
	return out, u.cpu, err
}

// usage is what a finished program used: CPU time (user + system) and its
// peak resident set in bytes (getrusage's ru_maxrss; 0 where not reported).
type usage struct {
	cpu    time.Duration
	maxRSS int64
}

// runGroupUsage is runGroup with the program's peak resident set as well,
// and env added to this process's environment for it.
func runGroupUsage(ctx context.Context, env []string, name string, args ...string) ([]byte, usage, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	ownGroup(cmd)
	cmd.Cancel = func() error { return killGroup(cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := runTied(cmd)
	var u usage
	if ps := cmd.ProcessState; ps != nil {
		u = usage{cpu: ps.UserTime() + ps.SystemTime(), maxRSS: maxRSS(ps)}
	}
	if ctx.Err() != nil {
		return out.Bytes(), u, ctx.Err()
	}
	return out.Bytes(), u, err
}

// tail returns the last n lines of b.
func tail(b []byte, n int) string {
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
