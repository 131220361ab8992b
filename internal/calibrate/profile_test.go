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
		FutexWakeCall:       m(2 * time.Microsecond),
		FutexIdleWake:       m(7 * time.Microsecond),
		Syscall:             m(200 * time.Nanosecond),
		ContextSwitch:       m(3500 * time.Nanosecond),
		MutexHandoff:        m(12 * time.Nanosecond),
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
		{"context switch is half a pipe round trip less the wake and the read", p.ContextSwitch, 1300 * time.Nanosecond},
		{"futex wake call is the time inside the waking Set", p.FutexWakeCall, 2 * time.Microsecond},
		{"futex wake is the idle wake less the call", p.FutexWake, 5 * time.Microsecond},
		{"thread handoff is the locked-thread handoff", p.ThreadHandoff, 21 * time.Microsecond},
		{"mutex handoff is the contended sync.Mutex", p.MutexHandoff, 12 * time.Nanosecond},
		{"futex hold is not measured", p.FutexHold, def.FutexHold},
		{"spin round is not measured", p.SpinRound, def.SpinRound},
		{"io service is not measured", p.IOService, def.IOService},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { assert.Equal(t, tt.want, tt.got) })
	}
	assert.Equal(t, "here", p.Name)
	assert.Equal(t, def.FutexGrowth, p.FutexGrowth)
}

func TestProfileContextSwitchNeverNegative(t *testing.T) {
	c := fixedCosts()
	c.ContextSwitch.Median = 2 * time.Microsecond // less than the wake call and a system call
	assert.Equal(t, time.Duration(0), c.Profile("x").ContextSwitch)
	c.FutexWakeCall.Median = 8 * time.Microsecond // more than the idle wake
	assert.Equal(t, time.Duration(0), c.Profile("x").FutexWake)
}

func TestWriteProfileRoundTrip(t *testing.T) {
	c := fixedCosts()
	env := benchenv.Fingerprint{{Key: "kernel", Value: "6.1.0"}}
	var buf bytes.Buffer
	require.NoError(t, c.WriteProfile(&buf, "calibrated", env))
	assert.Contains(t, buf.String(), "# kernel: 6.1.0\n")
	assert.Contains(t, buf.String(), "# measured futex round trip: 6µs (IQR")
	got, err := sim.ParseProfile(strings.NewReader(buf.String()), "f")
	require.NoError(t, err)
	assert.Equal(t, c.Profile("calibrated"), got)
}

// The whole path: measure this machine (briefly), write the file with Run -out,
// load it as run and reproduce --costs do.
func TestRunOutWritesALoadableProfile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "here.profile")
	var out, errOut bytes.Buffer
	require.NoError(t, Run(context.Background(), []string{"-repeats", "3", "-rounds", "50", "-out", path}, &out, &errOut))
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
