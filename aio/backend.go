package aio

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"
)

// File is what a request reads or writes: *os.File satisfies it, and so does
// anything a custom Backend understands. Requests merge only when their File
// values are equal (==), so a File must be a comparable value, typically a
// pointer.
type File interface {
	io.ReaderAt
	io.WriterAt
}

// Backend performs a handler's I/O: one call per batch, with no lock held, on the handler thread. ReadAt must fill p or return an error; the
// driver turns a short read or write that returns no error (or io.EOF) into
// io.ErrUnexpectedEOF (io.ErrShortWrite) for the requests it failed to cover.
// Any other error fails every request of the call, whatever n says. A panic in
// a call fails every request of the call with a *PanicError and the handler
// goes on. A Backend must be safe for concurrent use by every handler.
type Backend interface {
	ReadAt(f File, p []byte, off int64) (n int, err error)
	WriteAt(f File, p []byte, off int64) (n int, err error)
}

// FileBackend does real I/O through f.ReadAt and f.WriteAt, which for *os.File
// are pread(2) and pwrite(2), as InnoDB's handler threads do synchronous I/O in
// simulated AIO (os_file_read / os_file_write). It is the default Backend. For
// O_DIRECT, open the file with OpenDirect and use page-aligned buffers
// (AlignedBuffer). A request with a nil File fails with ErrNoFile. The zero
// value is ready to use.
type FileBackend struct{}

// ErrNoFile is the error (wrapping os.ErrInvalid) of FileBackend's calls for a
// request whose File is nil: the request fails through its Done, rather than
// the handler thread crashing.
var ErrNoFile = fmt.Errorf("aio: request without a File: %w", os.ErrInvalid)

// ReadAt reads len(p) bytes at off from f.
func (FileBackend) ReadAt(f File, p []byte, off int64) (int, error) {
	if f == nil {
		return 0, ErrNoFile
	}
	return f.ReadAt(p, off)
}

// WriteAt writes p at off to f. A write to a file os.File.WriteAt refuses
// for O_APPEND fails with ErrAppendMode.
func (FileBackend) WriteAt(f File, p []byte, off int64) (int, error) {
	if f == nil {
		return 0, ErrNoFile
	}
	if err := refusesWrite(f); err != nil {
		return 0, err
	}
	return f.WriteAt(p, off)
}

// SyncBackend is a Backend that can make a file durable: the calls a sync
// request (Fsync, Fdatasync) makes, once per batch of syncs, on the handler
// thread. A sync request on an Array whose Backend is not a SyncBackend fails
// with an error wrapping errors.ErrUnsupported. FileBackend and *Latency are
// SyncBackends.
type SyncBackend interface {
	Backend
	// Fsync makes f's data and metadata durable, as fsync(2).
	Fsync(f File) error
	// Fdatasync makes f's data durable, and the metadata needed to read it
	// back, as fdatasync(2).
	Fdatasync(f File) error
}

var (
	_ SyncBackend = FileBackend{}
	_ SyncBackend = (*Latency)(nil)
)

// syncer is a File that can sync itself, as *os.File.
type syncer interface{ Sync() error }

// Fsync calls f.Sync (fsync(2) for an *os.File). A File without a Sync
// method fails with an error wrapping errors.ErrUnsupported; a nil File with
// ErrNoFile.
func (FileBackend) Fsync(f File) error {
	s, err := canSync(f)
	if err != nil {
		return err
	}
	return s.Sync()
}

// Fdatasync calls fdatasync(2) on an *os.File on Linux, and f.Sync
// otherwise (fsync(2) for an *os.File, which covers what fdatasync would).
func (FileBackend) Fdatasync(f File) error {
	s, err := canSync(f)
	if err != nil {
		return err
	}
	return fdatasync(f, s)
}

func canSync(f File) (syncer, error) {
	if f == nil {
		return nil, ErrNoFile
	}
	s, ok := f.(syncer)
	if !ok {
		return nil, fmt.Errorf("aio: File %T has no Sync method: %w", f, errors.ErrUnsupported)
	}
	return s, nil
}

// Latency is a Backend that does no I/O: each call takes Service (sleeping the
// handler thread) on one of Units parallel device units, and reports every byte
// transferred without touching the buffer. For deterministic tests and for
// benchmarks of the wake path (Service 0). The zero value serves every call at
// once with unlimited units. Build one with units through NewLatency.
type Latency struct {
	// Service is the time one I/O takes, ≥ 0.
	Service time.Duration
	units   chan struct{} // nil: unlimited
}

// NewLatency returns a Latency backend with the given service time (≥ 0) and
// number of device units (1..1<<20), or an error wrapping ErrInvalidConfig.
func NewLatency(service time.Duration, units int) (*Latency, error) {
	if service < 0 {
		return nil, invalid("Latency.Service", service, "≥ 0")
	}
	if units < 1 || units > 1<<20 {
		return nil, invalid("Latency.Units", units, "1..1048576")
	}
	return &Latency{Service: service, units: make(chan struct{}, units)}, nil
}

// Units returns the number of device units, 0 meaning unlimited.
func (l *Latency) Units() int { return cap(l.units) }

func (l *Latency) serve(n int) (int, error) {
	if l.units != nil {
		l.units <- struct{}{}
		defer func() { <-l.units }()
	}
	if l.Service > 0 {
		time.Sleep(l.Service)
	}
	return n, nil
}

// ReadAt takes Service and reports len(p) bytes read; p is left as it was.
func (l *Latency) ReadAt(_ File, p []byte, _ int64) (int, error) { return l.serve(len(p)) }

// WriteAt takes Service and reports len(p) bytes written.
func (l *Latency) WriteAt(_ File, p []byte, _ int64) (int, error) { return l.serve(len(p)) }

// Fsync takes Service and succeeds.
func (l *Latency) Fsync(File) error { _, err := l.serve(0); return err }

// Fdatasync takes Service and succeeds.
func (l *Latency) Fdatasync(File) error { _, err := l.serve(0); return err }

// String describes the backend, as "latency(service=1ms, units=4)".
func (l *Latency) String() string {
	return fmt.Sprintf("latency(service=%v, units=%d)", l.Service, l.Units())
}
