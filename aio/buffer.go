package aio

import (
	"cmp"
	"fmt"
	"slices"
	"unsafe"
)

// Bounds of AlignedBuffer's arguments, in bytes.
const (
	// MaxAlignment is the largest alignment (1 GiB: far above any page or
	// logical block size).
	MaxAlignment = 1 << 30

	// MaxBufferSize is the largest buffer: the most Linux moves in one read or
	// write call (MAX_RW_COUNT in include/linux/fs.h, INT_MAX rounded down to a
	// 4 KiB page), so one pread or pwrite can fill or drain it.
	MaxBufferSize = 0x7ffff000
)

// AlignedBuffer returns a slice of n bytes whose first byte lies on a multiple of
// align, as O_DIRECT requires of a buffer and its length and as InnoDB gets with
// ut_align. It allocates n + align bytes. align must be a power of two in
// 1..MaxAlignment (the page size, or the device's logical block size) and n a
// multiple of align in align..MaxBufferSize; anything else is an error wrapping
// ErrInvalidConfig that names the argument and the allowed values, and no
// buffer is allocated.
func AlignedBuffer(n int, align int) ([]byte, error) {
	switch {
	case align < 1 || align > MaxAlignment || align&(align-1) != 0:
		return nil, fmt.Errorf("aio: AlignedBuffer: align = %d, want a power of two in 1..%d: %w", align, MaxAlignment, ErrInvalidConfig)
	case n < 1 || n > MaxBufferSize:
		return nil, fmt.Errorf("aio: AlignedBuffer: n = %d, want 1..%d bytes (MaxBufferSize), a multiple of align (%d): %w", n, MaxBufferSize, align, ErrInvalidConfig)
	case n%align != 0:
		return nil, fmt.Errorf("aio: AlignedBuffer: n = %d, want a multiple of align (%d): %w", n, align, ErrInvalidConfig)
	}
	return alignedBuffer(n, align), nil
}

// alignedBuffer is AlignedBuffer without the checks: align is a power of two and
// n + align does not overflow. n need not be a multiple of align.
func alignedBuffer(n int, align int) []byte {
	b := make([]byte, n+align)
	skip := (align - int(uintptr(unsafe.Pointer(unsafe.SliceData(b)))&uintptr(align-1))) & (align - 1)
	return b[skip : skip+n : skip+n]
}

// RegisterBuffers registers bufs with every ring of a native Array as fixed
// buffers (IORING_REGISTER_BUFFERS): the kernel pins their pages once, and a
// request issued alone (not merged) whose Buf lies inside one of them is
// done with IORING_OP_READ_FIXED or IORING_OP_WRITE_FIXED, which skip
// pinning the pages of each I/O. A buffer pool allocated once (with
// AlignedBuffer, for O_DIRECT) is the case for it. Call it once, before the
// requests that should use them; the Array keeps bufs referenced until it is
// collected, and the caller must not let them go (or reuse their memory for
// anything else) before Close. On a simulated Array it only checks bufs:
// pread needs no registration.
//
// Errors wrap ErrInvalidConfig for no buffer, more than 16384, an empty one
// or one over 1 GiB (the kernel's bounds: IORING_MAX_REG_BUFFERS, and its
// per-buffer limit in io_uring/rsrc.c), overlapping ones, or a second
// call on a native Array; a kernel refusal is its errno (ENOMEM: an
// unprivileged process over RLIMIT_MEMLOCK).
func (a *Array) RegisterBuffers(bufs [][]byte) error {
	switch {
	case len(bufs) == 0 || len(bufs) > 1<<14:
		return fmt.Errorf("aio: RegisterBuffers: %d buffers, want 1..16384: %w", len(bufs), ErrInvalidConfig)
	}
	for i, b := range bufs {
		if len(b) == 0 || len(b) > 1<<30 {
			return fmt.Errorf("aio: RegisterBuffers: buffer %d of %d bytes, want 1..%d: %w", i, len(b), 1<<30, ErrInvalidConfig)
		}
	}
	order := make([]int, len(bufs))
	for i := range order {
		order[i] = i
	}
	addr := func(i int) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(bufs[i]))) }
	slices.SortFunc(order, func(x, y int) int { return cmp.Compare(addr(x), addr(y)) })
	for k := 1; k < len(order); k++ {
		if prev := order[k-1]; addr(prev)+uintptr(len(bufs[prev])) > addr(order[k]) {
			return fmt.Errorf("aio: RegisterBuffers: buffers %d and %d overlap: %w", prev, order[k], ErrInvalidConfig)
		}
	}
	return a.registerBuffers(bufs, order)
}
