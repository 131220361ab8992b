package aio

import (
	"strconv"

	"github.com/innosim/innosim/prio"
)

// Op is what a request does to its file.
type Op uint8

const (
	// Read reads Length bytes at Offset (OS_FILE_READ). The zero value.
	Read Op = iota
	// Write writes Length bytes at Offset (OS_FILE_WRITE).
	Write
	// Fsync makes the file's data and metadata durable, as fsync(2) (what
	// InnoDB's fil_flush does through os_file_flush). A sync request has no
	// buffer and offset 0; it goes to the write array (the log array for
	// KindLog with Config.LogSegment). See "Syncs" in the package doc for
	// what it orders.
	Fsync
	// Fdatasync is Fsync without the metadata a later read does not need
	// (timestamps), as fdatasync(2).
	Fdatasync
)

// String returns "read", "write", "fsync" or "fdatasync".
func (o Op) String() string {
	switch o {
	case Read:
		return "read"
	case Write:
		return "write"
	case Fsync:
		return "fsync"
	case Fdatasync:
		return "fdatasync"
	}
	return "op(" + strconv.Itoa(int(o)) + ")"
}

// isSync reports whether o is Fsync or Fdatasync.
func (o Op) isSync() bool { return o == Fsync || o == Fdatasync }

// Kind says which array a request belongs to, as the mode argument of os_aio
// (OS_AIO_NORMAL, OS_AIO_IBUF, OS_AIO_LOG).
type Kind uint8

const (
	// KindNormal requests go to the read or the write array by their Op. The
	// zero value.
	KindNormal Kind = iota
	// KindIbuf requests (insert-buffer reads) go to the ibuf array when
	// Config.IbufSegment is on, else to the array of their Op.
	KindIbuf
	// KindLog requests (log writes) go to the log array when Config.LogSegment is
	// on, else to the array of their Op.
	KindLog
)

// String returns "normal", "ibuf" or "log".
func (k Kind) String() string {
	switch k {
	case KindNormal:
		return "normal"
	case KindIbuf:
		return "ibuf"
	case KindLog:
		return "log"
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// ArrayID names one of the four slot arrays. Each has its own mutex in InnoDB
// (and in the real driver); calls on the Core about different arrays may run
// concurrently.
type ArrayID uint8

const (
	ArrayIbuf  ArrayID = iota // the insert-buffer array: global segment 0 when on
	ArrayLog                  // the log array: the next global segment when on
	ArrayRead                 // the read array: ReadSegments segments
	ArrayWrite                // the write array: WriteSegments segments, last
	numArrays
)

// String returns "ibuf", "log", "read" or "write".
func (a ArrayID) String() string {
	switch a {
	case ArrayIbuf:
		return "ibuf"
	case ArrayLog:
		return "log"
	case ArrayRead:
		return "read"
	case ArrayWrite:
		return "write"
	}
	return "array(" + strconv.Itoa(int(a)) + ")"
}

// SlotRequest is what the Core knows of a request: no buffer, no file handle,
// no completion. The driver keeps those, indexed by the slot number Reserve
// returns.
type SlotRequest struct {
	Op   Op
	Kind Kind
	// File identifies the file; requests merge only within one file. Any
	// numbering the driver likes.
	File uint64
	// Offset is the byte offset in the file, ≥ 0; 0 for a sync.
	Offset int64
	// Length is the number of bytes, > 0; 0 for a sync.
	Length int64
	// Hint is the request's priority: among requests younger than the old age,
	// a more urgent hint is picked first. Zero is prio.Normal.
	Hint prio.Hint
}
