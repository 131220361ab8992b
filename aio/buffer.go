package aio

import "unsafe"

// AlignedBuffer returns a slice of n bytes whose first byte lies on a multiple of
// align (a power of two, such as the page size), as O_DIRECT requires and as
// InnoDB gets with ut_align. It allocates n + align bytes. A non-positive n
// gives nil; an align that is not a positive power of two is treated as 1.
func AlignedBuffer(n int, align int) []byte {
	if n <= 0 {
		return nil
	}
	if align <= 0 || align&(align-1) != 0 {
		align = 1
	}
	b := make([]byte, n+align)
	skip := (align - int(uintptr(unsafe.Pointer(unsafe.SliceData(b)))&uintptr(align-1))) & (align - 1)
	return b[skip : skip+n : skip+n]
}
