package aio_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/innosim/innosim/aio"
	"github.com/stretchr/testify/require"
)

// Native AIO refuses the options it has no use for, by field and with the
// reason, rather than ignoring them. The futex handlers' reason used to say
// that a native handler waits on an OS thread of its own, which it no longer
// does.
func TestNativeRefusesWhatItCannotHonour(t *testing.T) {
	tests := []struct {
		name   string
		change func(*aio.Config)
		field  string
		reason string
	}{
		{"wake-all: the kernel wakes one handler", func(c *aio.Config) { c.Wake = aio.WakeAll },
			"Wake = all with IO = native", "the kernel wakes the one whose ring completed"},
		{"futex handlers: a native handler waits in io_uring_enter", func(c *aio.Config) { c.Handlers = aio.HandlerFutex },
			"Handlers = futex with IO = native", "waits in io_uring_enter, not on a futex event, as a plain goroutine"},
		{"a Backend: the kernel does the I/O", func(c *aio.Config) { c.Backend = &aio.Latency{} },
			"Backend = *aio.Latency with IO = native", "through io_uring"},
		{"an unknown IO mode", func(c *aio.Config) { c.IO = 7 }, "IO = io(7)", "IOSimulated or IONative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := aio.DefaultConfig()
			cfg.IO, cfg.Wake = aio.IONative, aio.WakeTargeted
			tt.change(&cfg)
			a, err := aio.New(cfg)
			require.ErrorIs(t, err, aio.ErrInvalidConfig)
			require.Contains(t, err.Error(), tt.field)
			require.Contains(t, err.Error(), tt.reason)
			require.Nil(t, a)
		})
	}
}

// Where io_uring is refused, New says so with ErrNativeUnavailable; where it
// works, New gives a working Array. One of the two holds on every machine.
func TestNativeIsAvailableOrSaysWhyNot(t *testing.T) {
	cfg := aio.DefaultConfig()
	cfg.IO, cfg.Wake = aio.IONative, aio.WakeTargeted
	a, err := aio.New(cfg)
	if err != nil {
		require.ErrorIs(t, err, aio.ErrNativeUnavailable)
		require.NotErrorIs(t, err, aio.ErrInvalidConfig)
		t.Skipf("native AIO unavailable here (the error under test): %v", err)
	}
	require.Equal(t, "linux", runtime.GOOS, "io_uring is Linux only")
	require.NoError(t, a.Close())
}

// A request whose File has no descriptor, or none at all, or a closed one,
// fails through its Done with the reason; the Array goes on serving.
func TestNativeFailsRequestsItCannotSubmit(t *testing.T) {
	requireNative(t)
	closed, err := os.Open(os.DevNull)
	require.NoError(t, err)
	require.NoError(t, closed.Close())
	tests := []struct {
		name string
		file aio.File
		want error
	}{
		{"no File", nil, aio.ErrNoFile},
		{"a File without Fd", &bytesFile{}, aio.ErrInvalidRequest},
		{"a closed *os.File", closed, os.ErrClosed},
	}
	a := newDriverArray(t, driver{native: true}, func(c *aio.Config) { c.Wake = aio.WakeTargeted })
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := make(chan error, 1)
			require.NoError(t, a.Submit(context.Background(), &aio.Request{File: tt.file, Buf: make([]byte, 512),
				Done: func(_ *aio.Request, err error) { got <- err }}))
			err := <-got
			require.ErrorIs(t, err, tt.want)
		})
	}
	st := a.Stats()
	require.Equal(t, uint64(len(tests)), st.Failed)
	requireBalanced(t, st)
}

// bytesFile is a File with no descriptor.
type bytesFile struct{}

func (*bytesFile) ReadAt(p []byte, _ int64) (int, error)  { return len(p), nil }
func (*bytesFile) WriteAt(p []byte, _ int64) (int, error) { return len(p), nil }

// Under WakeDeferred a native request reaches the kernel only at Flush, and
// one Flush submits a stripe of consecutive pages as one READV.
func TestNativeDeferredSubmitsAtFlushAsOneReadv(t *testing.T) {
	requireNative(t)
	const pages = 64 // one stripe: one segment
	path, data := writeFile(t, pages*page)
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	a := newDriverArray(t, driver{native: true}, func(c *aio.Config) { c.Wake = aio.WakeDeferred })
	got := make([]byte, len(data))
	var wg sync.WaitGroup
	wg.Add(pages)
	for p := range pages {
		require.NoError(t, a.Submit(context.Background(), &aio.Request{File: f, Offset: int64(p) * page,
			Buf: got[p*page : (p+1)*page], Done: func(_ *aio.Request, err error) { require.NoError(t, err); wg.Done() }}))
	}
	time.Sleep(20 * time.Millisecond)
	st := a.Stats()
	require.Zero(t, aio.RingEnters(a)-st.Wakeups, "no submission before Flush (only handler waits)")
	require.Zero(t, st.Completed)
	a.Flush()
	wg.Wait()
	require.True(t, bytes.Equal(data, got))
	st = a.Stats()
	require.Equal(t, uint64(1), st.Batches, "the whole stripe is one READV")
	require.Equal(t, uint64(pages-1), st.Merges)
}

// Native reads of a file opened with O_DIRECT into aligned buffers, merged and
// single. Skipped where the file system refuses O_DIRECT.
func TestNativeODirectReads(t *testing.T) {
	requireNative(t)
	const pages = 96
	path, data := writeFile(t, pages*page)
	f, err := aio.OpenDirect(path, os.O_RDONLY, 0)
	if err != nil {
		t.Skipf("O_DIRECT not available here: %v", err)
	}
	defer f.Close()
	for _, policy := range []aio.WakePolicy{aio.WakeTargeted, aio.WakeDeferred} {
		t.Run(policy.String(), func(t *testing.T) {
			a := newDriverArray(t, driver{native: true}, func(c *aio.Config) { c.Wake = policy })
			readPagesDirect(t, a, f, data)
		})
	}
}

// A native Array leaves no thread behind: its handlers are goroutines whose
// threads the runtime keeps for reuse, so the process's thread count after
// ten cycles of New, I/O and Close is where the first cycle left it, give or
// take fewer threads than one Array's handlers (a driver that kept one
// thread per handler would grow by ten Arrays' handlers).
func TestNativeLeavesNoThreadBehind(t *testing.T) {
	requireNative(t)
	f := sparseFile(t)
	cycle := func() {
		cfg := aio.DefaultConfig()
		cfg.IO, cfg.Wake = aio.IONative, aio.WakeTargeted
		a, err := aio.New(cfg)
		require.NoError(t, err)
		var wg sync.WaitGroup
		for k := range 40 {
			wg.Add(1)
			require.NoError(t, a.Submit(context.Background(), &aio.Request{Op: aio.Op(k % 2), Offset: int64(k) * stripe,
				File: f, Buf: make([]byte, 4096), Done: func(_ *aio.Request, err error) { require.NoError(t, err); wg.Done() }}))
		}
		wg.Wait()
		require.NoError(t, a.Close())
	}
	cycle()
	first := taskCount(t)
	for range 9 {
		cycle()
	}
	require.Eventually(t, func() bool { return taskCount(t)-first < aio.DefaultConfig().Segments() },
		5*time.Second, 10*time.Millisecond, "threads: %d after one array, %d after 10 arrays of %d handlers",
		first, taskCount(t), aio.DefaultConfig().Segments())
}

// taskCount is the number of the process's threads (/proc/self/task).
func taskCount(t testing.TB) int {
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Skipf("no /proc/self/task: %v", err)
	}
	return len(ents)
}

// A write past the end of a short file and a read back of it, through one
// ring, with the injected fault failing only what it names.
func TestNativeFaultHookFailsOnlyItsBatch(t *testing.T) {
	requireNative(t)
	boom := errors.New("injected")
	f := sparseFile(t)
	a := newDriverArray(t, driver{native: true}, func(c *aio.Config) { c.Wake = aio.WakeTargeted })
	aio.SetNativeFaults(a, func(res int32) error {
		if res == 1000 {
			return boom
		}
		return nil
	})
	errs := make(chan error, 2)
	for _, n := range []int{1000, 2000} {
		require.NoError(t, a.Submit(context.Background(), &aio.Request{File: f, Buf: make([]byte, n),
			Done: func(_ *aio.Request, err error) { errs <- err }}))
	}
	got := []error{<-errs, <-errs}
	require.Len(t, got, 2)
	failures := 0
	for _, err := range got {
		if err != nil {
			require.ErrorIs(t, err, boom)
			require.NotErrorIs(t, err, io.ErrUnexpectedEOF)
			failures++
		}
	}
	require.Equal(t, 1, failures)
}

// A request submitted from a Done (a chain of O_DIRECT reads, each started by
// the previous one's completion) is left to the handler, which submits it in
// the io_uring_enter that waits for it: about one system call per link, where
// a submitter's own enter plus the handler's wait would be two. (A read from
// the page cache completes inside the enter that submits it, so the file is
// O_DIRECT: skipped where the file system refuses it.)
func TestNativeChainedSubmitRidesOnTheHandlersWait(t *testing.T) {
	requireNative(t)
	const links = 200
	path, _ := writeFile(t, (links+1)*page)
	f, err := aio.OpenDirect(path, os.O_RDONLY, 0)
	if err != nil {
		t.Skipf("O_DIRECT not available here: %v", err)
	}
	defer f.Close()
	if _, err := f.ReadAt(alignedBuffer(t, page, page), 0); err != nil {
		t.Skipf("this file system refuses O_DIRECT reads: %v", err)
	}
	a := newDriverArray(t, driver{native: true}, func(c *aio.Config) { c.Wake = aio.WakeTargeted })
	finished := make(chan error, 1)
	var chain func(k int) func(*aio.Request, error)
	chain = func(k int) func(*aio.Request, error) {
		return func(_ *aio.Request, err error) {
			if err != nil || k == links {
				finished <- err
				return
			}
			if err := a.Submit(context.Background(), &aio.Request{File: f, Offset: int64(k) * page,
				Buf: alignedBuffer(t, page, page), Done: chain(k + 1)}); err != nil {
				finished <- err
			}
		}
	}
	before := aio.RingEnters(a)
	require.NoError(t, a.Submit(context.Background(), &aio.Request{File: f, Buf: alignedBuffer(t, page, page), Done: chain(1)}))
	require.NoError(t, <-finished)
	st := a.Stats()
	calls := aio.RingEnters(a) - before
	require.Equal(t, uint64(links), st.Completed)
	require.Less(t, calls, uint64(links*3/2), "io_uring_enter calls for %d chained requests", links)
	t.Logf("%d io_uring_enter calls for %d chained requests", calls, links)
}

// A wake by Close is not counted, as the simulated handlers do not count a
// wake while closed (HandlerCycle.Next): every native handler waiting on its
// ring at Close used to count a useful wakeup, so after one read Stats said
// 10 wakeups, none wasted.
func TestNativeWakeupsByCloseAreNotCounted(t *testing.T) {
	requireNative(t)
	path, _ := writeFile(t, page)
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	cfg := aio.DefaultConfig()
	cfg.Wake = aio.WakeTargeted
	a, err := driver{native: true}.New(cfg)
	require.NoError(t, err)
	done := make(chan error, 1)
	require.NoError(t, a.Submit(context.Background(), &aio.Request{File: f, Buf: make([]byte, page),
		Done: func(_ *aio.Request, err error) { done <- err }}))
	require.NoError(t, <-done)
	time.Sleep(10 * time.Millisecond) // let the handler wait again
	require.NoError(t, a.Close())
	st := a.Stats()
	require.Equal(t, uint64(1), st.Completed)
	// at most the one wakeup that found the completion
	require.LessOrEqual(t, st.Wakeups, uint64(1), "%+v", st)
	require.Zero(t, st.WastedWakeups, "%+v", st)
}

// A pipe has no offsets: a read or a write of one fails with ESPIPE under
// every driver, as pread and pwrite do. io_uring reads and writes a pipe at
// its current position whatever the offset: native AIO used to hand a read
// the pipe's next bytes as if they were the bytes at Offset, and a read of an
// empty pipe never completed, so Close waited for it for ever.
func TestRequestsOnAPipeFailWithESPIPE(t *testing.T) {
	for _, d := range drivers(t) {
		t.Run(d.String(), func(t *testing.T) {
			full, w := pipe(t)
			_, err := w.Write(make([]byte, page))
			require.NoError(t, err)
			empty, _ := pipe(t)
			a := newDriverArray(t, d, func(c *aio.Config) { c.Wake, c.Backend = aio.WakeTargeted, nil })
			// In this order: before the fix the first one succeeded, and the
			// last one never completed.
			for _, r := range []*aio.Request{
				{File: full, Offset: 4 * page, Buf: make([]byte, page)},
				{Op: aio.Write, File: w, Offset: 4 * page, Buf: make([]byte, page)},
				{File: empty, Buf: make([]byte, page)},
			} {
				got := make(chan error, 1)
				r.Done = func(_ *aio.Request, err error) { got <- err }
				require.NoError(t, a.Submit(context.Background(), r))
				err := <-got
				require.ErrorIs(t, err, syscall.ESPIPE, "%s of a pipe", r.Op)
				require.ErrorContains(t, err, "|", "the error names the pipe, as os.File's")
			}
			require.NoError(t, a.Close())
			st := a.Stats()
			require.Equal(t, uint64(3), st.Failed)
			requireBalanced(t, st)
		})
	}
}

// pipe returns a pipe's ends, closed at the end of t.
func pipe(t *testing.T) (r, w *os.File) {
	r, w, err := os.Pipe()
	require.NoError(t, err)
	t.Cleanup(func() { _ = r.Close(); _ = w.Close() })
	return r, w
}

// A request on a closed *os.File fails with os.ErrClosed under every driver,
// as the File's own ReadAt and WriteAt say; native AIO used to give the
// kernel the descriptor -1 and fail with EBADF.
func TestRequestsOnAClosedFileFailWithErrClosed(t *testing.T) {
	path, _ := writeFile(t, 2*page)
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	for _, d := range drivers(t) {
		t.Run(d.String(), func(t *testing.T) {
			a := newDriverArray(t, d, func(c *aio.Config) { c.Wake, c.Backend = aio.WakeDeferred, nil })
			errs := make(chan error, 3)
			for _, r := range []aio.Request{
				{File: f, Buf: make([]byte, page)},                                  // alone
				{Op: aio.Write, File: f, Offset: 8 * page, Buf: make([]byte, page)}, // merged with the next
				{Op: aio.Write, File: f, Offset: 9 * page, Buf: make([]byte, page)},
			} {
				r.Done = func(_ *aio.Request, err error) { errs <- err }
				require.NoError(t, a.Submit(context.Background(), &r))
			}
			a.Flush()
			for range 3 {
				err := <-errs
				require.ErrorIs(t, err, os.ErrClosed)
				require.ErrorContains(t, err, path)
			}
			requireBalanced(t, a.Stats())
		})
	}
}

// A File is registered in a ring's file table once, the first time its
// requests reach the ring, not twice per batch (its entry named, then
// emptied) as it was: 20 reads one after another cost one io_uring_register
// beside their enters, and Stats.RingSyscalls counts it.
func TestNativeRegistersAFileOnce(t *testing.T) {
	requireNative(t)
	const reads = 20
	path, _ := writeFile(t, reads*page)
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	a := newDriverArray(t, driver{native: true}, func(c *aio.Config) { c.Wake = aio.WakeTargeted })
	before := a.Stats().RingSyscalls - aio.RingEnters(a)
	for i := range reads { // one at a time: each its own batch
		got := make(chan error, 1)
		require.NoError(t, a.Submit(context.Background(), &aio.Request{File: f, Offset: int64(i * page), Buf: make([]byte, page),
			Done: func(_ *aio.Request, err error) { got <- err }}))
		require.NoError(t, <-got)
	}
	registers := a.Stats().RingSyscalls - aio.RingEnters(a) - before
	// Once, unless the ring sat idle long enough between two reads for its
	// handler to empty the table (a loaded machine): then once more each time.
	require.GreaterOrEqual(t, registers, uint64(1))
	require.Less(t, registers, uint64(reads), "the File is registered once, not per batch")
	st := a.Stats()
	require.Equal(t, st.RingSyscalls, st.Syscalls, "native Syscalls are the ring's")
}
