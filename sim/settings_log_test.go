package sim

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/innosim/innosim/mycnf"
)

func TestSeedForHashesTheDeviceByValue(t *testing.T) {
	d := DeviceConfig{Units: 8, Read: 5 * time.Millisecond, Write: time.Millisecond, Fsync: time.Millisecond}
	d2 := d
	a := Cell{Workload: "connect", Threads: 1, Device: &d}
	b := Cell{Workload: "connect", Threads: 1, Device: &d2}
	assert.Equal(t, a.SeedFor(1), b.SeedFor(1), "equal devices at different addresses")
	d2.Units = 4
	assert.NotEqual(t, a.SeedFor(1), b.SeedFor(1))
}

func TestCellFromSettingsMapsFlushLogAtTrxCommit(t *testing.T) {
	s := mycnf.Defaults()
	c, err := CellFromSettings(s, "oltp_read_write")
	require.NoError(t, err)
	require.NotNil(t, c.Log)
	assert.Equal(t, 1, c.Log.FlushAtTrxCommit, "MySQL's default")
	s.FlushLogAtTrxCommit = 2
	c, err = CellFromSettings(s, "oltp_read_write")
	require.NoError(t, err)
	assert.Equal(t, 2, c.Log.FlushAtTrxCommit)
	s.FlushLogAtTrxCommit = 3
	_, err = CellFromSettings(s, "oltp_read_write")
	assert.ErrorContains(t, err, "innodb_flush_log_at_trx_commit = 3, want 0..2")
}
