package sim

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/innosim/innosim/aio"
	"github.com/innosim/innosim/prio"
)

// A split's sibling is resident exactly when fewer pages than the pool holds
// were brought in since its table's previous split: threads splitting in turn
// bring in one new leaf each (and a sibling per miss).
func TestBufPoolSiblingIsResidentWhileThePoolHoldsTheInterleaving(t *testing.T) {
	for _, tt := range []struct {
		name            string
		frames          int64
		threads, rounds int
		misses          uint64
	}{
		{"one table keeps its previous leaf in two frames", 2, 1, 5, 0},
		{"one frame holds only the new leaf", 1, 1, 5, 4},
		{"eight tables fit in sixteen frames", 16, 8, 5, 0},
		{"eight tables overflow four frames after their first split", 4, 8, 5, 8 * 4},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := &bufPool{frames: tt.frames}
			for range tt.rounds {
				for id := range tt.threads {
					b.split(int32(id))
				}
			}
			assert.Equal(t, tt.misses, b.Misses)
			assert.Equal(t, uint64(tt.threads*tt.rounds)-tt.misses, b.Hits)
		})
	}
}

// OpPrefetchSiblings under simulated wake-all: with every sibling resident no
// slot is reserved, and MySQL 8.0's wake scans each segment under its array
// mutex and sets no event (nothing reserved), so no handler wakes; a machine
// without a buffer pool reads every sibling and wakes the handlers.
func TestPrefetchSiblingsReadsOnlyMissesAndWakesOnlyForReservedSlots(t *testing.T) {
	for _, tt := range []struct {
		name     string
		pool     bool
		reads    bool
		handlers bool
	}{
		{"a pool holding every sibling", true, false, false},
		{"no pool", false, true, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m, err := NewMachine(MachineConfig{CPUs: 8, Seed: 3})
			require.NoError(t, err)
			cfg := aio.DefaultConfig()
			cfg.IO, cfg.Wake = aio.IOSimulated, aio.WakeAll
			require.NoError(t, m.SetAIO(cfg, 100_000))
			if tt.pool {
				require.NoError(t, m.setBufferPool(DefaultBufferPool, cfg.PageSize))
			}
			first := len(m.threads)
			for range 4 {
				require.NoError(t, m.AddThread([]Op{cpu(20 * time.Microsecond), prefetchSiblings(), done(1)}, prio.Normal))
			}
			m.Run(0, 5*time.Millisecond)
			ops := uint64(0)
			for i := range 4 {
				ops += m.ThreadUnits(first + i)
			}
			require.Positive(t, ops)
			st := m.AIOStats()
			assert.Equal(t, st.Submitted, st.Completed+st.Failed+st.InFlight, "counters balance")
			assert.Equal(t, tt.reads, st.Submitted > 0, "siblings read: %d", st.Submitted)
			assert.Equal(t, tt.handlers, st.Wakeups > 0, "handler wakeups: %d", st.Wakeups)
			read := m.mutexes[m.aio.arrayMu[aio.ArrayRead]]
			n := uint64(cfg.ReadSegments)
			assert.GreaterOrEqual(t, read.Acquisitions, n*(ops-4), "each split scans every read segment under the read array's mutex")
			if tt.pool {
				assert.GreaterOrEqual(t, m.pool.Hits, ops, "a split per op, each a hit")
				assert.Zero(t, m.pool.Misses)
			}
		})
	}
}

// Under native AIO a resident sibling costs nothing: no slot, no io_submit.
func TestPrefetchSiblingsNativeSubmitsOnlyMisses(t *testing.T) {
	for _, pool := range []bool{true, false} {
		m, err := NewMachine(MachineConfig{CPUs: 4, Seed: 4})
		require.NoError(t, err)
		require.NoError(t, m.SetAIO(nativeConfig(4, 256), 100_000))
		if pool {
			require.NoError(t, m.setBufferPool(DefaultBufferPool, 16<<10))
		}
		require.NoError(t, m.AddThread([]Op{cpu(20 * time.Microsecond), prefetchSiblings(), done(1)}, prio.Normal))
		m.Run(0, 5*time.Millisecond)
		st := m.AIOStats()
		assert.Equal(t, !pool, st.Submitted > 0, "pool %v: %d submitted", pool, st.Submitted)
		assert.Equal(t, st.Submitted, m.aion.Prefetch)
	}
}

// A buffer pool below innodb_buffer_pool_size's minimum is refused, naming
// the field.
func TestCellRefusesABufferPoolBelowFiveMiB(t *testing.T) {
	c := Cell{Workload: "bulk_insert", Threads: 1, Machine: MachineConfig{CPUs: 1}, BufferPool: 1 << 20}
	err := c.Validate()
	require.ErrorIs(t, err, ErrInvalidConfig)
	assert.ErrorContains(t, err, "BufferPool = 1048576")
}
