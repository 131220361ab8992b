package sim

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/innosim/innosim/mycnf"
)

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
