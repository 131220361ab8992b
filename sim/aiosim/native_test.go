package aiosim

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/innosim/innosim/aio"
	"github.com/innosim/innosim/prio"
	"github.com/innosim/innosim/sim/machine"
)

func nativeConfig(read, slots int) aio.Config {
	cfg := aio.DefaultConfig()
	cfg.ReadSegments, cfg.SlotsPerSegment = read, slots
	cfg.IO, cfg.Wake = aio.IONative, aio.WakeTargeted
	return cfg
}

// Under native WakeDeferred a read-ahead's pages wait in their slots until its
// last page is reserved, then go to the kernel with one io_submit per segment;
// a submitter that finds the array full submits what it buffered before it
// waits, so one slot and two-page read-aheads do not deadlock.
func TestNativeAIODeferredSubmitsTheReadAheadAtItsEnd(t *testing.T) {
	for _, tt := range []struct {
		name  string
		slots int
	}{{"room", 256}, {"one slot", 1}} {
		t.Run(tt.name, func(t *testing.T) {
			costs := machine.OldKernel()
			costs.IOService = 200 * time.Microsecond
			m, err := machine.New(machine.Config{CPUs: 4, Seed: 5, Costs: costs})
			require.NoError(t, err)
			cfg := nativeConfig(1, tt.slots)
			cfg.Wake = aio.WakeDeferred
			a, err := Install(m, cfg, 1, nil, nil)
			require.NoError(t, err) // one page: consecutive reads never merge
			first := m.Threads()
			require.NoError(t, m.AddThread([]machine.Op{cpu(50 * time.Microsecond), prefetch(2), done(1)}, prio.Normal))
			require.NoError(t, m.AddThread([]machine.Op{cpu(50 * time.Microsecond), prefetch(2), done(1)}, prio.Normal))
			m.Run(0, 20*time.Millisecond)
			st := a.Stats()
			d := a.(*Native)
			ops := m.ThreadUnits(first) + m.ThreadUnits(first+1)
			require.Positive(t, ops)
			assert.Equal(t, st.Submitted, st.Completed+st.InFlight, "counters balance")
			assert.Equal(t, d.Prefetch, st.Submitted)
			assert.GreaterOrEqual(t, d.Prefetch, 2*ops, "every op's two pages reserved")
			if tt.slots == 1 {
				assert.Positive(t, d.FullWaits)
				assert.InDelta(t, 100, float64(st.Completed), 40, "one slot, 200 µs reads: about 100 in 20 ms")
			} else {
				assert.Zero(t, d.FullWaits)
				assert.Greater(t, ops, uint64(300), "two threads of 50 µs ops, not held up by the device")
			}
		})
	}
}

// Under native AIO every submitted read-ahead completes exactly once, the
// counters balance, each submission costs its submitter one system call, and a
// handler is woken only by a completion of its own segment: no wasted wakeup,
// no futex call on a segment event.
func TestNativeAIOCompletesEachRequestOnceAndWakesOnlyOnCompletion(t *testing.T) {
	m, err := machine.New(machine.Config{CPUs: 4, Seed: 7})
	require.NoError(t, err)
	a, err := Install(m, nativeConfig(4, 256), 100_000, nil, nil)
	require.NoError(t, err)
	require.IsType(t, &Native{}, a, "the simulated driver is not installed")
	for range 2 { // cores to spare for the handlers
		require.NoError(t, m.AddThread([]machine.Op{cpu(20 * time.Microsecond), prefetch(2), done(1)}, prio.Normal))
	}
	r := m.Run(0, 20*time.Millisecond)
	st := a.Stats()
	d := a.(*Native)

	require.Positive(t, st.Completed)
	assert.Equal(t, d.Prefetch, st.Submitted, "every prefetched page reserved a slot")
	assert.Equal(t, st.Submitted, st.Completed+st.Failed+st.InFlight, "counters balance")
	inKernel := 0
	for _, h := range d.hs {
		inKernel += len(h.ring) + len(h.reaped)
	}
	assert.LessOrEqual(t, st.InFlight, uint64(len(d.ios)-len(d.freeIO)), "a reserved slot is an I/O in the kernel")
	assert.LessOrEqual(t, inKernel, int(st.InFlight))
	assert.Zero(t, st.WastedWakeups, "the kernel wakes a handler only for a completion")
	assert.LessOrEqual(t, st.Wakeups, st.Completed+uint64(inKernel), "at most one wake per completion")
	assert.Positive(t, st.Wakeups)
	assert.Zero(t, st.ArrayFullWaits)
	// every page: one io_submit; every reap: one io_getevents; and nothing else
	// makes a system call here but mutex futex calls
	assert.GreaterOrEqual(t, r.Syscalls, d.Prefetch-st.Submitted+st.Completed)
}

// A submitter that finds every slot of its array reserved waits on the array's
// not_full event until a handler frees one (os_aio_array_reserve_slot): no
// read-ahead is dropped, each prefetch op ends once its page is submitted,
// and the slot count bounds the device's rate (one slot, IOService 1 ms:
// about one read per millisecond). The broadcast of not_full promises no
// fairness among the waiters, and the test asks none.
func TestNativeAIOFullArrayWaitsForAFreeSlot(t *testing.T) {
	costs := machine.OldKernel()
	costs.IOService = time.Millisecond
	m, err := machine.New(machine.Config{CPUs: 4, Seed: 3, Costs: costs})
	require.NoError(t, err)
	a, err := Install(m, nativeConfig(1, 1), 1000, nil, nil)
	require.NoError(t, err)
	const subs = 4
	first := m.Threads()
	for range subs {
		require.NoError(t, m.AddThread([]machine.Op{cpu(time.Microsecond), prefetch(1), done(1)}, prio.Normal))
	}
	m.Run(0, 100*time.Millisecond)
	st := a.Stats()
	d := a.(*Native)

	assert.Positive(t, d.FullWaits, "the array was found full")
	assert.Equal(t, d.FullWaits, st.ArrayFullWaits)
	assert.Equal(t, d.Prefetch, st.Submitted, "nothing dropped")
	assert.Equal(t, st.Submitted, st.Completed+st.InFlight)
	assert.InDelta(t, 100, float64(st.Completed), 30, "one slot: one read in the device at a time")
	var ops uint64
	for i := range subs {
		ops += m.ThreadUnits(first + i)
	}
	assert.Equal(t, d.Prefetch, ops, "a prefetch op ends when its page is submitted")
	assert.Equal(t, uint64(1), st.InFlight, "the one slot is taken")
	assert.NotEmpty(t, d.full[aio.ArrayRead].waiters, "and submitters wait for it")
}

// TestSetAIORefusesASecondArray: a machine has one AIO array, as it has one
// device. A second SetAIO was accepted: the first array's handler threads
// stayed on the machine, serving the second's segments, and after a
// simulated then a native array AIOStats read the first (all zero) while the
// second served every read.
func TestInstallRefusesASecondArray(t *testing.T) {
	native := aio.DefaultConfig()
	native.IO, native.Wake = aio.IONative, aio.WakeTargeted
	for name, second := range map[string]aio.Config{"simulated again": aio.DefaultConfig(), "native after simulated": native} {
		m, err := machine.New(machine.Config{CPUs: 2})
		require.NoError(t, err)
		_, err = Install(m, aio.DefaultConfig(), 100, nil, nil)
		require.NoError(t, err)
		_, err = Install(m, second, 100, nil, nil)
		require.ErrorIs(t, err, machine.ErrInvalidConfig, name)
		assert.ErrorContains(t, err, "SetAIO called twice", name)
	}
}

// TestSetAIORefusesAnEmptyTablespace: pages below 1 was read as 1, silently.
func TestInstallRefusesAnEmptyTablespace(t *testing.T) {
	for _, pages := range []int64{0, -5} {
		m, err := machine.New(machine.Config{CPUs: 2})
		require.NoError(t, err)
		_, err = Install(m, aio.DefaultConfig(), pages, nil, nil)
		require.ErrorIs(t, err, machine.ErrInvalidConfig)
		assert.ErrorContains(t, err, fmt.Sprintf("pages = %d, want at least 1", pages))
	}
}

func cpu(d time.Duration) machine.Op   { return machine.Op{Kind: machine.OpCPU, Dur: d} }
func sleep(d time.Duration) machine.Op { return machine.Op{Kind: machine.OpSleep, Dur: d} }
func done(n int32) machine.Op          { return machine.Op{Kind: machine.OpDone, Arg: n} }
func prefetch(pages int32) machine.Op  { return machine.Op{Kind: machine.OpPrefetch, Arg: pages} }
