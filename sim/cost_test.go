package sim

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCostProfileWriteToRoundTrip(t *testing.T) {
	for _, p := range []CostProfile{OldKernel(), NewKernel(), calibratedCosts()} {
		t.Run(p.Name, func(t *testing.T) {
			var buf bytes.Buffer
			_, err := p.WriteTo(&buf)
			require.NoError(t, err)
			got, err := ParseProfile(&buf, "x")
			require.NoError(t, err)
			assert.Equal(t, p, got)
		})
	}
}

// calibratedCosts is a cost profile of the shape innosim calibrate writes on a
// 2-core VM: every field away from OldKernel's.
func calibratedCosts() CostProfile {
	p := OldKernel()
	p.Name = "calibrated"
	p.Syscall = 200 * time.Nanosecond
	p.ContextSwitch = 3500 * time.Nanosecond
	p.FutexWakeCall = 9 * time.Microsecond
	p.FutexWake = 20 * time.Microsecond
	p.ThreadHandoff = 20 * time.Microsecond
	p.MutexHandoff = 10 * time.Nanosecond
	p.WakePreempt = 0.75
	p.SysmonTick = 110 * time.Microsecond
	return p
}
