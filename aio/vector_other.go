//go:build !linux

package aio

func vectorIO(f File, bufs [][]byte, off int64, write bool) (int, error) {
	return eachBuffer(f, bufs, off, write)
}

// fdatasync is s.Sync: only Linux gets fdatasync(2) here.
func fdatasync(_ File, s syncer) error { return s.Sync() }
