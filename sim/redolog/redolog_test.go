package redolog

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/innosim/innosim/prio"
	"github.com/innosim/innosim/sim/machine"
)

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
