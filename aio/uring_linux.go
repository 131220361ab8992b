//go:build linux

package aio

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// An io_uring instance as io_uring_setup(2), io_uring_enter(2) and io_uring(7)
// describe it: a submission queue (SQ) of entries (SQEs) the application fills
// and publishes by moving the SQ tail, and a completion queue (CQ) of entries
// (CQEs) the kernel fills and publishes by moving the CQ tail. Both rings live
// in memory shared with the kernel (mmap of the ring's file descriptor). The
// application writes an SQE, then stores the SQ tail with release order; it
// loads the CQ tail with acquire order, reads the CQEs up to it, then stores
// the CQ head with release order so the kernel may reuse them. sync/atomic's
// loads and stores are sequentially consistent, stronger than both.

// Layout of the kernel's structures (include/uapi/linux/io_uring.h).
const (
	uringSetupSubmitAll = 1 << 7 // IORING_SETUP_SUBMIT_ALL (5.18): go on past an SQE that fails

	uringFeatSingleMmap   = 1 << 0 // IORING_FEAT_SINGLE_MMAP (5.4): one mmap for both rings
	uringFeatNoDrop       = 1 << 1 // IORING_FEAT_NODROP (5.5): no CQE is ever dropped
	uringFeatSubmitStable = 1 << 2 // IORING_FEAT_SUBMIT_STABLE (5.5): iovecs are read by the time the SQE is consumed
	uringFeatRWCurPos     = 1 << 3 // IORING_FEAT_RW_CUR_POS (5.6), the release that added IORING_OP_READ/WRITE
	uringFeatsNeeded      = uringFeatSingleMmap | uringFeatNoDrop | uringFeatSubmitStable | uringFeatRWCurPos

	uringOffSQRing = 0          // IORING_OFF_SQ_RING
	uringOffSQEs   = 0x10000000 // IORING_OFF_SQES

	uringEnterGetEvents = 1 << 0 // IORING_ENTER_GETEVENTS

	uringRegisterBuffers     = 0 // IORING_REGISTER_BUFFERS (5.1)
	uringRegisterFiles       = 2 // IORING_REGISTER_FILES (5.1; entries of -1, a sparse table, 5.5)
	uringRegisterFilesUpdate = 6 // IORING_REGISTER_FILES_UPDATE (5.5)

	uringSQEFixedFile = 1 << 0 // IOSQE_FIXED_FILE: the SQE's fd is an entry of the registered table

	uringOpNop           = 0  // IORING_OP_NOP
	uringOpReadv         = 1  // IORING_OP_READV
	uringOpWritev        = 2  // IORING_OP_WRITEV
	uringOpFsync         = 3  // IORING_OP_FSYNC
	uringOpReadFixed     = 4  // IORING_OP_READ_FIXED: into a registered buffer
	uringOpWriteFixed    = 5  // IORING_OP_WRITE_FIXED: from a registered buffer
	uringOpTimeout       = 11 // IORING_OP_TIMEOUT (5.4): complete with -ETIME after the timespec at addr
	uringOpTimeoutRemove = 12 // IORING_OP_TIMEOUT_REMOVE (5.5): cancel the timeout whose user_data is addr
	uringOpAsyncCancel   = 14 // IORING_OP_ASYNC_CANCEL (5.5): cancel the SQE whose user_data is addr
	uringOpRead          = 22 // IORING_OP_READ
	uringOpWrite         = 23 // IORING_OP_WRITE

	uringFsyncDatasync = 1 << 0 // IORING_FSYNC_DATASYNC, in the SQE's fsync_flags (rw_flags)

	// uringMaxLen is the most bytes one SQE asks for: the kernel transfers
	// at most MAX_RW_COUNT (just under 2 GiB) per call anyway, and the driver
	// finishes a short transfer synchronously.
	uringMaxLen = 1 << 30
)

// uringParams is struct io_uring_params.
type uringParams struct {
	sqEntries, cqEntries, flags, sqThreadCPU, sqThreadIdle, features, wqFd uint32
	resv                                                                   [3]uint32
	sqOff                                                                  uringSQOffsets
	cqOff                                                                  uringCQOffsets
}

// uringSQOffsets is struct io_sqring_offsets: byte offsets in the ring mapping.
type uringSQOffsets struct {
	head, tail, ringMask, ringEntries, flags, dropped, array, resv1 uint32
	userAddr                                                        uint64
}

// uringCQOffsets is struct io_cqring_offsets.
type uringCQOffsets struct {
	head, tail, ringMask, ringEntries, overflow, cqes, flags, resv1 uint32
	userAddr                                                        uint64
}

// uringSQE is struct io_uring_sqe (64 bytes) with the fields reads, writes,
// syncs, cancels and nops use.
type uringSQE struct {
	opcode   uint8
	flags    uint8
	ioprio   uint16
	fd       int32
	off      uint64
	addr     uint64 // the buffer, the iovec array, or a cancel's target user_data
	len      uint32
	rwFlags  uint32 // rw_flags, or fsync_flags for IORING_OP_FSYNC
	userData uint64
	bufIndex uint16 // the registered buffer of a READ_FIXED or WRITE_FIXED
	_        uint16 // personality
	_        int32  // splice_fd_in
	_        [2]uint64
}

// uringFilesUpdate is struct io_uring_files_update: fds points at the
// descriptors (int32) for the entries from offset on.
type uringFilesUpdate struct {
	offset, resv uint32
	fds          uint64
}

// uringCQE is struct io_uring_cqe (16 bytes): the SQE's user_data and its
// result, a byte count or a negated errno.
type uringCQE struct {
	userData uint64
	res      int32
	flags    uint32
}

var (
	_ [64 - unsafe.Sizeof(uringSQE{})]byte
	_ [unsafe.Sizeof(uringSQE{}) - 64]byte
	_ [16 - unsafe.Sizeof(uringCQE{})]byte
	_ [120 - unsafe.Sizeof(uringParams{})]byte
	_ [unsafe.Sizeof(uringParams{}) - 120]byte
)

// ring is one io_uring: its descriptor and the shared rings. push is for one
// submitter at a time (the driver holds the segment's lock), reap for the
// handler thread alone; enter may be called by anyone, and so may
// fileUpdate.set, each caller with a fileUpdate of its own.
type ring struct {
	fd       int
	mem      []byte // the SQ and CQ rings, one mapping
	sqeMem   []byte
	sqHead   *uint32 // written by the kernel
	sqTail   *uint32 // written by push
	sqMask   uint32
	sqLen    uint32 // entries
	sqes     []uringSQE
	cqHead   *uint32 // written by reap
	cqTail   *uint32 // written by the kernel
	cqMask   uint32
	cqes     []uringCQE
	tail     uint32 // push's copy of the SQ tail
	head     uint32 // reap's copy of the CQ head
	entries  uint32 // SQ entries granted
	features uint32
	// registers counts the io_uring_register calls made on the ring
	// (registerFiles and fileUpdate.set), for Stats.RingSyscalls.
	registers atomic.Uint64
}

// newRing sets up an io_uring with at least entries SQ entries (and the
// kernel's default of twice as many CQ entries) and maps its rings. Errors
// wrap ErrNativeUnavailable when the kernel refuses io_uring (see
// setupError).
func newRing(entries uint32) (*ring, error) {
	p := uringParams{flags: uringSetupSubmitAll}
	fd, _, errno := unix.Syscall(unix.SYS_IO_URING_SETUP, uintptr(entries), uintptr(unsafe.Pointer(&p)), 0)
	if errno == unix.EINVAL {
		// Before 5.18 an unknown setup flag is EINVAL: try without it (the
		// submit path then repeats io_uring_enter for SQEs left behind).
		p = uringParams{}
		fd, _, errno = unix.Syscall(unix.SYS_IO_URING_SETUP, uintptr(entries), uintptr(unsafe.Pointer(&p)), 0)
	}
	if errno != 0 {
		return nil, setupError(errno, readSysctl("/proc/sys/kernel/io_uring_disabled"), memlockLimit())
	}
	r := &ring{fd: int(fd), features: p.features, entries: p.sqEntries}
	if p.features&uringFeatsNeeded != uringFeatsNeeded {
		r.close()
		return nil, fmt.Errorf("aio: IO = native: io_uring features %#x lack %#x (Linux 5.6 or later needed): %w",
			p.features, uringFeatsNeeded&^p.features, ErrNativeUnavailable)
	}
	size := max(int(p.sqOff.array)+int(p.sqEntries)*4, int(p.cqOff.cqes)+int(p.cqEntries)*int(unsafe.Sizeof(uringCQE{})))
	mem, err := unix.Mmap(r.fd, uringOffSQRing, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE)
	if err != nil {
		r.close()
		return nil, mmapRefusal(err)
	}
	r.mem = mem
	sqeMem, err := unix.Mmap(r.fd, uringOffSQEs, int(p.sqEntries)*int(unsafe.Sizeof(uringSQE{})),
		unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE)
	if err != nil {
		r.close()
		return nil, mmapRefusal(err)
	}
	r.sqeMem = sqeMem
	at := func(off uint32) *uint32 { return (*uint32)(unsafe.Pointer(&mem[off])) }
	r.sqHead, r.sqTail = at(p.sqOff.head), at(p.sqOff.tail)
	r.sqMask, r.sqLen = *at(p.sqOff.ringMask), *at(p.sqOff.ringEntries)
	r.cqHead, r.cqTail = at(p.cqOff.head), at(p.cqOff.tail)
	r.cqMask = *at(p.cqOff.ringMask)
	r.sqes = unsafe.Slice((*uringSQE)(unsafe.Pointer(&sqeMem[0])), p.sqEntries)
	r.cqes = unsafe.Slice((*uringCQE)(unsafe.Pointer(&mem[p.cqOff.cqes])), p.cqEntries)
	// The SQ ring holds indexes into the SQE array; with SQE i always at ring
	// position i the array is the identity, written once.
	array := unsafe.Slice((*uint32)(unsafe.Pointer(&mem[p.sqOff.array])), p.sqEntries)
	for i := range array {
		array[i] = uint32(i)
	}
	r.tail = atomic.LoadUint32(r.sqTail)
	r.head = atomic.LoadUint32(r.cqHead)
	return r, nil
}

// push writes e to the next SQE and publishes it. It returns false, writing
// nothing, if the SQ is full (every entry pushed and not yet consumed by an
// io_uring_enter).
func (r *ring) push(e *uringSQE) bool {
	if r.tail-atomic.LoadUint32(r.sqHead) >= r.sqLen {
		return false
	}
	r.sqes[r.tail&r.sqMask] = *e
	r.tail++
	atomic.StoreUint32(r.sqTail, r.tail) // after the SQE: the kernel loads the tail with acquire
	return true
}

// reap copies up to len(dst) CQEs into dst, frees their entries and returns
// how many it copied.
func (r *ring) reap(dst []uringCQE) int {
	tail := atomic.LoadUint32(r.cqTail) // before the CQEs it covers
	n := 0
	for r.head != tail && n < len(dst) {
		dst[n] = r.cqes[r.head&r.cqMask]
		r.head++
		n++
	}
	if n > 0 {
		atomic.StoreUint32(r.cqHead, r.head) // after reading them: the kernel may reuse the entries
	}
	return n
}

// enter calls io_uring_enter(2) with toSubmit SQEs to consume and, with
// flags uringEnterGetEvents, waits until minComplete CQEs are ready. It
// returns the number of SQEs consumed.
func (r *ring) enter(toSubmit, minComplete uint32, flags uintptr) (int, unix.Errno) {
	n, _, errno := unix.Syscall6(unix.SYS_IO_URING_ENTER, uintptr(r.fd), uintptr(toSubmit), uintptr(minComplete), flags, 0, 0)
	return int(n), errno
}

// registerFiles gives the ring a table of n registered files, all entries
// empty (-1), for fileUpdate.set to fill and empty. It returns the errno:
// EMFILE if n is above RLIMIT_NOFILE.
func (r *ring) registerFiles(n int) unix.Errno {
	fds := make([]int32, n)
	for i := range fds {
		fds[i] = -1
	}
	_, _, errno := unix.Syscall6(unix.SYS_IO_URING_REGISTER, uintptr(r.fd), uringRegisterFiles,
		uintptr(unsafe.Pointer(&fds[0])), uintptr(n), 0, 0)
	r.registers.Add(1)
	return errno
}

// registerBuffers registers iov as the ring's fixed buffers
// (IORING_REGISTER_BUFFERS): the kernel pins their pages once, and a
// READ_FIXED or WRITE_FIXED names one by index instead of pinning its pages
// per I/O. It returns the errno.
func (r *ring) registerBuffers(iov []unix.Iovec) unix.Errno {
	_, _, errno := unix.Syscall6(unix.SYS_IO_URING_REGISTER, uintptr(r.fd), uringRegisterBuffers,
		uintptr(unsafe.Pointer(unsafe.SliceData(iov))), uintptr(len(iov)), 0, 0)
	r.registers.Add(1)
	return errno
}

// emptyFiles empties entries 0..n-1 of r's registered table in one
// IORING_REGISTER_FILES_UPDATE, dropping the kernel's references to their
// files; fds is scratch of n entries.
func (r *ring) emptyFiles(fds []int32) unix.Errno {
	for i := range fds {
		fds[i] = -1
	}
	u := uringFilesUpdate{fds: uint64(uintptr(unsafe.Pointer(unsafe.SliceData(fds))))}
	_, _, errno := unix.Syscall6(unix.SYS_IO_URING_REGISTER, uintptr(r.fd), uringRegisterFilesUpdate,
		uintptr(unsafe.Pointer(&u)), uintptr(len(fds)), 0, 0)
	r.registers.Add(1)
	return errno
}

// fileUpdate is the argument of one IORING_REGISTER_FILES_UPDATE of one
// entry. It lives on the heap, in its owner's struct, since the kernel reads
// it through the pointers the call passes as integers.
type fileUpdate struct {
	u  uringFilesUpdate
	fd int32
}

// set points entry i of r's registered table at descriptor fd's file, the
// kernel holding its own reference to the file, or empties it (fd -1,
// dropping the reference; a request that holds the entry keeps the file
// until it completes). Emptying an entry closes no descriptor, so it
// releases none of the process's POSIX record locks, as close(2) would.
func (f *fileUpdate) set(r *ring, i uint32, fd int32) unix.Errno {
	f.fd = fd
	f.u = uringFilesUpdate{offset: i, fds: uint64(uintptr(unsafe.Pointer(&f.fd)))}
	_, _, errno := unix.Syscall6(unix.SYS_IO_URING_REGISTER, uintptr(r.fd), uringRegisterFilesUpdate,
		uintptr(unsafe.Pointer(&f.u)), 1, 0, 0)
	r.registers.Add(1)
	return errno
}

// close unmaps the rings and closes the descriptor; the kernel cancels
// nothing the driver still waits for, since the handler closes its ring only
// after reaping every CQE. r.fd is left as it was: a submitter's
// io_uring_enter may still be on its way out of the kernel, which holds its
// own reference to the ring's file since it consumed the SQEs.
func (r *ring) close() {
	if r.sqeMem != nil {
		_ = unix.Munmap(r.sqeMem)
		r.sqeMem = nil
	}
	if r.mem != nil {
		_ = unix.Munmap(r.mem)
		r.mem = nil
	}
	_ = unix.Close(r.fd)
}

// setupError explains io_uring_setup's errno: disabled is the content of
// /proc/sys/kernel/io_uring_disabled ("" if unreadable), memlock the soft
// RLIMIT_MEMLOCK in bytes. Every errno but EMFILE and ENFILE is the kernel
// refusing io_uring, and wraps ErrNativeUnavailable; those two say the
// process or the system has no descriptor left for the ring, which simulated
// AIO would not cure (its requests need descriptors too), so they are not
// reported as io_uring unavailable.
func setupError(errno unix.Errno, disabled string, memlock uint64) error {
	var why string
	switch errno {
	case unix.EMFILE:
		return fmt.Errorf("aio: IO = native: io_uring_setup: the process is out of file descriptors (RLIMIT_NOFILE): %w", errno)
	case unix.ENFILE:
		return fmt.Errorf("aio: IO = native: io_uring_setup: the system is out of file descriptors (fs.file-max): %w", errno)
	case unix.ENOSYS:
		why = "the kernel has no io_uring (Linux 5.1 added it) or a seccomp filter hides it"
	case unix.EPERM, unix.EACCES:
		switch strings.TrimSpace(disabled) {
		case "2":
			why = "kernel.io_uring_disabled = 2: io_uring is disabled for every process"
		case "1":
			why = "kernel.io_uring_disabled = 1: io_uring is only for root and kernel.io_uring_group"
		case "0":
			why = "refused by a seccomp filter or a security module (kernel.io_uring_disabled = 0 allows it)"
		case "":
			why = "refused by a seccomp filter or a security module"
		default:
			why = "refused by a seccomp filter or a security module (kernel.io_uring_disabled = " +
				strings.TrimSpace(disabled) + ")"
		}
	case unix.ENOMEM:
		why = fmt.Sprintf("no memory for the rings (RLIMIT_MEMLOCK is %d bytes; kernels before 5.12 charge the rings to it)", memlock)
	default:
		why = "refused"
	}
	return fmt.Errorf("aio: IO = native: io_uring_setup: %s: %w: %w", why, errno, ErrNativeUnavailable)
}

func mmapRefusal(err error) error {
	if errors.Is(err, unix.ENOMEM) || errors.Is(err, unix.EAGAIN) {
		return fmt.Errorf("aio: IO = native: mapping the rings: no memory (RLIMIT_MEMLOCK is %d bytes): %w: %w",
			memlockLimit(), err, ErrNativeUnavailable)
	}
	return fmt.Errorf("aio: IO = native: mapping the rings: %w: %w", err, ErrNativeUnavailable)
}

func readSysctl(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return string(b)
}

func memlockLimit() uint64 {
	var rl unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_MEMLOCK, &rl) != nil {
		return 0
	}
	return rl.Cur
}
