package sim

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/innosim/innosim/mycnf"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// syncReaders runs threads threads that each loop on one synchronous read on
// a device of units units at 5 ms a read, and returns the reads per second.
func syncReaders(t *testing.T, units, threads int, dist ServiceDist) Result {
	t.Helper()
	m, err := NewMachine(MachineConfig{CPUs: 4, Seed: 1})
	require.NoError(t, err)
	require.NoError(t, m.SetDevice(DeviceConfig{Units: units, Read: 5 * time.Millisecond,
		Write: time.Millisecond, Fsync: time.Millisecond, Dist: dist}))
	for range threads {
		require.NoError(t, m.AddThread([]Op{{Kind: OpRead}, done(1)}, 0))
	}
	return m.Run(50*time.Millisecond, time.Second)
}

func TestDeviceServesAsManyReadsAtOnceAsItHasUnits(t *testing.T) {
	for _, c := range []struct {
		name           string
		units, threads int
		want           float64
	}{
		{"one thread waits 5 ms per read", 8, 1, 200},
		{"eight threads keep eight units busy", 8, 8, 1600},
		{"sixteen threads queue behind eight units", 8, 16, 1600},
		{"one unit serialises eight threads", 1, 8, 200},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := syncReaders(t, c.units, c.threads, ServiceFixed)
			reads, writes, fsyncs := r.IORates()
			assert.InEpsilon(t, c.want, reads, 0.02)
			assert.Equal(t, r.Units, r.Reads, "every read completed once, and its thread went on")
			assert.Zero(t, writes)
			assert.Zero(t, fsyncs)
		})
	}
}

func TestDeviceDistributionsKeepTheirMean(t *testing.T) {
	for _, d := range []ServiceDist{ServiceUniform, ServiceExponential} {
		t.Run(d.String(), func(t *testing.T) {
			reads, _, _ := syncReaders(t, 8, 8, d).IORates()
			assert.InEpsilon(t, 1600, reads, 0.1)
		})
	}
}

func TestDeviceCountsWritesAndFsyncs(t *testing.T) {
	m, err := NewMachine(MachineConfig{CPUs: 2, Seed: 1})
	require.NoError(t, err)
	require.NoError(t, m.SetDevice(DeviceConfig{Units: 1, Read: time.Millisecond, Write: time.Millisecond, Fsync: 2 * time.Millisecond, Dist: ServiceFixed}))
	require.NoError(t, m.AddThread([]Op{{Kind: OpWrite}, {Kind: OpWrite}, {Kind: OpFsync}, done(1)}, 0))
	r := m.Run(0, time.Second)
	_, w, f := r.IORates()
	assert.InEpsilon(t, 500, w, 0.02, "two 1 ms writes and a 2 ms fsync: 250 loops/s")
	assert.InEpsilon(t, 250, f, 0.02)
}

func TestSetDeviceRefusesBadConfig(t *testing.T) {
	ok := DeviceConfig{Units: 8, Read: time.Millisecond, Write: time.Millisecond, Fsync: time.Millisecond}
	for _, c := range []struct {
		name string
		edit func(*DeviceConfig)
		want string
	}{
		{"no units", func(c *DeviceConfig) { c.Units = 0 }, "Units = 0, want 1..1024"},
		{"too many units", func(c *DeviceConfig) { c.Units = 1025 }, "Units = 1025"},
		{"a zero read", func(c *DeviceConfig) { c.Read = 0 }, "Read = 0s, want 1ns..10s"},
		{"a long fsync", func(c *DeviceConfig) { c.Fsync = time.Minute }, "Fsync = 1m0s"},
		{"an unknown distribution", func(c *DeviceConfig) { c.Dist = 9 }, "Dist = 9"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := ok
			c.edit(&cfg)
			m, err := NewMachine(MachineConfig{CPUs: 1})
			require.NoError(t, err)
			err = m.SetDevice(cfg)
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
			assert.True(t, errors.Is(err, ErrInvalidConfig))
		})
	}
	m, err := NewMachine(MachineConfig{CPUs: 1})
	require.NoError(t, err)
	require.NoError(t, m.SetDevice(ok))
	assert.ErrorIs(t, m.SetDevice(ok), ErrInvalidConfig, "a second device")
}

func TestAReadWithoutADeviceIsRefused(t *testing.T) {
	m, err := NewMachine(MachineConfig{CPUs: 1})
	require.NoError(t, err)
	err = m.AddThread([]Op{{Kind: OpRead}, done(1)}, 0)
	require.ErrorIs(t, err, ErrInvalidConfig)
	assert.Contains(t, err.Error(), "SetDevice")
}

// TestReadIOThreadsAreCappedByTheDevice is MySQL bug 40604's shape: each
// simulated-AIO read handler serves one read at a time
// (os_aio_simulated_handle), so the reads/s grow with the read I/O threads
// until the device's units are all busy.
func TestReadIOThreadsAreCappedByTheDevice(t *testing.T) {
	rate := func(io int) float64 {
		s := mycnf.Defaults()
		s.ReadIOThreads = io
		s.UseNativeAIO = false // the bug is simulated AIO's: one read at a time per read I/O thread
		ac, err := s.AIOConfig()
		require.NoError(t, err)
		c := Cell{Workload: "read_ahead", Threads: 16, AIO: &ac,
			Device:  &DeviceConfig{Units: 8, Read: 5 * time.Millisecond, Write: 5 * time.Millisecond, Fsync: 5 * time.Millisecond, Dist: ServiceFixed},
			Machine: MachineConfig{CPUs: 8, Costs: OldKernel(), SpinLoops: DefaultSpinLoops, Seed: 1}, Measure: 500 * time.Millisecond}
		r, err := c.Run(context.Background())
		require.NoError(t, err)
		reads, _, _ := r.IORates()
		return reads
	}
	one, eight, sixteen := rate(1), rate(8), rate(16)
	assert.InEpsilon(t, 200, one, 0.05)
	assert.InEpsilon(t, 1600, eight, 0.05)
	assert.InEpsilon(t, 1600, sixteen, 0.05)
	t.Logf("reads/s with 1, 8, 16 read I/O threads: %.0f %.0f %.0f", one, eight, sixteen)
}

// A cell's DeviceUse says which of a device's service times it can wait
// for: read off the program, and held to what each workload's cells send to
// a device when they run (a kind that occurs is one reported). run used to
// accept -device fsync=1ms for oltp_insert, which never fsyncs.
func TestDeviceUseHoldsTheKindsACellSends(t *testing.T) {
	want := map[string]DeviceUse{
		"oltp_insert": {Read: true}, "bulk_insert": {Read: true}, "read_ahead": {Read: true},
		"oltp_insert_auto_inc": {Write: true, Fsync: true},
		"oltp_read_write":      {Fsync: true},
	}
	dev := DeviceConfig{Units: 4, Read: 50 * us, Write: 50 * us, Fsync: 50 * us}
	for _, name := range WorkloadNames() {
		t.Run(name, func(t *testing.T) {
			c, err := CellFromSettings(mycnf.Defaults(), name)
			require.NoError(t, err)
			u, err := c.DeviceUse()
			require.NoError(t, err)
			assert.Equal(t, want[name], u)
			c.Threads, c.Machine.CPUs, c.Machine.Seed, c.Measure, c.Device = 8, 2, 1, 5*time.Millisecond, &dev
			if name == "bulk_insert" {
				// more threads than the pool's 320 frames: a sibling leaves the
				// pool before its table splits again, and is read
				c.Threads, c.Machine.CPUs, c.Measure, c.BufferPool = 400, 16, 50*time.Millisecond, 5<<20
			}
			r, err := c.Run(context.Background())
			require.NoError(t, err)
			assert.Equal(t, [3]bool{u.Read, u.Write, u.Fsync}, [3]bool{r.Reads > 0, r.Writes > 0, r.Fsyncs > 0})
		})
	}
	for _, flush := range []int{0, 2} {
		c := Cell{Workload: "oltp_read_write", Log: &LogConfig{FlushAtTrxCommit: flush}}
		u, err := c.DeviceUse()
		require.NoError(t, err)
		assert.Equal(t, DeviceUse{}, u, "innodb_flush_log_at_trx_commit = %d writes the log to the page cache only", flush)
	}
}
