package aiosim

import (
	"github.com/innosim/innosim/aio"
	"github.com/innosim/innosim/sim/bufpool"
	"github.com/innosim/innosim/sim/machine"
)

// nativeCleaner is the page cleaner's state in the native write array
// (bufpool.WriteArray): the write it submits and its wait for a free slot. The
// round's os_aio_simulated_wake_handler_threads returns at once under native
// AIO: no mutex, no event.
type nativeCleaner struct {
	io        int32 // the write being submitted
	submitted bool  // its io_submit's system call is charged
}

// Attach is bufpool.WriteArray's.
func (d *Native) Attach(s bufpool.PageSink, _ int32) int {
	d.sink = s
	_, n := d.core.ArraySegments(aio.ArrayWrite)
	return n
}

// WriteMutex is bufpool.WriteArray's.
func (d *Native) WriteMutex() int32 { return d.arrayMu[aio.ArrayWrite] }

// Reserve is the cleaner's reservation of a slot for a page write at an
// offset drawn over the tablespace, taken into an I/O for the kernel.
func (d *Native) Reserve(id int32) bool {
	m := d.m
	cfg := d.core.Config()
	off := m.Rand().Int64N(d.pages) * cfg.PageSize
	res, err := d.core.Reserve(aio.SlotRequest{Op: aio.Write, Kind: aio.KindNormal, File: 1,
		Offset: off, Length: cfg.PageSize, Hint: -2}, m.Clock())
	if err != nil {
		d.FullWaits++
	} else {
		d.cw.io = d.issue(res.Segment, m.Clock())
	}
	m.Burst(id, int64(reserveWork), machine.CatUser)
	return err == nil
}

// Submit is os_aio_linux_dispatch's io_submit of the write: a system call,
// then the write is in the kernel.
func (d *Native) Submit(id int32) bool {
	c := &d.cw
	if !c.submitted {
		c.submitted = true
		d.m.Syscall(id, int64(d.m.Costs().Syscall))
		return false
	}
	c.submitted = false
	d.submitIO(c.io)
	return true
}

// Wake has nothing to do: native AIO wakes no handler.
func (d *Native) Wake(int32, bool) bool { return true }

// WaitFree is os_event_wait(array->not_full): a futex wait, asleep unless a
// slot was freed meanwhile, woken by a handler's free_slot.
func (d *Native) WaitFree(id int32, first bool) bool {
	if !first {
		return true
	}
	a := aio.ArrayWrite
	d.m.FutexWait(id, d, int32(a), d.full[a].bucket)
	return false
}
