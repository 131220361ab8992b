package aiosim

import (
	"github.com/innosim/innosim/aio"
	"github.com/innosim/innosim/sim/bufpool"
	"github.com/innosim/innosim/sim/machine"
)

// simCleaner is the page cleaner's state in the simulated-AIO write array
// (bufpool.WriteArray): the wakes its round owes, and its wait for a free
// slot.
type simCleaner struct {
	wake     aio.SegmentSet // WakeTargeted: the segments the round's writes named
	sw       simWake        // WakeAll: os_aio_simulated_wake_handler_threads
	free     freeWaitStage  // its wait for a free slot
	waitFull bool           // blocked on the write array's not_full
}

// freeWaitStage is how far the cleaner has got in waiting for a free slot of
// a full simulated-AIO write array.
type freeWaitStage uint8

const (
	fsWake    freeWaitStage = iota // reserve_slot on a full array wakes the handlers before it waits
	fsSyscall                      // os_event_wait(m_not_full): the futex call's entry charged
	fsBlocked                      // asleep until a write handler's free_slot sets not_full
)

// Attach is bufpool.WriteArray's.
func (d *Simulated) Attach(s bufpool.PageSink, cleaner int32) int {
	d.sink, d.cleaner = s, cleaner
	_, n := d.core.ArraySegments(aio.ArrayWrite)
	return n
}

// WriteMutex is bufpool.WriteArray's.
func (d *Simulated) WriteMutex() int32 { return d.arrayMu[aio.ArrayWrite] }

// Reserve is the cleaner's AIO::reserve_slot of an aio.Write request at an
// offset drawn over the tablespace; the slot's segment joins the round's
// wakes.
func (d *Simulated) Reserve(id int32) bool {
	m := d.m
	off := m.Rand().Int64N(d.pages) * d.core.Config().PageSize
	res, err := d.core.Reserve(aio.SlotRequest{Op: aio.Write, Kind: aio.KindNormal, File: 1,
		Offset: off, Length: d.core.Config().PageSize, Hint: -2}, m.Clock())
	if err == nil {
		d.cw.wake = d.cw.wake.Union(res.Wake)
	}
	m.Burst(id, int64(reserveWork), machine.CatUser)
	return err == nil
}

// Submit has nothing to do: a simulated-AIO write waits in its slot for a
// handler.
func (d *Simulated) Submit(int32) bool { return true }

// Wake is the round's wake of the handlers: under WakeAll MySQL 8.0's wake
// of every segment (simWake); under WakeTargeted an event set of each
// segment the round's writes went to; under WakeDeferred the write array's
// Flush.
func (d *Simulated) Wake(id int32, first bool) bool {
	if first {
		d.cw.sw = simWake{left: d.allSegments(), seg: -1}
	}
	if d.core.Config().Wake == aio.WakeAll {
		return d.wakeScan(id, &d.cw.sw)
	}
	if d.core.Config().Wake == aio.WakeDeferred {
		d.cw.wake = d.cw.wake.Union(d.core.Flush(aio.ArrayWrite))
	}
	return d.setEvents(id, &d.cw.wake)
}

// WaitFree is reserve_slot's wait on a full array: it wakes the handlers
// (Wake), then os_event_wait(m_not_full): the futex call, asleep unless a
// slot was freed meanwhile; a write handler's free_slot wakes it (handle).
func (d *Simulated) WaitFree(id int32, first bool) bool {
	m, c := d.m, &d.cw
	if first {
		c.free = fsWake
	}
	switch c.free {
	case fsWake:
		if !d.Wake(id, first) {
			return false
		}
		c.free = fsSyscall
		m.Syscall(id, int64(m.Costs().Syscall))
		return false
	case fsSyscall:
		c.free = fsBlocked
		if d.core.Full(aio.ArrayWrite) {
			c.waitFull = true
			m.Block(id) // a write handler's free_slot wakes it
			return false
		}
	}
	return true
}
