package calibrate

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// noisyCosts is a calibration whose system call figure's measurements spread
// ±50% about their median, and whose other figures agree within ±5%.
func noisyCosts() Costs {
	quiet := Measurement{Median: 1000, Q1: 950, Q3: 1050, Min: 900, Max: 1100, Repeats: 15}
	c := Costs{GoroutineHandoff: quiet, LockedThreadHandoff: quiet, FutexRoundTrip: quiet,
		FutexLoadedHandoff: quiet, FutexWakeCall: quiet, FutexRemoteWake: quiet, ContextSwitch: quiet,
		MutexHandoff: quiet, SysmonTick: quiet,
		WakePreempt: Share{Median: 0.8, Q1: 0.78, Q3: 0.82, Min: 0.7, Max: 0.9, Repeats: 15},
		Syscall:     Measurement{Median: 1000, Q1: 600, Q3: 1600, Min: 500, Max: 3000, Repeats: 15},
		Load:        Load{Average: 0.5, CPUs: 2}}
	for s := range c.Ring {
		for i := range c.Ring[s] {
			c.Ring[s][i] = quiet
		}
	}
	return c
}

// A figure whose measurements spread past ±25% is noisy, and so is a
// machine whose load average is past twice its CPUs: calibrate --out wrote
// a profile on a loaded machine without a word, and only --check said later
// that the machine was too noisy.
func TestCalibrateSaysWhenTheMachineWasBusy(t *testing.T) {
	c := noisyCosts()
	assert.InDelta(t, 0.5, c.Syscall.Spread(), 1e-9)
	assert.InDelta(t, 0.05, c.FutexRoundTrip.Spread(), 1e-9)
	assert.Equal(t, []string{"system call ±50%"}, c.Noisy())

	w := busyWarning(c, "costs.profile")
	assert.Equal(t, "innosim calibrate: warning: this machine was busy while measured (1 of 23 figures spread past ±25% between their measurements: system call ±50%): the costs carry that noise, and so does the profile written to costs.profile (its header says so); measure again on a quiet machine", w)

	c.Load = Load{Average: 28.62, CPUs: 2}
	assert.True(t, c.Load.Busy())
	assert.Contains(t, busyWarning(c, ""), "(load average 28.62 on 2 CPUs; 1 of 23 figures")
	assert.NotContains(t, busyWarning(c, ""), "profile written")

	var b strings.Builder
	require.NoError(t, c.WriteProfile(&b, "calibrated", nil))
	assert.Contains(t, b.String(), "# load average 28.62 on 2 CPUs when measured: busy, past twice the CPUs\n")
	assert.Contains(t, b.String(), "# noisy, spread past ±25% between measurements: system call ±50%\n")

	quiet := noisyCosts()
	quiet.Syscall.Q1, quiet.Syscall.Q3 = 990*time.Nanosecond, 1010*time.Nanosecond
	assert.Empty(t, quiet.Noisy())
	assert.Empty(t, busyWarning(quiet, "costs.profile"), "nothing to say of a quiet machine")
	b.Reset()
	require.NoError(t, quiet.WriteProfile(&b, "calibrated", nil))
	assert.NotContains(t, b.String(), "noisy")
	assert.Contains(t, b.String(), "# load average 0.50 on 2 CPUs when measured\n")
}
