//go:build linux

package aio

import (
	"fmt"
	"sort"
	"unsafe"

	"golang.org/x/sys/unix"
)

// fixedBuffers are the buffers RegisterBuffers registered, by address.
type fixedBuffers struct {
	start, end []uintptr // sorted, disjoint
	index      []uint16  // each one's index in the rings' tables
	keep       [][]byte  // referenced until the Array is collected
}

// find returns the index of the registered buffer that holds all of b.
func (fb *fixedBuffers) find(b []byte) (int, bool) {
	if fb == nil || len(b) == 0 {
		return 0, false
	}
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	i := sort.Search(len(fb.start), func(i int) bool { return fb.start[i] > p }) - 1
	if i < 0 || p+uintptr(len(b)) > fb.end[i] {
		return 0, false
	}
	return int(fb.index[i]), true
}

// registerBuffers registers bufs (checked: see RegisterBuffers; order lists
// them by address) with every ring of the native Array.
func (a *Array) registerBuffers(bufs [][]byte, order []int) error {
	n := a.native
	if n == nil {
		return nil
	}
	if !n.bufsClaimed.CompareAndSwap(false, true) {
		return fmt.Errorf("aio: RegisterBuffers called twice: %w", ErrInvalidConfig)
	}
	iov := make([]unix.Iovec, len(bufs))
	for i, b := range bufs {
		iov[i].Base = unsafe.SliceData(b)
		iov[i].SetLen(len(b))
	}
	fb := &fixedBuffers{keep: bufs}
	for _, i := range order {
		start := uintptr(unsafe.Pointer(unsafe.SliceData(bufs[i])))
		fb.start = append(fb.start, start)
		fb.end = append(fb.end, start+uintptr(len(bufs[i])))
		fb.index = append(fb.index, uint16(i))
	}
	// Every ring first, then published: a request may name a buffer only
	// once its ring has it.
	for s := range n.segs {
		if errno := n.segs[s].ring.registerBuffers(iov); errno != 0 {
			if errno == unix.ENOMEM {
				return fmt.Errorf("aio: RegisterBuffers: the kernel cannot pin them (RLIMIT_MEMLOCK is %d bytes): %w",
					memlockLimit(), errno)
			}
			return fmt.Errorf("aio: RegisterBuffers: %w", errno)
		}
	}
	n.bufs.Store(fb)
	return nil
}
