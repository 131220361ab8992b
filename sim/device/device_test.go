package device

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/innosim/innosim/sim/machine"
)

// syncReaders runs threads threads that each loop on one synchronous read on
// a device of units units at 5 ms a read, and returns the reads per second.
func syncReaders(t *testing.T, units, threads int, dist ServiceDist) machine.Result {
	t.Helper()
	m, err := machine.New(machine.Config{CPUs: 4, Seed: 1})
	require.NoError(t, err)
	require.NoError(t, install(m, Config{Units: units, Read: 5 * time.Millisecond,
		Write: time.Millisecond, Fsync: time.Millisecond, Dist: dist}))
	for range threads {
		require.NoError(t, m.AddThread([]machine.Op{{Kind: machine.OpRead}, {Kind: machine.OpDone, Arg: 1}}, 0))
	}
	return m.Run(50*time.Millisecond, time.Second)
}

func TestDeviceDistributionsKeepTheirMean(t *testing.T) {
	for _, d := range []ServiceDist{ServiceUniform, ServiceExponential} {
		t.Run(d.String(), func(t *testing.T) {
			reads, _, _ := syncReaders(t, 8, 8, d).IORates()
			assert.InEpsilon(t, 1600, reads, 0.1)
		})
	}
}

func TestSetDeviceRefusesBadConfig(t *testing.T) {
	ok := Config{Units: 8, Read: time.Millisecond, Write: time.Millisecond, Fsync: time.Millisecond}
	for _, c := range []struct {
		name string
		edit func(*Config)
		want string
	}{
		{"no units", func(c *Config) { c.Units = 0 }, "Units = 0, want 1..1024"},
		{"too many units", func(c *Config) { c.Units = 1025 }, "Units = 1025"},
		{"a zero read", func(c *Config) { c.Read = 0 }, "Read = 0s, want 1ns..10s"},
		{"a long fsync", func(c *Config) { c.Fsync = time.Minute }, "Fsync = 1m0s"},
		{"an unknown distribution", func(c *Config) { c.Dist = 9 }, "Dist = 9"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := ok
			c.edit(&cfg)
			m, err := machine.New(machine.Config{CPUs: 1})
			require.NoError(t, err)
			err = install(m, cfg)
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
			assert.True(t, errors.Is(err, machine.ErrInvalidConfig))
		})
	}
	m, err := machine.New(machine.Config{CPUs: 1})
	require.NoError(t, err)
	require.NoError(t, install(m, ok))
	assert.ErrorIs(t, install(m, ok), machine.ErrInvalidConfig, "a second device")
}

func TestAReadWithoutADeviceIsRefused(t *testing.T) {
	m, err := machine.New(machine.Config{CPUs: 1})
	require.NoError(t, err)
	err = m.AddThread([]machine.Op{{Kind: machine.OpRead}, {Kind: machine.OpDone, Arg: 1}}, 0)
	require.ErrorIs(t, err, machine.ErrInvalidConfig)
	assert.Contains(t, err.Error(), "SetDevice")
}

// install is Install's error alone.
func install(m *machine.Machine, cfg Config) error {
	_, err := Install(m, cfg)
	return err
}
