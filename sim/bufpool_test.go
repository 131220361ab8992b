package sim

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/innosim/innosim/aio"
	"github.com/innosim/innosim/sim/machine"
)

// A buffer pool below innodb_buffer_pool_size's minimum is refused, naming
// the field.
func TestCellRefusesABufferPoolBelowFiveMiB(t *testing.T) {
	c := Cell{Workload: "bulk_insert", Threads: 1, Machine: MachineConfig{CPUs: 1}, BufferPool: 1 << 20}
	err := c.Validate()
	require.ErrorIs(t, err, ErrInvalidConfig)
	assert.ErrorContains(t, err, "BufferPool = 1048576")
}

// oltp_insert_auto_inc's shape: every row takes the right-edge leaf's latch
// once and a split (one row in autoIncRowsPerLeaf) once more; every row
// dirties one page and every split one more, all of which reach the page
// cleaner; under simulated AIO every split and every cleaner round visits
// the write array's four segments under its mutex.
func TestInsertAutoIncSplitsAtTheRightEdgeAndDirtiesAPagePerRow(t *testing.T) {
	for _, native := range []bool{false, true} {
		cfg := aio.DefaultConfig()
		if native {
			cfg.IO, cfg.Wake = aio.IONative, aio.WakeTargeted
		}
		c := Cell{Workload: "oltp_insert_auto_inc", Threads: 8, AIO: &cfg,
			Machine: MachineConfig{CPUs: 8, Scheduler: CFS, Costs: OldKernel(), SpinLoops: DefaultSpinLoops, Seed: 2}}
		b, err := c.build()
		require.NoError(t, err)
		m := b.m
		require.NotNil(t, b.flush, "the workload adds a page cleaner")
		m.Run(0, 50*time.Millisecond)
		var rows, edge uint64
		for i := range m.Threads() {
			rows += m.ThreadUnits(i)
		}
		for _, mu := range m.Mutexes() {
			if mu.Name == "right_edge_leaf" {
				edge = mu.Acquisitions
			}
		}
		require.Greater(t, rows, uint64(5000))
		splits := float64(edge - rows) // the split takes the latch once more
		assert.InDelta(t, float64(rows)/autoIncRowsPerLeaf, splits, 4*math.Sqrt(float64(rows)/autoIncRowsPerLeaf)+8, "a split per %d rows", autoIncRowsPerLeaf)
		fr := b.flush.Frames()
		pages := float64(fr.Dirty) + float64(b.flush.Flushed) + float64(b.flush.SingleFlushes) + float64(fr.Batch)
		assert.InDelta(t, float64(rows)+splits, pages, float64(c.Threads)+2, "a page per row and per split")
		acq := arrayAcquisitions(m.Mutexes())
		if native {
			assert.LessOrEqual(t, acq[aio.ArrayRead], uint64(4), "no wake under native AIO")
		} else {
			assert.GreaterOrEqual(t, acq[aio.ArrayRead], uint64(4*splits), "the split's wake visits the read segments")
		}
	}
}

// autoIncRowsPerLeaf is oltp_insert_auto_inc's rows per clustered leaf
// (workload's autoIncRowsPerLeaf: sbtest's 208-byte records on 16 KiB pages).
const autoIncRowsPerLeaf = 77

// arrayAcquisitions returns the acquisitions of each AIO array's mutex, by
// aio.ArrayID, from the machine's mutexes "aio.<array>".
func arrayAcquisitions(mutexes []machine.Mutex) map[aio.ArrayID]uint64 {
	out := map[aio.ArrayID]uint64{}
	for _, mu := range mutexes {
		for a := aio.ArrayID(0); a < 4; a++ {
			if mu.Name == "aio."+a.String() {
				out[a] = mu.Acquisitions
			}
		}
	}
	return out
}
