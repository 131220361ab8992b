//go:build !linux

package aio

func vectorIO(f File, bufs [][]byte, off int64, write bool) (int, error) {
	return eachBuffer(f, bufs, off, write)
}
