package aio

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func noClock() time.Duration { return 0 }

// A handler's cycle, step by step, from the core's side: each case is a
// sentence about what the handler does next.
func TestHandlerCycleDecides(t *testing.T) {
	newCycle := func(t *testing.T) (*Core, *HandlerCycle, int, *[]string) {
		cfg := DefaultConfig()
		cfg.ReadSegments, cfg.Wake = 1, WakeTargeted
		core, err := NewCore(cfg)
		require.NoError(t, err)
		seg, _ := core.ArraySegments(ArrayRead)
		c := NewHandlerCycle(core, seg)
		var calls []string
		c.Observe = func(call CycleCall) {
			calls = append(calls, fmt.Sprintf("%s %v %v", call.Op, call.Counted, call.Slots))
		}
		return core, c, seg, &calls
	}
	reserve := func(t *testing.T, core *Core, off int64) {
		_, err := core.Reserve(SlotRequest{Op: Read, Kind: KindNormal, File: 1, Offset: off, Length: 16 << 10}, 0)
		require.NoError(t, err)
	}

	t.Run("a woken handler with a request waiting picks it and counts the wake", func(t *testing.T) {
		core, c, seg, calls := newCycle(t)
		reserve(t, core, 0)
		c.Woken()
		step := c.Next(noClock, false)
		assert.Equal(t, HandlerStep{Action: HandlerIssue, Picked: true}, step)
		assert.Equal(t, seg, c.Batch().Segment)
		assert.Equal(t, []string{"pick true [512]"}, *calls)
		assert.Equal(t, uint64(1), core.Stats().Wakeups)
	})
	t.Run("after Complete with nothing waiting it skips the Pick and sleeps", func(t *testing.T) {
		core, c, _, calls := newCycle(t)
		reserve(t, core, 0)
		c.Woken()
		c.Next(noClock, false)
		c.Complete(0)
		assert.Equal(t, HandlerStep{Action: HandlerSleep}, c.Next(noClock, false))
		assert.Equal(t, []string{"pick true [512]", "complete false []"}, *calls)
	})
	t.Run("a woken handler that finds nothing picks, counts a wasted wake and sleeps", func(t *testing.T) {
		core, c, _, calls := newCycle(t)
		c.Woken()
		assert.Equal(t, HandlerStep{Action: HandlerSleep, Picked: true}, c.Next(noClock, false))
		assert.Equal(t, []string{"pick true []"}, *calls)
		assert.Equal(t, uint64(1), core.Stats().WastedWakeups)
	})
	t.Run("after Complete with a request waiting it picks without counting a wake", func(t *testing.T) {
		core, c, _, calls := newCycle(t)
		reserve(t, core, 0)
		c.Woken()
		c.Next(noClock, false)
		reserve(t, core, 1<<20)
		c.Complete(0)
		assert.Equal(t, HandlerIssue, c.Next(noClock, false).Action)
		assert.Equal(t, "pick false [513]", (*calls)[2])
	})
	t.Run("closed with nothing waiting it exits, and a wake while closed is not counted", func(t *testing.T) {
		core, c, _, calls := newCycle(t)
		c.Woken()
		assert.Equal(t, HandlerStep{Action: HandlerExit, Picked: true}, c.Next(noClock, true))
		assert.Equal(t, []string{"pick false []"}, *calls)
		assert.Zero(t, core.Stats().Wakeups)
	})
	t.Run("closed with a request waiting it serves the request first", func(t *testing.T) {
		core, c, _, _ := newCycle(t)
		reserve(t, core, 0)
		assert.Equal(t, HandlerIssue, c.Next(noClock, true).Action)
		c.Complete(0)
		assert.Equal(t, HandlerExit, c.Next(noClock, true).Action)
	})
	t.Run("the clock is read only when more than one request waits", func(t *testing.T) {
		core, c, _, _ := newCycle(t)
		reads := 0
		clock := func() time.Duration { reads++; return time.Hour }
		reserve(t, core, 0)
		c.Next(clock, false)
		assert.Zero(t, reads, "one request: picked however old")
		c.Complete(0)
		reserve(t, core, 0)
		reserve(t, core, 1<<20)
		c.Next(clock, false)
		assert.Equal(t, 1, reads)
	})
}

func TestNewHandlerCyclePanicsOnASegmentOutOfRange(t *testing.T) {
	core, err := NewCore(DefaultConfig())
	require.NoError(t, err)
	assert.Panics(t, func() { NewHandlerCycle(core, core.Segments()) })
	assert.Panics(t, func() { NewHandlerCycle(core, -1) })
}
