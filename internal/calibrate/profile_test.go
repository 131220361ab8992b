package calibrate

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/innosim/innosim/internal/benchenv"
	"github.com/innosim/innosim/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func fixedCosts() Costs {
	m := func(d time.Duration) Measurement {
		return Measurement{Median: d, Q1: d - 1, Q3: d + 1, Min: d - 2, Max: d + 2, Repeats: 15}
	}
	return Costs{
		GoroutineHandoff:    m(150 * time.Nanosecond),
		LockedThreadHandoff: m(21 * time.Microsecond),
		FutexRoundTrip:      m(6 * time.Microsecond),
		WakePreempt:         Share{Median: 0.75, Q1: 0.74, Q3: 0.76, Min: 0.7, Max: 0.8, Repeats: 15},
		FutexLoadedHandoff:  m(4 * time.Microsecond),
		FutexWakeCall:       m(9 * time.Microsecond),
		FutexRemoteWake:     m(20 * time.Microsecond),
		Syscall:             m(200 * time.Nanosecond),
		ContextSwitch:       m(3500 * time.Nanosecond),
		MutexHandoff:        m(12 * time.Nanosecond),
		SysmonTick:          m(110 * time.Microsecond),
	}
}

func TestProfileTakesEachFieldFromItsMeasurement(t *testing.T) {
	p := fixedCosts().Profile("here")
	def := sim.OldKernel()
	tests := []struct {
		name      string
		got, want time.Duration
	}{
		{"syscall is getppid", p.Syscall, 200 * time.Nanosecond},
		{"context switch is the loaded handoff less its wake and wait calls", p.ContextSwitch, 3600 * time.Nanosecond},
		{"futex wake call is the time inside a Set that wakes another CPU", p.FutexWakeCall, 9 * time.Microsecond},
		{"futex wake is the remote wake from the Set's start", p.FutexWake, 20 * time.Microsecond},
		{"thread handoff is the locked-thread handoff", p.ThreadHandoff, 21 * time.Microsecond},
		{"mutex handoff is the contended sync.Mutex", p.MutexHandoff, 12 * time.Nanosecond},
		{"sysmon tick is the 20 µs nanosleep as it really lasts", p.SysmonTick, 110 * time.Microsecond},
		{"futex hold is not measured", p.FutexHold, def.FutexHold},
		{"spin round is not measured", p.SpinRound, def.SpinRound},
		{"io service is not measured", p.IOService, def.IOService},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { assert.Equal(t, tt.want, tt.got) })
	}
	assert.Equal(t, "here", p.Name)
	assert.Equal(t, 0.75, p.WakePreempt, "wake preempt is the measured share")
	assert.Equal(t, def.FutexGrowth, p.FutexGrowth)
}

func TestProfileContextSwitchNeverNegative(t *testing.T) {
	c := fixedCosts()
	c.FutexLoadedHandoff.Median = 300 * time.Nanosecond // less than its two system calls
	assert.Equal(t, time.Duration(0), c.Profile("x").ContextSwitch)
}

// A probe that could not run here (Repeats 0) leaves its field at OldKernel's
// value rather than writing a zero cost.
func TestProfileKeepsDefaultsForSkippedProbes(t *testing.T) {
	c := fixedCosts()
	c.FutexWakeCall, c.FutexRemoteWake, c.FutexLoadedHandoff = Measurement{}, Measurement{}, Measurement{}
	c.WakePreempt = Share{}
	c.SysmonTick = Measurement{}
	p, def := c.Profile("x"), sim.OldKernel()
	assert.Equal(t, def.FutexWakeCall, p.FutexWakeCall)
	assert.Equal(t, def.FutexWake, p.FutexWake)
	assert.Equal(t, def.ContextSwitch, p.ContextSwitch)
	assert.Equal(t, def.WakePreempt, p.WakePreempt)
	assert.Equal(t, def.SysmonTick, p.SysmonTick)
	assert.Equal(t, 200*time.Nanosecond, p.Syscall, "the others are still taken")
}

func TestWriteProfileRoundTrip(t *testing.T) {
	c := fixedCosts()
	env := benchenv.Fingerprint{{Key: "kernel", Value: "6.1.0"}}
	var buf bytes.Buffer
	require.NoError(t, c.WriteProfile(&buf, "calibrated", env))
	assert.Contains(t, buf.String(), "# kernel: 6.1.0\n")
	assert.Contains(t, buf.String(), "# measured futex round trip: 6µs (IQR")
	assert.Contains(t, buf.String(), "\n# old-kernel defaults, not measured here: syscall_socket, syscall_setup, set_priority, futex_hold, futex_growth, futex_walk, spin_round, io_service, line_transfer, line_transfer_remote")
	assert.Contains(t, buf.String(), "\n# measured here: context_switch (futex loaded handoff − 2 × syscall), syscall, ", "the key derived from another measurement says which")
	got, err := sim.ParseProfile(strings.NewReader(buf.String()), "f")
	require.NoError(t, err)
	assert.Equal(t, c.Profile("calibrated"), got)
}

// The whole path: measure this machine (briefly), write the file with Run -out,
// load it as run and reproduce --costs do.
func TestRunOutWritesALoadableProfile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "here.profile")
	var out, errOut bytes.Buffer
	require.NoError(t, Run(context.Background(), smallRun("-out", path), &out, &errOut))
	assert.Contains(t, errOut.String(), "cost profile written to "+path)
	p, err := sim.LoadProfile(path)
	require.NoError(t, err)
	assert.Equal(t, "calibrated", p.Name)
	assert.Positive(t, p.Syscall)
	assert.Positive(t, p.FutexWakeCall)
	assert.Positive(t, p.ThreadHandoff)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Contains(t, string(b), "# goos: ", "the file says where it was measured")
}

func TestRunOutToAnUnwritablePath(t *testing.T) {
	err := Run(context.Background(), []string{"-repeats", "1", "-rounds", "10", "-out", filepath.Join(t.TempDir(), "no", "such", "dir")},
		&bytes.Buffer{}, &bytes.Buffer{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no such file or directory")
}
