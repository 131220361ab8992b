package sim

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/innosim/innosim/sim/spec"
)

func params(t *testing.T, name string) spec.Params {
	t.Helper()
	m, err := spec.Load(filepath.Join("spec", "machines", name+".machine"))
	require.NoError(t, err)
	p, err := m.Derive()
	require.NoError(t, err)
	return p
}

// A box's spec sheet sets the cell's machine: the server's share of its
// CPUs and caches, its kernel's scheduler and tunables, its kernel's entry
// costs, and a calibration's footprint model.
func TestMachineFromSpec(t *testing.T) {
	calib := OldKernel()
	calib.Name = "calibrated"
	calib.SwitchFootprint, calib.RefillLLC, calib.RefillMemory = 126<<10, time.Nanosecond, 9*time.Nanosecond

	pit := params(t, "pitbull")
	server, client := spec.ClientSplit(pit.CPUs)
	cfg, err := MachineFromSpec(pit, &calib, client)
	require.NoError(t, err)
	assert.Equal(t, 18, cfg.CPUs)
	assert.Equal(t, 6, cfg.ClientCPUs)
	assert.Equal(t, server, cfg.CPUs)
	assert.Equal(t, 2, cfg.Sockets)
	assert.Equal(t, CFS, cfg.Scheduler)
	assert.Equal(t, 20*time.Millisecond, cfg.Fair.Latency, "2.6.32 on 24 CPUs: 5 ms × 4")
	assert.Equal(t, 4*time.Millisecond, cfg.Fair.MinGranularity)
	assert.Equal(t, 4*time.Millisecond, cfg.Fair.WakeupGranularity)
	assert.Equal(t, 5, cfg.Fair.NrLatency)
	assert.Equal(t, 10*time.Millisecond, cfg.Fair.SleeperCredit)
	assert.Equal(t, int64(9*256<<10), cfg.Costs.CacheL2, "the server's 18 of 24 CPUs: 9 of 12 cores' L2")
	assert.Equal(t, int64(18<<20), cfg.Costs.CacheLLC, "and 3/4 of two 12 MiB L3s")
	assert.Equal(t, int64(126<<10), cfg.Costs.SwitchFootprint)
	assert.Equal(t, 9*time.Nanosecond, cfg.Costs.RefillMemory)
	assert.Equal(t, OldKernel().ContextSwitch, cfg.Costs.ContextSwitch, "the box's kernel's, not the calibration's")
	assert.Equal(t, "old-kernel (footprints of calibrated)", cfg.Costs.Name)

	gold := params(t, "percona-2026-gold6230")
	cfg, err = MachineFromSpec(gold, nil, 0)
	require.NoError(t, err)
	assert.Equal(t, 80, cfg.CPUs)
	assert.Equal(t, EEVDF, cfg.Scheduler)
	assert.Equal(t, 3*time.Millisecond, cfg.Fair.BaseSlice, "6.8: 0.75 ms × 4")
	assert.Zero(t, cfg.Costs.SwitchFootprint, "no calibration: no footprint")
	assert.Equal(t, "old-kernel", cfg.Costs.Name, "pti off")

	_, err = MachineFromSpec(pit, nil, 24)
	assert.ErrorIs(t, err, ErrInvalidConfig)
	assert.ErrorContains(t, err, "24 of pitbull's 24 CPUs for the client, want 0..23")
	_, err = MachineFromSpec(pit, nil, 5)
	assert.ErrorContains(t, err, "2 sockets do not divide the server's 19 CPUs")
}
