//go:build linux

package aio_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

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

// Native AIO closes the descriptor it duplicates for each batch once the
// batch completes: after reads and writes, single and merged, of a *os.File
// and of a File with only an Fd method, the process has the descriptors it
// had before the Array.
func TestNativeLeavesNoDescriptorBehind(t *testing.T) {
	requireNative(t)
	path, data := writeFile(t, 64*page)
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	require.NoError(t, err)
	defer f.Close()
	before := fdCount(t)
	for _, file := range []aio.File{f, fdOnly{f}} {
		for _, policy := range []aio.WakePolicy{aio.WakeTargeted, aio.WakeDeferred} {
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
			require.True(t, bytes.Equal(data, got), "%T, %s: the reads have the file's bytes", file, policy)
			require.NoError(t, a.Close())
			require.Equal(t, before, fdCount(t), "%T, %s: descriptors after Close", file, policy)
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
