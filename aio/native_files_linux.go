//go:build linux

package aio

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"syscall"

	"golang.org/x/sys/unix"
)

// fileTable is one ring's table of registered files (IORING_REGISTER_FILES)
// and which File each entry holds. A File gets an entry the first time one
// of its requests reaches the ring, with one IORING_REGISTER_FILES_UPDATE,
// and keeps it while the ring is busy: its later requests name the entry
// with no system call. An entry counts the batches in the kernel that use
// it; one that none uses may be given to another File when the table is
// full. The entries hold the kernel's references to the files, which keep a
// closed File's file open (its flock, an unlinked file's space), so the
// handler empties the whole table once the ring has been idle for
// idleEmpty (emptyAll), and a closed File's entry is emptied when the table
// is full, every sweepEvery acquisitions, and at Close (the ring's own
// close). The table is its segment's, used under the segment's lock.
//
// A File's entry is valid while the File's descriptor is the one it was
// registered from: every acquisition looks at the descriptor inside the
// File's RawConn Control (or its Fd), while Go holds it open, and registers
// again if it changed (an Fd-only File reopened), so an entry never stands
// for a file the File no longer has.
type fileTable struct {
	r       *ring
	entries []fileEntry
	index   map[File]int32 // the entry of each File in the table
	free    []int32        // empty entries
	uses    int            // acquisitions since the last sweep
	hand    int32          // where the search for an entry to give away starts
	upd     fileUpdate
	scratch []int32          // emptyAll's argument
	fn      func(fd uintptr) // Control's callback, built once
	// fn's argument and results:
	f   File
	at  int32
	err error
}

// fileEntry is one entry of a fileTable.
type fileEntry struct {
	f     File
	rc    syscall.RawConn // f's, kept so that an acquisition allocates nothing
	fd    int32           // the descriptor it was registered from; -1 if empty
	users int32           // batches in the kernel that name it
	// appends: the descriptor had O_APPEND when registered, so a write
	// would land at the end whatever its offset (refused: ErrAppendMode).
	appends bool
}

// sweepEvery is how many acquisitions pass between sweeps for closed Files.
const sweepEvery = 1 << 16

func (t *fileTable) init(r *ring, n int) {
	t.r = r
	t.entries = make([]fileEntry, n)
	t.index = make(map[File]int32)
	t.free = make([]int32, n)
	for i := range t.entries {
		t.entries[i].fd = -1
		t.free[i] = int32(n - 1 - i) // entry 0 first
	}
	t.fn = t.lookup
}

// acquire returns the entry of f for a batch of op, registering f if it has
// none, or the error that fails the batch's requests: ErrNoFile for a nil
// File, os.ErrClosed for a closed *os.File, ESPIPE for a file without
// offsets, ErrAppendMode for a write to a descriptor with O_APPEND, ErrInvalidRequest for a File with no descriptor, a *PanicError
// for a File whose methods (SyscallConn, its RawConn's Control, Fd, Name)
// panicked. The entry is held until release.
//
// The caller holds the segment's lock, so a panic in the File's methods is
// recovered here: let through, it would leave the lock held and the
// segment's submitters, handler and Close waiting for it forever.
func (t *fileTable) acquire(op Op, f File) (at int32, err error) {
	defer func() {
		if p := recover(); p != nil {
			at, err = -1, &PanicError{Value: p, Stack: debug.Stack()}
		}
	}()
	return t.acquireFile(op, f)
}

// acquireFile is acquire, without the recover.
func (t *fileTable) acquireFile(op Op, f File) (int32, error) {
	if t.uses++; t.uses >= sweepEvery {
		t.sweep(nil)
	}
	t.f, t.at, t.err = f, -1, nil
	var rc syscall.RawConn
	if e, ok := t.index[f]; ok && t.entries[e].rc != nil {
		rc = t.entries[e].rc
	}
	switch x := f.(type) {
	case nil:
		return -1, ErrNoFile
	case syscall.Conn: // *os.File is one
		if rc == nil {
			var err error
			if rc, err = x.SyscallConn(); err != nil {
				return -1, t.closedError(op, f, err)
			}
		}
		if err := rc.Control(t.fn); err != nil {
			// Control fails only when the File is closed (or nil).
			if e, ok := t.index[f]; ok {
				t.forget(e)
			}
			return -1, t.closedError(op, f, err)
		}
		if t.err == nil {
			t.entries[t.at].rc = rc
		}
	case fder:
		fd := x.Fd()
		if fd == ^uintptr(0) {
			return -1, pathError(op, f, os.ErrClosed)
		}
		t.lookup(fd)
	default:
		return -1, fmt.Errorf("aio: IO = native needs a File with a descriptor (a syscall.Conn or an Fd method, as *os.File), not %T: %w",
			f, ErrInvalidRequest)
	}
	if t.err != nil {
		return -1, pathError(op, f, t.err)
	}
	if op == Write && t.entries[t.at].appends {
		return -1, pathError(op, f, ErrAppendMode)
	}
	t.entries[t.at].users++
	return t.at, nil
}

// closedError is the error of a request on a File whose Control failed.
func (t *fileTable) closedError(op Op, f File, err error) error {
	if _, ok := f.(*os.File); ok {
		return pathError(op, f, os.ErrClosed)
	}
	return pathError(op, f, err)
}

// lookup is acquire's work on t.f's descriptor fd, inside Control: it sets
// t.at to t.f's entry, registering the File there if it has none (or had
// another descriptor), or sets t.err.
func (t *fileTable) lookup(fd uintptr) {
	if e, ok := t.index[t.f]; ok {
		if t.entries[e].fd == int32(fd) {
			t.at = e
			return
		}
		t.forget(e) // the File has another descriptor now
	}
	// A file without offsets (a pipe, a socket, a terminal) fails with
	// ESPIPE, as pread and pwrite do. io_uring reads and writes such a
	// file at its current position whatever the offset: a read would take
	// the stream's next bytes for the bytes at Offset, and one of an empty
	// pipe would not complete until a writer came, holding Close. lseek
	// fails with ESPIPE exactly where pread does; SEEK_CUR by 0 moves
	// nothing. Once per File and ring.
	if _, err := unix.Seek(int(fd), 0, io.SeekCurrent); err != nil {
		t.err = err
		return
	}
	// A write to an O_APPEND descriptor lands at the end whatever its
	// offset, in io_uring as in pwrite; the entry remembers the flag so
	// that such writes are refused (ErrAppendMode). Once per File and ring.
	flags, err := unix.FcntlInt(fd, unix.F_GETFL, 0)
	if err != nil {
		t.err = err
		return
	}
	if len(t.free) == 0 {
		t.sweep(t.f)
	}
	e := t.take()
	if errno := t.upd.set(t.r, uint32(e), int32(fd)); errno != 0 {
		t.entries[e] = fileEntry{fd: -1}
		t.free = append(t.free, e)
		t.err = fmt.Errorf("registering it with io_uring: %w", errno)
		return
	}
	t.entries[e] = fileEntry{f: t.f, fd: int32(fd), appends: flags&unix.O_APPEND != 0}
	t.index[t.f] = e
	t.at = e
}

// take returns an entry for a new File: an empty one, else one no batch in
// the kernel uses, found round the table from the hand (the entry's File
// loses it: its next request registers it again). One always exists: the
// table has an entry per slot, and the batch that asks holds a slot that no
// batch in the kernel holds.
func (t *fileTable) take() int32 {
	if k := len(t.free); k > 0 {
		e := t.free[k-1]
		t.free = t.free[:k-1]
		return e
	}
	n := int32(len(t.entries))
	for i := range n {
		e := (t.hand + i) % n
		if t.entries[e].users == 0 {
			t.hand = (e + 1) % n
			if t.index[t.entries[e].f] == e {
				delete(t.index, t.entries[e].f)
			}
			return e
		}
	}
	panic("aio: io_uring file table full of files in use: more batches than slots")
}

// forget takes entry e's File out of the index: e is emptied now if no batch
// uses it, else by the release of its last batch.
func (t *fileTable) forget(e int32) {
	if t.index[t.entries[e].f] == e {
		delete(t.index, t.entries[e].f)
	}
	if t.entries[e].users == 0 {
		t.empty(e)
	}
}

// release ends a batch's hold on entry e.
func (t *fileTable) release(e int32) {
	en := &t.entries[e]
	if en.users--; en.users == 0 && (en.f == nil || t.index[en.f] != e) {
		t.empty(e) // forgotten while in use
	}
}

// empty empties entry e in the kernel (dropping its reference to the file)
// and makes it free. An errno here means a broken ring; the entry is then
// only reused, which replaces the file all the same.
func (t *fileTable) empty(e int32) {
	if t.entries[e].fd >= 0 {
		_ = t.upd.set(t.r, uint32(e), -1)
	}
	t.entries[e] = fileEntry{fd: -1}
	t.free = append(t.free, e)
}

// filled reports whether any entry holds a file.
func (t *fileTable) filled() bool { return len(t.free) < len(t.entries) }

// emptyAll empties every entry, with one system call, once no batch in the
// kernel uses any (the ring is idle): every File's next request registers it
// again. It is what lets go of the files of Files the program has closed.
func (t *fileTable) emptyAll() {
	hi := 0
	for e := range t.entries {
		if t.entries[e].users > 0 {
			return
		}
		if t.entries[e].fd >= 0 {
			hi = e + 1
		}
	}
	if hi == 0 {
		return
	}
	if cap(t.scratch) < hi {
		t.scratch = make([]int32, len(t.entries))
	}
	_ = t.r.emptyFiles(t.scratch[:hi]) // an errno means a broken ring; reuse replaces files all the same
	clear(t.index)
	t.free = t.free[:0]
	for e := range t.entries {
		t.entries[e] = fileEntry{fd: -1}
		t.free = append(t.free, int32(len(t.entries)-1-e))
	}
}

// sweep empties the entries of Files the program has closed that no batch
// in the kernel uses, except keep's (whose Control the caller is in).
func (t *fileTable) sweep(keep File) {
	t.uses = 0
	for e := range t.entries {
		en := &t.entries[e]
		if en.f == nil || en.users > 0 || en.f == keep || !closedFile(en) {
			continue
		}
		t.forget(int32(e))
	}
}

// closedFile reports whether en's File has been closed: its Control fails,
// or its Fd says so.
func closedFile(en *fileEntry) bool {
	if en.rc != nil {
		return en.rc.Control(func(uintptr) {}) != nil
	}
	if x, ok := en.f.(fder); ok {
		return x.Fd() == ^uintptr(0)
	}
	return false
}

// fder is a File with a descriptor, as *os.File.
type fder interface{ Fd() uintptr }

// pathError is err for an op on f, named as os.File's errors are when f has
// a Name.
func pathError(op Op, f File, err error) error {
	if nf, ok := f.(interface{ Name() string }); ok {
		return &os.PathError{Op: op.String(), Path: nf.Name(), Err: err}
	}
	return err
}
