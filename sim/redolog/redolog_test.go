package redolog

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/innosim/innosim/prio"
	"github.com/innosim/innosim/sim/device"
	"github.com/innosim/innosim/sim/machine"
)

// commitRates runs threads that each do 20 µs of work and commit, with
// innodb_flush_log_at_trx_commit = flush, and returns the commits and the
// device's fsyncs.
func commitRates(t *testing.T, flush, threads int) (commits, fsyncs uint64, r machine.Result) {
	t.Helper()
	m, err := machine.New(machine.Config{CPUs: 4, SpinLoops: machine.DefaultSpinLoops, Seed: 2})
	require.NoError(t, err)
	dev, err := device.Install(m, device.Config{Units: 1, Read: time.Millisecond, Write: time.Millisecond, Fsync: time.Millisecond, Dist: device.ServiceFixed})
	require.NoError(t, err)
	_, err = Install(m, Config{FlushAtTrxCommit: flush}, dev)
	require.NoError(t, err)
	prog := []machine.Op{{Kind: machine.OpCPU, Dur: 20 * time.Microsecond}, {Kind: machine.OpLogCommit}, {Kind: machine.OpDone, Arg: 1}}
	for range threads {
		require.NoError(t, m.AddThread(prog, prio.Normal))
	}
	r = m.Run(0, 100*time.Millisecond)
	return r.Units, r.Fsyncs, r
}

func TestCommitFlushesByFlushLogAtTrxCommit(t *testing.T) {
	c1, f1, _ := commitRates(t, 1, 1)
	assert.InDelta(t, 97, float64(f1), 3, "one thread: an fsync of 1 ms (and 30 µs of CPU) per commit")
	assert.InDelta(t, float64(c1), float64(f1), 2)

	c32, f32, _ := commitRates(t, 1, 32)
	assert.InDelta(t, 97, float64(f32), 3, "the device still does one fsync at a time")
	assert.Greater(t, c32, 10*f32, "group commit: one fsync covers the commits that queued while it ran")

	for _, flush := range []int{0, 2} {
		c, f, _ := commitRates(t, flush, 32)
		assert.Zero(t, f, "flush %d: no fsync at commit", flush)
		assert.Greater(t, c, 50*c32/10, "flush %d: commits are not bound by the device", flush)
	}
}

func TestLogBadInput(t *testing.T) {
	m, err := machine.New(machine.Config{CPUs: 1})
	require.NoError(t, err)
	_, err = Install(m, Config{FlushAtTrxCommit: 3}, nil)
	assert.ErrorContains(t, err, "innodb_flush_log_at_trx_commit = 3, want 0..2")
	_, err = Install(m, DefaultConfig, nil)
	require.NoError(t, err)
	err = m.AddThread([]machine.Op{{Kind: machine.OpCPU, Dur: time.Microsecond}, {Kind: machine.OpLogCommit}}, prio.Normal)
	assert.ErrorContains(t, err, "want a device installed by SetDevice", "a durable commit fsyncs: a device to fsync on")
}
