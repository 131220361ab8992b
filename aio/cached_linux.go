//go:build linux

package aio

import (
	"os"
	"sync"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"
)

// The page-cache attempt of ReadAt (cachedRead): a read of a file not opened
// with O_DIRECT whose pages are all in the page cache is a copy, and a copy
// handed to a handler thread and back costs more than the copy itself and
// serialises the copies of every caller on the handler's CPU. So ReadAt
// first asks the kernel for the bytes on the caller's own thread with
// preadv2(RWF_NOWAIT) (Linux 4.14), which copies what the cache holds and
// returns EAGAIN, or fewer bytes, rather than wait for a device. A whole read
// is done; anything less goes through the array as a request. This is the
// attempt io_uring itself makes inline at submission (IOCB_NOWAIT), made
// before the handoff instead of after it.

// arrayCache is an Array's memory of the Files it has read cached pages of.
type arrayCache struct {
	files sync.Map // *os.File → *cacheFile
	count atomic.Int32
}

// callCache is a pooled call's scratch for the attempt: pread is
// preadNowait bound once, so that an attempt allocates nothing; lastFile and
// lastCF are the File the call last read and what is known of it, to skip
// the Array's map for the next read of the same File.
type callCache struct {
	iov      [1][]byte
	off      int64
	n        int
	err      error
	pread    func(fd uintptr)
	lastFile *os.File
	lastCF   *cacheFile
}

func (c *callCache) init() { c.pread = c.preadNowait }

// cacheFile is what cachedRead knows of one *os.File: its RawConn, so that a
// read allocates nothing, and whether the attempt is pointless for it
// (opened O_DIRECT, where a RWF_NOWAIT read would do the device I/O on the
// caller's thread, or a kernel that refuses RWF_NOWAIT).
type cacheFile struct {
	rc   syscall.RawConn
	skip bool
}

// maxCacheFiles bounds the Files cachedRead remembers; past it the memory
// is cleared and rebuilt as Files come, so that a program that opens and
// closes files for as long as it runs does not grow it.
const maxCacheFiles = 4096

// cachedRead tries to read all of p at off from f's page cache on the
// calling thread, with c's scratch, and returns the bytes it read into the
// front of p: len(p) when the cache held them all, fewer (0 included) when
// it held only the first pages, the file ended, or the attempt was not
// made. It counts each whole read as a request submitted and completed,
// and each attempt as a system call (Stats).
func (a *Array) cachedRead(call *call, f File, p []byte, off int64) int {
	file, ok := f.(*os.File)
	if !ok || file == nil || len(p) == 0 {
		return 0
	}
	c := &call.cache
	cf := c.lastCF
	if c.lastFile != file {
		if cf = a.cacheFile(file); cf == nil {
			return 0
		}
		c.lastFile, c.lastCF = file, cf
	}
	if cf.skip {
		return 0
	}
	c.iov[0], c.off, c.n, c.err = p, off, 0, nil
	if err := cf.rc.Control(c.pread); err != nil {
		c.iov[0] = nil
		return 0 // closed: the request says so
	}
	c.iov[0] = nil
	if c.err == nil && c.n == len(p) {
		// Striped by call, and a pooled call mostly stays on one P: the
		// hits of two CPUs do not share a cache line.
		a.cacheHits[call.stripe].n.Add(1)
		return c.n
	}
	a.cacheMisses.Add(1)
	if c.err == unix.EOPNOTSUPP || c.err == unix.EINVAL {
		cf.skip = true // the kernel refuses RWF_NOWAIT on this file: never again
	}
	if c.err != nil {
		return 0
	}
	return c.n // the front of p, read: the request reads the rest
}

// cacheFile returns what cachedRead knows of file, learning it (one fcntl)
// the first time; nil if file's descriptor cannot be had.
func (a *Array) cacheFile(file *os.File) *cacheFile {
	if v, ok := a.cache.files.Load(file); ok {
		return v.(*cacheFile)
	}
	rc, err := file.SyscallConn()
	if err != nil {
		return nil
	}
	cf := &cacheFile{rc: rc}
	var flags int
	var ferr error
	if err := rc.Control(func(fd uintptr) { flags, ferr = unix.FcntlInt(fd, unix.F_GETFL, 0) }); err != nil {
		return nil
	}
	cf.skip = ferr != nil || flags&unix.O_DIRECT != 0
	if a.cache.count.Add(1) > maxCacheFiles {
		a.cache.files.Clear()
		a.cache.count.Store(1)
	}
	a.cache.files.Store(file, cf)
	return cf
}

// preadNowait is callCache.pread: preadv2(RWF_NOWAIT) of c.iov at c.off on
// fd.
func (c *callCache) preadNowait(fd uintptr) {
	for {
		c.n, c.err = unix.Preadv2(int(fd), c.iov[:], c.off, unix.RWF_NOWAIT)
		if c.err != unix.EINTR {
			return
		}
	}
}
