package aio

import (
	"fmt"
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
