//go:build linux

package aio_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/innosim/innosim/aio"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// A request accepted on a File reads or writes that file, or fails with its
// error, under every driver, even when the File is closed while the request
// waits and another file then opened gets its descriptor number. Native AIO
// used to read the descriptor when it pushed the request to the ring and to
// leave the SQE to the segment's handler, which was in a Done: the kernel
// looked the number up only after that Done returned, found the new file
// there, and the read returned its bytes with no error (a write landed in it).
func TestARequestNeverTouchesAFileThatTookItsDescriptor(t *testing.T) {
	for _, d := range drivers(t) {
		for _, op := range []aio.Op{aio.Read, aio.Write} {
			t.Run(d.String()+"/"+op.String(), func(t *testing.T) {
				dir := t.TempDir()
				fPath, gPath := filepath.Join(dir, "F"), filepath.Join(dir, "G")
				fData, gData := bytes.Repeat([]byte{'F'}, 2*page), bytes.Repeat([]byte{'G'}, 2*page)
				require.NoError(t, os.WriteFile(fPath, fData, 0o600))
				require.NoError(t, os.WriteFile(gPath, gData, 0o600))
				f, err := os.OpenFile(fPath, os.O_RDWR, 0)
				require.NoError(t, err)
				fd := f.Fd()
				a := newDriverArray(t, d, func(c *aio.Config) { c.Wake, c.Backend = aio.WakeTargeted, nil })

				// A request in the same segment whose Done holds the handler.
				inDone, release, held := make(chan struct{}), make(chan struct{}), make(chan error, 1)
				require.NoError(t, a.Submit(context.Background(), &aio.Request{Op: op, File: sparseFile(t), Buf: make([]byte, page),
					Done: func(_ *aio.Request, err error) { close(inDone); <-release; held <- err }}))
				<-inDone

				buf := make([]byte, page)
				if op == aio.Write {
					copy(buf, bytes.Repeat([]byte{'W'}, page))
				}
				got := make(chan error, 1)
				require.NoError(t, a.Submit(context.Background(), &aio.Request{Op: op, File: f, Offset: page, Buf: buf,
					Done: func(_ *aio.Request, err error) { got <- err }}))
				require.NoError(t, f.Close())
				g := openAt(t, gPath, fd)
				close(release)
				require.NoError(t, <-held)
				err = <-got

				if err != nil {
					require.ErrorIs(t, err, os.ErrClosed)
				}
				nowG, rerr := os.ReadFile(gPath)
				require.NoError(t, rerr)
				require.True(t, bytes.Equal(gData, nowG), "G, which took F's descriptor, is untouched (err %v)", err)
				switch {
				case err != nil:
				case op == aio.Read:
					require.True(t, bytes.Equal(fData[page:], buf), "the read has F's bytes, not %q...", buf[:4])
				default:
					nowF, rerr := os.ReadFile(fPath)
					require.NoError(t, rerr)
					require.True(t, bytes.Equal(buf, nowF[page:]), "the write is in F")
				}
				require.NoError(t, g.Close())
			})
		}
	}
}

// openAt opens path for reading and writing at descriptor fd, which the caller has just
// freed: os.Open takes the lowest free descriptor, which is fd unless a lower
// one was freed meanwhile, and then it is moved there.
func openAt(t *testing.T, path string, fd uintptr) *os.File {
	t.Helper()
	g, err := os.OpenFile(path, os.O_RDWR, 0)
	require.NoError(t, err)
	if g.Fd() == fd {
		return g
	}
	require.NoError(t, unix.Dup3(int(g.Fd()), int(fd), unix.O_CLOEXEC))
	require.NoError(t, g.Close())
	return os.NewFile(fd, path)
}

// Native AIO lets go of a File's file once the File's requests complete:
// after reads and writes, single and merged, of a *os.File and of a File
// with only an Fd method, closing the File releases its flock (held until
// the last reference to the open file is gone, a ring's file table's
// included) while the Array is still open, and the process has the
// descriptors it had before.
func TestNativeLetsGoOfAFileOnceItsRequestsComplete(t *testing.T) {
	requireNative(t)
	path, data := writeFile(t, 64*page)
	before := fdCount(t)
	for _, kind := range []string{"*os.File", "Fd only"} {
		for _, policy := range []aio.WakePolicy{aio.WakeTargeted, aio.WakeDeferred} {
			f, err := os.OpenFile(path, os.O_RDWR, 0)
			require.NoError(t, err)
			require.NoError(t, unix.Flock(int(f.Fd()), unix.LOCK_EX))
			var file aio.File = f
			if kind == "Fd only" {
				file = fdOnly{f}
			}
			cfg := aio.DefaultConfig()
			cfg.IO, cfg.Wake = aio.IONative, policy
			a, err := aio.New(cfg)
			require.NoError(t, err)
			got := make([]byte, len(data))
			errs := make(chan error, 2*64)
			for p := range 64 {
				for _, op := range []aio.Op{aio.Read, aio.Write} {
					buf := got[p*page : (p+1)*page]
					if op == aio.Write {
						buf = data[p*page : (p+1)*page] // the file's own bytes, back in place
					}
					require.NoError(t, a.Submit(context.Background(), &aio.Request{Op: op, File: file, Offset: int64(p) * page,
						Buf: buf, Done: func(_ *aio.Request, err error) { errs <- err }}))
				}
			}
			a.Flush()
			for range 2 * 64 {
				require.NoError(t, <-errs)
			}
			require.True(t, bytes.Equal(data, got), "%s, %s: the reads have the file's bytes", kind, policy)
			require.NoError(t, f.Close()) // the Array still open
			again, err := os.Open(path)
			require.NoError(t, err)
			// The kernel drops a completed request's last reference to the
			// file a little after its CQE, at times on a work queue a tick
			// later; a table entry left filled would hold it for good.
			require.Eventually(t, func() bool {
				return unix.Flock(int(again.Fd()), unix.LOCK_EX|unix.LOCK_NB) == nil
			}, 5*time.Second, time.Millisecond, "%s, %s: the closed File's flock is released", kind, policy)
			require.NoError(t, again.Close())
			require.NoError(t, a.Close())
			require.Equal(t, before, fdCount(t), "%s, %s: descriptors after Close", kind, policy)
		}
	}
}

// fdOnly is a File with an Fd method and no SyscallConn.
type fdOnly struct{ f *os.File }

func (x fdOnly) ReadAt(p []byte, off int64) (int, error)  { return x.f.ReadAt(p, off) }
func (x fdOnly) WriteAt(p []byte, off int64) (int, error) { return x.f.WriteAt(p, off) }
func (x fdOnly) Fd() uintptr                              { return x.f.Fd() }

// fdCount is the number of the process's open descriptors (/proc/self/fd).
func fdCount(t testing.TB) int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	return len(ents) - 1 // the directory's own, open while it is read
}

// Native AIO keeps the process's POSIX record locks (fcntl F_SETLK, as
// InnoDB's os_file_lock takes on its data files) on the files it reads and
// writes: it closes no descriptor of theirs, which would release them all.
func TestNativeKeepsTheProcesssRecordLocks(t *testing.T) {
	requireNative(t)
	path, _ := writeFile(t, 4*page)
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	require.NoError(t, err)
	defer f.Close()
	lock := unix.Flock_t{Type: unix.F_WRLCK}
	require.NoError(t, unix.FcntlFlock(f.Fd(), unix.F_SETLK, &lock))
	a := newDriverArray(t, driver{native: true}, func(c *aio.Config) { c.Wake = aio.WakeTargeted })
	for _, op := range []aio.Op{aio.Read, aio.Write} {
		got := make(chan error, 1)
		require.NoError(t, a.Submit(context.Background(), &aio.Request{Op: op, File: f, Buf: make([]byte, page),
			Done: func(_ *aio.Request, err error) { got <- err }}))
		require.NoError(t, <-got)
	}
	// An open file description lock conflicts with the process's record lock
	// while it is held.
	other, err := os.Open(path)
	require.NoError(t, err)
	defer other.Close()
	probe := unix.Flock_t{Type: unix.F_RDLCK}
	require.NoError(t, unix.FcntlFlock(other.Fd(), unix.F_OFD_GETLK, &probe))
	require.Equal(t, int16(unix.F_WRLCK), probe.Type, "the write lock taken before the I/O is still held")
}
