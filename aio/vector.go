package aio

// VectorBackend is a Backend that reads into, or writes from, several buffers
// in one call at consecutive offsets, as preadv(2) and pwritev(2) do. The driver
// uses it for a merged batch so the pages go straight to the requests' buffers,
// where InnoDB copies through a combined buffer; a plain Backend still gets the
// combined buffer. The contract is Backend's: fill every buffer or return an
// error, with n the bytes transferred.
//
// The driver passes one call only buffers that share an alignment (of address,
// length and file offset, counted up to 4096 bytes): a merged batch that mixes
// alignments is issued as one call per run of equally aligned requests, so
// that with O_DIRECT a misaligned buffer fails alone with EINVAL instead of
// failing its aligned neighbours.
type VectorBackend interface {
	Backend
	ReadvAt(f File, bufs [][]byte, off int64) (n int, err error)
	WritevAt(f File, bufs [][]byte, off int64) (n int, err error)
}

var _ VectorBackend = FileBackend{}

// ReadvAt reads into bufs, in order, from off: one preadv(2) per call on Linux
// when f is an *os.File (repeated after a partial transfer), else a ReadAt per
// buffer. An error but io.EOF is an *os.PathError naming the file, as
// os.File's ReadAt gives.
func (FileBackend) ReadvAt(f File, bufs [][]byte, off int64) (int, error) {
	if f == nil {
		return 0, ErrNoFile
	}
	return vectorIO(f, bufs, off, false)
}

// WritevAt writes bufs, in order, at off: pwritev(2) on Linux for an *os.File,
// else a WriteAt per buffer. A file os.File.WriteAt refuses for O_APPEND
// fails with ErrAppendMode before any byte is written, as WriteAt does
// (pwritev would append).
func (FileBackend) WritevAt(f File, bufs [][]byte, off int64) (int, error) {
	if f == nil {
		return 0, ErrNoFile
	}
	if err := refusesWrite(f); err != nil {
		return 0, err
	}
	return vectorIO(f, bufs, off, true)
}

// eachBuffer is the portable fallback: one ReadAt or WriteAt per buffer.
func eachBuffer(f File, bufs [][]byte, off int64, write bool) (int, error) {
	total := 0
	for _, b := range bufs {
		var (
			n   int
			err error
		)
		if write {
			n, err = f.WriteAt(b, off)
		} else {
			n, err = f.ReadAt(b, off)
		}
		total += n
		off += int64(n)
		if err != nil {
			return total, err
		}
		if n < len(b) {
			return total, nil
		}
	}
	return total, nil
}
