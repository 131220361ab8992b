package live

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// A sweep's private directory is TempDir/innosim-live-N (os.MkdirTemp's N:
// at most ten digits). Its owner file holds the process id and start time
// of the innosim that made it, so that a later run can tell a directory
// whose owner is gone (killed by SIGKILL, before it could remove it) from
// one a running sweep uses.
const (
	privatePrefix = "innosim-live-"
	ownerFile     = "owner"
	maxSunPath    = 107 // the bytes of a Unix socket's path (sun_path, without its NUL)
)

// privateDir makes the sweep's private directory in c.TempDir (os.TempDir,
// $TMPDIR, when empty) with its owner file, after removing what runs that
// are gone left there (cleanStale). It first refuses a directory whose
// socket path (dir/mysqld.sock) could pass maxSunPath bytes, naming TMPDIR
// when the directory is its.
func privateDir(c Config) (string, error) {
	base, named := c.TempDir, fmt.Sprintf("TempDir %q", c.TempDir)
	if base == "" {
		base = os.TempDir()
		named = fmt.Sprintf("TMPDIR %q (the temporary directory, os.TempDir)", base)
	}
	if n := len(filepath.Join(base, privatePrefix+"4294967295", "mysqld.sock")); n > maxSunPath {
		return "", fmt.Errorf("live: %s makes a socket path of up to %d bytes, want at most %d (sun_path): want a shorter one: %w",
			named, n, maxSunPath, ErrInvalidConfig)
	}
	cleanStale(base, c.logf)
	dir, err := os.MkdirTemp(base, privatePrefix)
	if err != nil {
		return "", fmt.Errorf("live: %w", err)
	}
	id, err := processIdentity(os.Getpid())
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, ownerFile), []byte(id+"\n"), 0o644)
	}
	if err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("live: %w", err)
	}
	return dir, nil
}

// cleanStale removes every private directory in base whose owner (its
// owner file) is no longer running, after killing whatever still runs
// there (processesOf: a server of an innosim without the parent-death
// signal, a sysbench that has not run out its time),
// and says so through logf. A directory without an owner file (one being
// made, or an older innosim's) is left alone, and so is any error.
func cleanStale(base string, logf func(format string, a ...any)) {
	entries, err := os.ReadDir(base)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), privatePrefix) {
			continue
		}
		dir := filepath.Join(base, e.Name())
		b, err := os.ReadFile(filepath.Join(dir, ownerFile))
		if err != nil {
			continue
		}
		owner := strings.TrimSpace(string(b))
		pid, _, _ := strings.Cut(owner, " ")
		n, err := strconv.Atoi(pid)
		if err != nil || n <= 0 {
			continue
		}
		if id, err := processIdentity(n); err == nil && id == owner {
			continue // its sweep still runs
		} else if err != nil && !errors.Is(err, os.ErrNotExist) {
			continue // cannot tell
		}
		for _, p := range processesOf(dir) {
			_ = killGroup(p, syscall.SIGKILL)
		}
		if err := os.RemoveAll(dir); err == nil && logf != nil {
			logf("live: removed %s, left by innosim (pid %d) that is gone", dir, n)
		}
	}
}
