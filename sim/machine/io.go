package machine

// IOKind is what an I/O does: a page read, a page write or an fsync.
type IOKind uint8

// The kinds of I/O.
const (
	IORead IOKind = iota
	IOWrite
	IOFsync
	NumIOKinds // the number of kinds: not a kind
)
