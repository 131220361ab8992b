//go:build linux

package live

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A server dies with the innosim that started it: innosim live killed with
// SIGKILL left mariadbd running, re-parented to init.
func TestTheServerDiesWithInnosim(t *testing.T) {
	parent := helperCommand("parent")
	server := readPid(t, parent)
	require.False(t, gone(server), "the server runs")
	require.NoError(t, parent.Process.Kill()) // SIGKILL: no cleanup runs
	_ = parent.Wait()
	if !waitGone(t, server) {
		_ = syscall.Kill(server, syscall.SIGKILL)
		t.Fatal("the server outlived innosim")
	}
}

// An interrupted sweep kills its server at once: it sent SIGTERM and waited
// up to 3 s for a clean shutdown of a server whose directory is removed
// next (SIGINT during live's server start took 3.5 to 3.8 s).
func TestStopWithoutGraceKillsAtOnce(t *testing.T) {
	log := filepath.Join(t.TempDir(), "signals")
	cmd := helperCommand("term " + log)
	ownGroup(cmd)
	s := &server{cmd: cmd, exited: make(chan struct{})}
	waited := make(chan error, 1)
	require.NoError(t, startTied(cmd, waited))
	go func() { s.waitErr = <-waited; close(s.exited) }()
	s.stop(0)
	b, _ := os.ReadFile(log)
	assert.Empty(t, string(b), "no SIGTERM, no wait for a shutdown")
	ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
	require.True(t, ok)
	assert.Equal(t, syscall.SIGKILL, ws.Signal())
}

// The next run removes what a killed run left: the private directory of an
// owner that is gone, after killing what still runs there; a directory
// whose owner runs, or that has no owner file, stays.
func TestCleanStaleRemovesOnlyWhatDeadOwnersLeft(t *testing.T) {
	base := t.TempDir()
	mk := func(name, owner string) string {
		dir := filepath.Join(base, name)
		require.NoError(t, os.MkdirAll(filepath.Join(dir, "data"), 0o755))
		if owner != "" {
			require.NoError(t, os.WriteFile(filepath.Join(dir, ownerFile), []byte(owner+"\n"), 0o644))
		}
		return dir
	}
	self, err := processIdentity(os.Getpid())
	require.NoError(t, err)
	done := exec.Command("true")
	require.NoError(t, done.Run())
	deadPid := done.ProcessState.Pid() // gone

	running := mk(privatePrefix+"1", self)
	dead := mk(privatePrefix+"2", strconv.Itoa(deadPid)+" 12345")
	reused := mk(privatePrefix+"3", strconv.Itoa(os.Getpid())+" 1") // this pid, another start time
	unowned := mk(privatePrefix+"4", "")
	other := mk("not-innosim", strconv.Itoa(deadPid)+" 12345")

	leftover := helperCommand("sleep", "--datadir="+filepath.Join(dead, "data"))
	ownGroup(leftover)
	require.NoError(t, leftover.Start())
	waited := make(chan error, 1)
	go func() { waited <- leftover.Wait() }()

	var logged []string
	cleanStale(base, func(format string, a ...any) { logged = append(logged, format) })
	<-waited // killed, or the test hangs here
	ws, _ := leftover.ProcessState.Sys().(syscall.WaitStatus)
	assert.Equal(t, syscall.SIGKILL, ws.Signal(), "the leftover process was killed")

	for _, dir := range []string{running, unowned, other} {
		assert.DirExists(t, dir)
	}
	for _, dir := range []string{dead, reused} {
		assert.NoDirExists(t, dir)
	}
	assert.Len(t, logged, 2)
	assert.True(t, strings.HasPrefix(logged[0], "live: removed %s, left by innosim"))
}

// A too-long TMPDIR is named as TMPDIR: the error said TempDir "".
func TestPrivateDirNamesTMPDIR(t *testing.T) {
	long := filepath.Join(t.TempDir(), strings.Repeat("d", 100))
	t.Setenv("TMPDIR", long)
	_, err := privateDir(Config{})
	require.ErrorIs(t, err, ErrInvalidConfig)
	assert.Contains(t, err.Error(), `live: TMPDIR "`+long+`" (the temporary directory, os.TempDir) makes a socket path of up to`)

	_, err = privateDir(Config{TempDir: long})
	assert.ErrorContains(t, err, `live: TempDir "`+long+`" makes a socket path`)

	dir, err := privateDir(Config{TempDir: t.TempDir()})
	require.NoError(t, err)
	b, err := os.ReadFile(filepath.Join(dir, ownerFile))
	require.NoError(t, err)
	self, _ := processIdentity(os.Getpid())
	assert.Equal(t, self+"\n", string(b))
}
