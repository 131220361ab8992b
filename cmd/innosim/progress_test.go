package main

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/innosim/innosim/internal/progress"
	"github.com/innosim/innosim/internal/validate"
)

// A command whose stderr is not a terminal (a buffer here) says how far it
// is: a line as each phase starts, cells counted when the phase knows them.
// It said nothing, for minutes.
func TestCommandsSayTheirProgressWhenStderrIsNotATerminal(t *testing.T) {
	quick := validate.Quick(context.Background())
	for _, c := range []struct {
		args  []string
		lines []string
	}{
		{[]string{"reproduce", "c"}, []string{"innosim reproduce: study C, 0s"}},
		{[]string{"validate", "-table", filepath.Join("testdata", "validate_user.csv"), "c", "field"},
			[]string{"innosim validate: study C, ", "innosim validate: field cases, ", "innosim validate: user table: point selects (example), "}},
		{[]string{"validate", "-seeds", "2", "d"}, []string{"innosim validate: seed 1: study D, ", "innosim validate: seed 2: study D, "}},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			code, _, stderr := runCmdContext(quick, c.args...)
			require.Contains(t, []int{0, 1}, code, stderr)
			for _, l := range c.lines {
				assert.Contains(t, "\n"+stderr, "\n"+l, "stderr:\n%s", stderr)
			}
		})
	}
}

// TestValidateLeavesAProgressLineEvery10s is the acceptance of the issue:
// innosim validate 2>progress.txt | cat leaves at least one line per 10 s in
// progress.txt. It runs the whole validate (minutes of CPU) in a subprocess
// for 25 s, so only with INNOSIM_FULL=1.
func TestValidateLeavesAProgressLineEvery10s(t *testing.T) {
	if os.Getenv("INNOSIM_MAIN") == "1" {
		os.Args = append([]string{"innosim"}, strings.Fields(os.Getenv("INNOSIM_ARGS"))...)
		main()
		return
	}
	if !fullSize() || testing.Short() {
		t.Skip("watches the whole validate for 25 s: set INNOSIM_FULL=1")
	}
	path := filepath.Join(t.TempDir(), "progress.txt")
	f, err := os.Create(path)
	require.NoError(t, err)
	defer f.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^TestValidateLeavesAProgressLineEvery10s$")
	cmd.Env = append(os.Environ(), "INNOSIM_MAIN=1", "INNOSIM_ARGS=validate")
	cmd.Stderr = f
	stdout, err := cmd.StdoutPipe() // | cat
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	start := time.Now()
	var arrivals []time.Duration
	var lines []string
	r := bufio.NewReader(mustOpen(t, path))
	var partial string
	for time.Since(start) < 25*time.Second {
		s, err := r.ReadString('\n')
		partial += s
		if err == nil {
			arrivals, lines = append(arrivals, time.Since(start)), append(lines, strings.TrimSuffix(partial, "\n"))
			partial = ""
			continue
		}
		time.Sleep(50 * time.Millisecond)
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	_ = cmd.Wait()
	require.NotEmpty(t, arrivals, "no progress line in 25 s")
	gaps := []time.Duration{arrivals[0]}
	for i := 1; i < len(arrivals); i++ {
		gaps = append(gaps, arrivals[i]-arrivals[i-1])
	}
	gaps = append(gaps, 25*time.Second-arrivals[len(arrivals)-1])
	for i, g := range gaps {
		assert.LessOrEqual(t, g, 10*time.Second, "gap %d without a line: %v (lines %q at %v)", i, g, lines, arrivals)
	}
	for _, l := range lines {
		assert.True(t, strings.HasPrefix(l, "innosim validate: "), "%q", l)
	}
	assert.GreaterOrEqual(t, len(lines), int(25*time.Second/progress.Every)-1, "a line every %v at least", progress.Every)
}

func mustOpen(t *testing.T, path string) *os.File {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	t.Cleanup(func() { f.Close() })
	return f
}
