package sim

import (
	"math"
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

// arrayAcquisitions returns the acquisitions of each AIO array's mutex, by
// aio.ArrayID, from the machine's mutexes "aio.<array>".
func arrayAcquisitions(m *Machine) map[aio.ArrayID]uint64 {
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
		m, err := NewMachine(MachineConfig{CPUs: 4, Seed: 3, Costs: OldKernel()})
		require.NoError(t, err)
		cfg := aio.DefaultConfig() // 4 read + 4 write segments, insert buffer, log
		if native {
			cfg.IO, cfg.Wake = aio.IONative, aio.WakeTargeted
		}
		require.NoError(t, m.SetAIO(cfg, 1000))
		first := len(m.threads)
		require.NoError(t, m.AddThread([]Op{cpu(10 * time.Microsecond), prefetchResidentSibling(), done(1)}, prio.Normal))
		m.Run(0, 5*time.Millisecond)
		splits := m.ThreadUnits(first)
		require.Greater(t, splits, uint64(100))
		acq := arrayAcquisitions(m)
		assert.Zero(t, m.AIOStats().Submitted, "a resident sibling is not read")
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
		m, err := NewMachine(MachineConfig{CPUs: 4, Seed: 3, Costs: OldKernel()}) // 100 µs per write
		require.NoError(t, err)
		cfg := aio.DefaultConfig()
		if native {
			cfg.IO, cfg.Wake = aio.IONative, aio.WakeTargeted
		}
		require.NoError(t, m.SetAIO(cfg, 1_000_000))
		m.addPageCleaner()
		m.addPageCleaner() // once only
		require.NotNil(t, m.fl)
		first := len(m.threads)
		require.NoError(t, m.AddThread([]Op{cpu(5 * time.Microsecond), dirty(1), done(1)}, prio.Normal))
		m.Run(0, 100*time.Millisecond)
		rows := m.ThreadUnits(first)
		st := m.AIOStats()
		acq := arrayAcquisitions(m)
		f := m.fl
		require.Greater(t, rows, uint64(9000), "past the pool's 8,192 frames")
		assert.Equal(t, f.Flushed, st.Submitted, "every queued page is an AIO write")
		assert.Equal(t, st.Submitted, st.Completed+st.InFlight, "counters balance")
		pending := uint64(f.cl.pending) // the cleaner's batch, not yet queued
		// the row in progress at the end may have dirtied its page already
		assert.InDelta(t, float64(rows), float64(uint64(f.dirty)+f.Flushed+f.SingleFlushes+pending), 1, "each dirty page written once")
		flushing := uint64(0) // the thread's own single-page flush in progress
		if f.fw[first].stage == fwFlushSys {
			flushing = 1
		}
		assert.Equal(t, uint64(8192), uint64(f.avail+f.dirty)+pending+st.InFlight+flushing, "frames conserved")
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

// buf_LRU_get_free_block with nothing replaceable: a thread flushes the LRU
// tail's dirty page itself (pwrite and fsync to the doublewrite file, pwrite
// and fsync to the data file: four I/Os of 100 µs), takes the frame it freed,
// and goes on; with no dirty page to flush either (every one being written),
// its first two iterations fail at once and from the third it sleeps 10 ms
// before each.
func TestAThreadWithoutAFreeFrameFlushesAPageOrSleeps(t *testing.T) {
	for _, tc := range []struct {
		name         string
		dirty        int64
		rows, sleeps uint64
		singles      uint64
	}{
		{"a dirty page at the tail: a single-page flush per row, about 400 µs each", 1, 62, 0, 62},
		{"every dirty page being written: sleeps at 0, 10 and 20 ms", 0, 0, 3, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := NewMachine(MachineConfig{CPUs: 2, Seed: 5, Costs: OldKernel()})
			require.NoError(t, err)
			installFlushList(m, &flushList{cleaner: -1, dirty: tc.dirty, dblwr: 4}) // no frame free, no cleaner to wake
			require.NoError(t, m.AddThread([]Op{cpu(1 * time.Microsecond), dirty(1), done(1)}, prio.Normal))
			r := m.Run(0, 25*time.Millisecond)
			rows := m.ThreadUnits(0)
			assert.Equal(t, 2*m.fl.SingleFlushes, r.Writes, "two pwrites per flush, counted without a device")
			assert.Equal(t, 2*m.fl.SingleFlushes, r.Fsyncs, "two fsyncs per flush")
			assert.InDelta(t, float64(tc.rows), float64(rows), float64(tc.rows)/5, "rows")
			assert.Equal(t, tc.sleeps, m.fl.FreeWaits, "10 ms sleeps")
			assert.InDelta(t, float64(tc.singles), float64(m.fl.SingleFlushes), float64(tc.singles)/5, "single-page flushes")
			assert.GreaterOrEqual(t, m.fl.SingleFlushes, rows, "each row's frame came from its own flush")
		})
	}
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
		m, err := c.build()
		require.NoError(t, err)
		require.NotNil(t, m.fl, "the workload adds a page cleaner")
		m.Run(0, 50*time.Millisecond)
		var rows, edge uint64
		for i := range m.threads {
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
		pending := m.fl.cl.pending
		pages := float64(m.fl.dirty) + float64(m.fl.Flushed) + float64(m.fl.SingleFlushes) + float64(pending)
		assert.InDelta(t, float64(rows)+splits, pages, float64(c.Threads)+2, "a page per row and per split")
		acq := arrayAcquisitions(m)
		if native {
			assert.LessOrEqual(t, acq[aio.ArrayRead], uint64(4), "no wake under native AIO")
		} else {
			assert.GreaterOrEqual(t, acq[aio.ArrayRead], uint64(4*splits), "the split's wake visits the read segments")
		}
	}
}

// On a device, a single-page flush's four I/Os wait in its queue one after
// another: at 1 ms each on one unit, a row per 4 ms, and the device counts
// two writes and two fsyncs per flush.
func TestASinglePageFlushWaitsForTheDevice(t *testing.T) {
	m, err := NewMachine(MachineConfig{CPUs: 2, Seed: 5, Costs: OldKernel()})
	require.NoError(t, err)
	require.NoError(t, m.SetDevice(DeviceConfig{Units: 1, Read: time.Millisecond, Write: time.Millisecond,
		Fsync: time.Millisecond, Dist: ServiceFixed}))
	installFlushList(m, &flushList{cleaner: -1, dirty: 1, dblwr: 4})
	require.NoError(t, m.AddThread([]Op{cpu(1 * time.Microsecond), dirty(1), done(1)}, prio.Normal))
	r := m.Run(0, 25*time.Millisecond)
	assert.Equal(t, uint64(6), m.ThreadUnits(0), "a row per 4 ms")
	assert.Equal(t, uint64(7), m.fl.SingleFlushes, "the seventh in progress")
	assert.Equal(t, uint64(12), r.Writes, "two per flush done, the seventh's first still in service")
	assert.Equal(t, uint64(12), r.Fsyncs)
}

// installFlushList installs f, a flush list without a page cleaner, on m:
// OpDirty takes its frames.
func installFlushList(m *Machine, f *flushList) {
	f.m, m.fl = m, f
	m.Handle(OpDirty, f)
}
