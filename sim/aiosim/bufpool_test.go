package aiosim

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/innosim/innosim/aio"
	"github.com/innosim/innosim/prio"
	"github.com/innosim/innosim/sim/bufpool"
	"github.com/innosim/innosim/sim/machine"
)

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
			m, err := machine.New(machine.Config{CPUs: 8, Seed: 3})
			require.NoError(t, err)
			cfg := aio.DefaultConfig()
			cfg.IO, cfg.Wake = aio.IOSimulated, aio.WakeAll
			var pool *bufpool.Pool
			var siblings Siblings // none resident without a pool
			if tt.pool {
				pool, err = bufpool.New(bufpool.DefaultBufferPool, cfg.PageSize)
				require.NoError(t, err)
				siblings = pool
			}
			a, err := Install(m, cfg, 100_000, nil, siblings)
			require.NoError(t, err)
			first := m.Threads()
			for range 4 {
				require.NoError(t, m.AddThread([]machine.Op{cpu(20 * time.Microsecond), prefetchSiblings(), done(1)}, prio.Normal))
			}
			m.Run(0, 5*time.Millisecond)
			ops := uint64(0)
			for i := range 4 {
				ops += m.ThreadUnits(first + i)
			}
			require.Positive(t, ops)
			st := a.Stats()
			assert.Equal(t, st.Submitted, st.Completed+st.Failed+st.InFlight, "counters balance")
			assert.Equal(t, tt.reads, st.Submitted > 0, "siblings read: %d", st.Submitted)
			assert.Equal(t, tt.handlers, st.Wakeups > 0, "handler wakeups: %d", st.Wakeups)
			read := m.Mutexes()[a.(*Simulated).arrayMu[aio.ArrayRead]]
			n := uint64(cfg.ReadSegments)
			assert.GreaterOrEqual(t, read.Acquisitions, n*(ops-4), "each split scans every read segment under the read array's mutex")
			if tt.pool {
				hits, misses := pool.Stats()
				assert.GreaterOrEqual(t, hits, ops, "a split per op, each a hit")
				assert.Zero(t, misses)
			}
		})
	}
}

// Under native AIO a resident sibling costs nothing: no slot, no io_submit.
func TestPrefetchSiblingsNativeSubmitsOnlyMisses(t *testing.T) {
	for _, pool := range []bool{true, false} {
		m, err := machine.New(machine.Config{CPUs: 4, Seed: 4})
		require.NoError(t, err)
		var siblings Siblings // none resident without a pool
		if pool {
			siblings, err = bufpool.New(bufpool.DefaultBufferPool, 16<<10)
			require.NoError(t, err)
		}
		a, err := Install(m, nativeConfig(4, 256), 100_000, nil, siblings)
		require.NoError(t, err)
		require.NoError(t, m.AddThread([]machine.Op{cpu(20 * time.Microsecond), prefetchSiblings(), done(1)}, prio.Normal))
		m.Run(0, 5*time.Millisecond)
		st := a.Stats()
		assert.Equal(t, !pool, st.Submitted > 0, "pool %v: %d submitted", pool, st.Submitted)
		assert.Equal(t, st.Submitted, a.(*Native).Prefetch)
	}
}

// arrayAcquisitions returns the acquisitions of each AIO array's mutex, by
// aio.ArrayID, from the machine's mutexes "aio.<array>".
func arrayAcquisitions(m *machine.Machine) map[aio.ArrayID]uint64 {
	out := map[aio.ArrayID]uint64{}
	for _, mu := range m.Mutexes() {
		for a := aio.ArrayID(0); a < 4; a++ {
			if mu.Name == "aio."+a.String() {
				out[a] = mu.Acquisitions
			}
		}
	}
	return out
}

// A split whose sibling is resident reads nothing, but under simulated AIO
// its os_aio_simulated_wake_handler_threads still visits every segment
// under its array's mutex (8.0's AIO::wake_simulated_handler_thread): once
// per split for the insert-buffer and log arrays, four times (one per
// segment) for the read and the write arrays. Native AIO returns at once:
// no array mutex is taken but by each native handler's first scan.
func TestSplitWakeTakesEachArrayMutexOncePerSegment(t *testing.T) {
	for _, native := range []bool{false, true} {
		m, err := machine.New(machine.Config{CPUs: 4, Seed: 3, Costs: machine.OldKernel()})
		require.NoError(t, err)
		cfg := aio.DefaultConfig() // 4 read + 4 write segments, insert buffer, log
		if native {
			cfg.IO, cfg.Wake = aio.IONative, aio.WakeTargeted
		}
		a, err := Install(m, cfg, 1000, nil, nil)
		require.NoError(t, err)
		first := m.Threads()
		require.NoError(t, m.AddThread([]machine.Op{cpu(10 * time.Microsecond), prefetchResidentSibling(), done(1)}, prio.Normal))
		m.Run(0, 5*time.Millisecond)
		splits := m.ThreadUnits(first)
		require.Greater(t, splits, uint64(100))
		acq := arrayAcquisitions(m)
		assert.Zero(t, a.Stats().Submitted, "a resident sibling is not read")
		per := map[aio.ArrayID]uint64{aio.ArrayIbuf: 1, aio.ArrayLog: 1, aio.ArrayRead: 4, aio.ArrayWrite: 4}
		if native {
			for a, n := range acq {
				// only each handler's scan before its first io_getevents
				assert.LessOrEqual(t, n, per[a], "native: no %s mutex for the wake", a)
			}
			continue
		}
		for a, k := range per {
			// the split in progress at the end may have taken some of its share
			assert.GreaterOrEqual(t, acq[a], k*splits, "%s mutex", a)
			assert.LessOrEqual(t, acq[a], k*(splits+1), "%s mutex", a)
		}
	}
}

// The page cleaner writes what OpDirty dirties through the write array, a
// doublewrite batch of four pages (innodb_doublewrite_pages = the four write
// I/O threads) at a time: under simulated AIO each page's slot is reserved
// under the write array's mutex and each write handler takes that mutex to
// scan its segment and again to free the slot. One thread dirtying a page
// every 5 µs outruns the cleaner's batches (a pwrite and an fsync of 100 µs
// each per four pages), so the pool's 8,192 frames run out and the thread
// flushes pages itself; every page dirtied is written once, and every frame
// is free, dirty, or being written. Under native AIO the same writes go
// through io_submit, with the write array's mutex and no other.
func TestPageCleanerWritesDirtyPagesThroughTheWriteArray(t *testing.T) {
	for _, native := range []bool{false, true} {
		m, err := machine.New(machine.Config{CPUs: 4, Seed: 3, Costs: machine.OldKernel()}) // 100 µs per write
		require.NoError(t, err)
		cfg := aio.DefaultConfig()
		if native {
			cfg.IO, cfg.Wake = aio.IONative, aio.WakeTargeted
		}
		a, err := Install(m, cfg, 1_000_000, nil, nil)
		require.NoError(t, err)
		f, err := bufpool.AddCleaner(m, nil, a, nil)
		require.NoError(t, err)
		first := m.Threads()
		require.NoError(t, m.AddThread([]machine.Op{cpu(5 * time.Microsecond), dirty(1), done(1)}, prio.Normal))
		m.Run(0, 100*time.Millisecond)
		rows := m.ThreadUnits(first)
		st := a.Stats()
		acq := arrayAcquisitions(m)
		fr := f.Frames()
		require.Greater(t, rows, uint64(9000), "past the pool's 8,192 frames")
		assert.Equal(t, f.Flushed, st.Submitted, "every queued page is an AIO write")
		assert.Equal(t, st.Submitted, st.Completed+st.InFlight, "counters balance")
		pending := uint64(fr.Batch) // the cleaner's batch, not yet queued
		// the row in progress at the end may have dirtied its page already
		assert.InDelta(t, float64(rows), float64(uint64(fr.Dirty)+f.Flushed+f.SingleFlushes+pending), 1, "each dirty page written once")
		// the thread's own single-page flush in progress holds a frame too
		assert.Equal(t, uint64(8192), uint64(fr.Avail+fr.Dirty)+pending+st.InFlight+uint64(fr.Flushing), "frames conserved")
		assert.Positive(t, f.SingleFlushes, "the free list runs dry")
		assert.GreaterOrEqual(t, 4*f.DblwrBatches, f.Flushed, "a doublewrite batch per four pages")
		assert.LessOrEqual(t, f.DblwrBatches, f.Flushed+pending, "a page or more per batch")
		if native {
			assert.GreaterOrEqual(t, acq[aio.ArrayWrite], f.Flushed+st.Completed)
			// each native handler scans its segment once before its first
			// io_getevents; the cleaner's rounds add nothing to the others
			assert.LessOrEqual(t, acq[aio.ArrayIbuf]+acq[aio.ArrayLog]+acq[aio.ArrayRead], uint64(6), "no wake under native AIO")
			continue
		}
		assert.GreaterOrEqual(t, acq[aio.ArrayWrite], f.Flushed+2*st.Completed)
		assert.Positive(t, acq[aio.ArrayIbuf], "the cleaner's wake visits every segment")
		assert.GreaterOrEqual(t, acq[aio.ArrayRead], 4*acq[aio.ArrayIbuf], "four read segments per wake")
	}
}

func dirty(pages int32) machine.Op { return machine.Op{Kind: machine.OpDirty, Arg: pages} }
func prefetchSiblings() machine.Op { return machine.Op{Kind: machine.OpPrefetchSiblings} }
func prefetchResidentSibling() machine.Op {
	return machine.Op{Kind: machine.OpPrefetchSiblings, Arg: machine.SiblingResident}
}
