package bufpool

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/innosim/innosim/prio"
	"github.com/innosim/innosim/sim/device"
	"github.com/innosim/innosim/sim/machine"
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
			b := &Pool{frames: tt.frames}
			for range tt.rounds {
				for id := range tt.threads {
					b.Split(int32(id))
				}
			}
			assert.Equal(t, tt.misses, b.Misses)
			assert.Equal(t, uint64(tt.threads*tt.rounds)-tt.misses, b.Hits)
		})
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
			m, err := machine.New(machine.Config{CPUs: 2, Seed: 5, Costs: machine.OldKernel()})
			require.NoError(t, err)
			f := installFlushList(m, nil, &FlushList{cleaner: -1, dirty: tc.dirty, dblwr: 4}) // no frame free, no cleaner to wake
			require.NoError(t, m.AddThread([]machine.Op{cpu(1 * time.Microsecond), dirty(1), done(1)}, prio.Normal))
			r := m.Run(0, 25*time.Millisecond)
			rows := m.ThreadUnits(0)
			assert.Equal(t, 2*f.SingleFlushes, r.Writes, "two pwrites per flush, counted without a device")
			assert.Equal(t, 2*f.SingleFlushes, r.Fsyncs, "two fsyncs per flush")
			assert.InDelta(t, float64(tc.rows), float64(rows), float64(tc.rows)/5, "rows")
			assert.Equal(t, tc.sleeps, f.FreeWaits, "10 ms sleeps")
			assert.InDelta(t, float64(tc.singles), float64(f.SingleFlushes), float64(tc.singles)/5, "single-page flushes")
			assert.GreaterOrEqual(t, f.SingleFlushes, rows, "each row's frame came from its own flush")
		})
	}
}

// On a device, a single-page flush's four I/Os wait in its queue one after
// another: at 1 ms each on one unit, a row per 4 ms, and the device counts
// two writes and two fsyncs per flush.
func TestASinglePageFlushWaitsForTheDevice(t *testing.T) {
	m, err := machine.New(machine.Config{CPUs: 2, Seed: 5, Costs: machine.OldKernel()})
	require.NoError(t, err)
	dev, err := device.Install(m, device.Config{Units: 1, Read: time.Millisecond, Write: time.Millisecond,
		Fsync: time.Millisecond, Dist: device.ServiceFixed})
	require.NoError(t, err)
	f := installFlushList(m, dev, &FlushList{cleaner: -1, dirty: 1, dblwr: 4})
	require.NoError(t, m.AddThread([]machine.Op{cpu(1 * time.Microsecond), dirty(1), done(1)}, prio.Normal))
	r := m.Run(0, 25*time.Millisecond)
	assert.Equal(t, uint64(6), m.ThreadUnits(0), "a row per 4 ms")
	assert.Equal(t, uint64(7), f.SingleFlushes, "the seventh in progress")
	assert.Equal(t, uint64(12), r.Writes, "two per flush done, the seventh's first still in service")
	assert.Equal(t, uint64(12), r.Fsyncs)
}

// installFlushList installs f, a flush list without a page cleaner, on m
// with the device dev: OpDirty takes its frames.
func installFlushList(m *machine.Machine, dev *device.Device, f *FlushList) *FlushList {
	f.m, f.dev = m, dev
	m.Handle(machine.OpDirty, f)
	return f
}

func cpu(d time.Duration) machine.Op { return machine.Op{Kind: machine.OpCPU, Dur: d} }
func dirty(pages int32) machine.Op   { return machine.Op{Kind: machine.OpDirty, Arg: pages} }
func done(n int32) machine.Op        { return machine.Op{Kind: machine.OpDone, Arg: n} }
