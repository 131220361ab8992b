package aio

import (
	"errors"
	"fmt"
	"time"
)

// ErrInvalidConfig is wrapped by every error NewCore and New return for a Config
// field outside its allowed range; the message names the field and the range, as
// "aio: ReadSegments = 0, want 1..64: invalid config".
var ErrInvalidConfig = errors.New("invalid config")

// Limits of the Config fields. The segment range is MySQL's for
// innodb_read_io_threads and innodb_write_io_threads (1..64).
const (
	MaxSegments        = 64      // most read (or write) segments: innodb_*_io_threads ≤ 64
	MaxSlotsPerSegment = 4096    // most slots in one segment
	MinPageSize        = 4 << 10 // smallest page size (innodb_page_size 4k)
	MaxPageSize        = 64 << 10
	MaxMergeLimit      = 1024      // most requests merged into one I/O
	MaxOldAge          = time.Hour // largest old age accepted
	MinOldAge          = time.Millisecond
	maxGlobalSegments  = 2 + 2*MaxSegments
)

// Config describes an AIO system: how many segments each array has, how many
// slots each segment holds, and the policies a handler thread follows. Start from
// DefaultConfig; the zero Config is not valid (it has no read segments).
//
// The defaults are MySQL 5.5–5.7's: 4 read and 4 write handler threads
// (innodb_read_io_threads, innodb_write_io_threads), one insert-buffer and one
// log segment, 256 slots per segment (8 × OS_AIO_N_PENDING_IOS_PER_THREAD in
// srv0start.cc), 16 KiB pages, merges of up to 64 requests
// (OS_AIO_MERGE_N_CONSECUTIVE) and a 2 s old age (os_aio_simulated_handle), with
// every handler woken on each submission (WakeAll).
type Config struct {
	// ReadSegments is the number of segments, and so of handler threads, of the
	// read array (innodb_read_io_threads). Range 1..64, default 4.
	ReadSegments int
	// WriteSegments is the number of segments of the write array
	// (innodb_write_io_threads). Range 1..64, default 4.
	WriteSegments int
	// IbufSegment gives insert-buffer reads their own array of one segment,
	// global segment 0, as InnoDB does. When false, KindIbuf requests go to the
	// read array. Default true.
	IbufSegment bool
	// LogSegment gives log writes their own array of one segment, global segment
	// 1 (0 without IbufSegment). When false, KindLog requests go to the write
	// array. Default true.
	LogSegment bool
	// SlotsPerSegment is the number of slots in each segment; an array has
	// SlotsPerSegment × its segments. Range 1..4096, default 256.
	SlotsPerSegment int
	// PageSize is the page size in bytes. It sets the stripe of the slot choice:
	// a request's local segment is (offset / (64 × PageSize)) mod segments.
	// A power of two in 4096..65536, default 16384.
	PageSize int64
	// MergeLimit is the most requests one handler merges into a single I/O
	// (OS_AIO_MERGE_N_CONSECUTIVE). Range 1..1024 (1 turns merging off),
	// default 64.
	MergeLimit int
	// OldAge is how long a request may wait before a handler serves it ahead
	// of lower offsets and higher priorities (oldest first). Range 1ms..1h,
	// default 2 s.
	OldAge time.Duration
	// Wake is the wake policy. Default WakeAll. Under IONative it says when a
	// request reaches the kernel (see IO), and WakeAll is refused.
	Wake WakePolicy
	// Handlers is how the real driver runs its handler threads; the Core
	// ignores it. Default HandlerGoroutine.
	Handlers HandlerMode
	// Backend performs the I/O for the real driver; the Core ignores it. Nil
	// means FileBackend{}: real ReadAt/WriteAt on the request's File.
	Backend Backend
	// IO chooses simulated or native AIO (innodb_use_native_aio). Default
	// IOSimulated. Under IONative (Linux io_uring; elsewhere, or where the
	// kernel refuses io_uring, New fails with ErrNativeUnavailable, and out of
	// file descriptors with EMFILE or ENFILE):
	//
	//   - no submitter wakes a handler, so Wake says only when a request
	//     reaches the kernel: WakeTargeted pushes it to its segment's ring and
	//     submits it from Submit (one io_uring_enter); WakeDeferred leaves it
	//     in its slot until Flush, which picks and merges each segment's
	//     waiting requests as a simulated handler would and submits them with
	//     one io_uring_enter per segment. WakeAll is refused: there is no
	//     handler to wake but the one the kernel wakes.
	//   - Handlers must be HandlerGoroutine: every native handler is a
	//     goroutine that waits in io_uring_enter on its segment's ring.
	//   - A handler keeps an OS thread while it waits in io_uring_enter, as
	//     any goroutine in a blocking system call does, so the process has
	//     about one thread per segment (Segments) of the native Arrays open
	//     at once, besides those that run Go code. The Go runtime does not
	//     end idle threads: after Close they stay, parked, and the handlers
	//     of later Arrays reuse them.
	//   - Backend must be nil: the I/O is the kernel's, on the request's File,
	//     which needs a descriptor: a syscall.Conn (*os.File is one) or an Fd
	//     method. A request whose File is nil fails with ErrNoFile, one
	//     without a descriptor with ErrInvalidRequest, one on a closed
	//     *os.File with os.ErrClosed and one on a file without offsets (a
	//     pipe, a socket) with ESPIPE, as pread, all through Done.
	//   - A File is put in its segment's ring's table of registered files
	//     the first time one of its requests reaches that ring, through its
	//     SyscallConn while Go keeps the File open, and stays there for the
	//     File's later requests (one table per ring, SlotsPerSegment entries;
	//     New fails with EMFILE where that is above RLIMIT_NOFILE): a request
	//     on a File reads or writes that file, or fails, even if the File is
	//     closed meanwhile and another file opened at its descriptor number.
	//     A request on a closed *os.File fails with os.ErrClosed. The table
	//     holds the kernel's own reference to the file, so a File the program
	//     closes keeps its file open in the kernel (its flock, an unlinked
	//     file's space) until the table lets go of it: the handler empties
	//     the whole table (one io_uring_register) once its ring has been idle
	//     for 10 ms, and the entries of closed Files are emptied when the
	//     table is full, every 65,536 requests of the ring, and at Close. A
	//     File with only an Fd method is looked up by the number Fd gives
	//     when the request goes to the kernel, so it must stay open until
	//     then. No descriptor is duplicated or closed: the process's POSIX
	//     record locks (fcntl F_SETLK) on the file are kept.
	//   - Hints and OldAge order the pick among a segment's waiting requests
	//     (under WakeDeferred or WithPlug there can be several); with
	//     WithIOPriority the batch's hint also goes to the kernel as the
	//     SQE's ioprio.
	//   - In Stats, Wakeups counts the handlers' returns from waiting in
	//     io_uring_enter (wasted: with no completion), Signals the segments
	//     a submission or Flush went to, RingSyscalls every io_uring_enter and
	//     io_uring_register.
	IO IOMode
}

// DefaultConfig returns MySQL 5.5–5.7's simulated-AIO configuration (see Config).
func DefaultConfig() Config {
	return Config{
		ReadSegments:    4,
		WriteSegments:   4,
		IbufSegment:     true,
		LogSegment:      true,
		SlotsPerSegment: 256,
		PageSize:        16 << 10,
		MergeLimit:      64,
		OldAge:          2 * time.Second,
		Wake:            WakeAll,
		Handlers:        HandlerGoroutine,
	}
}

// EmbedConfig returns a configuration for a Go program that embeds the Array
// as its I/O layer, beside InnoDB's DefaultConfig, and the options of New
// that go with it:
//
//   - WakeTargeted: a request wakes only its own segment's handler;
//   - no insert-buffer or log segment (KindIbuf and KindLog requests go to
//     the read and write arrays);
//   - WithIOPriority on Linux: a request's Hint reaches the I/O scheduler;
//   - native AIO where this process can use io_uring (NativeAvailable
//     returns nil): IO = IONative with WithPlug, one read and one write
//     segment (a ring each, any number of requests in the kernel at once:
//     one ring gathers the most requests per io_uring_enter);
//   - else simulated AIO on FileBackend with 16 read and 4 write segments,
//     since a simulated handler has one I/O in progress at a time: 16 reads
//     at once.
//
// The Config's IO says which it chose; NativeAvailable says why not native.
// Other fields are DefaultConfig's. Use it as
//
//	cfg, opts := aio.EmbedConfig()
//	a, err := aio.New(cfg, opts...)
//
// Probing io_uring costs one ring set up and closed.
func EmbedConfig() (Config, []Option) {
	cfg := DefaultConfig()
	cfg.IbufSegment, cfg.LogSegment = false, false
	cfg.Wake = WakeTargeted
	var opts []Option
	if ioprioSupported {
		opts = append(opts, WithIOPriority())
	}
	if NativeAvailable() == nil {
		cfg.IO = IONative
		cfg.ReadSegments, cfg.WriteSegments = 1, 1
		return cfg, append(opts, WithPlug())
	}
	cfg.Backend = FileBackend{}
	cfg.ReadSegments, cfg.WriteSegments = 16, 4
	return cfg, opts
}

// Segments returns the number of global segments, and so of handler threads:
// ibuf (if on) + log (if on) + read + write segments.
func (c Config) Segments() int {
	n := c.ReadSegments + c.WriteSegments
	if c.IbufSegment {
		n++
	}
	if c.LogSegment {
		n++
	}
	return n
}

func invalid(field string, value any, want string) error {
	return fmt.Errorf("aio: %s = %v, want %s: %w", field, value, want, ErrInvalidConfig)
}

// Validate reports the first field outside its range as an error wrapping
// ErrInvalidConfig. It never adjusts a value.
func (c Config) Validate() error {
	switch {
	case c.ReadSegments < 1 || c.ReadSegments > MaxSegments:
		return invalid("ReadSegments", c.ReadSegments, "1..64")
	case c.WriteSegments < 1 || c.WriteSegments > MaxSegments:
		return invalid("WriteSegments", c.WriteSegments, "1..64")
	case c.SlotsPerSegment < 1 || c.SlotsPerSegment > MaxSlotsPerSegment:
		return invalid("SlotsPerSegment", c.SlotsPerSegment, "1..4096")
	case c.PageSize < MinPageSize || c.PageSize > MaxPageSize || c.PageSize&(c.PageSize-1) != 0:
		return invalid("PageSize", c.PageSize, "a power of two in 4096..65536")
	case c.MergeLimit < 1 || c.MergeLimit > MaxMergeLimit:
		return invalid("MergeLimit", c.MergeLimit, "1..1024")
	case c.OldAge < MinOldAge || c.OldAge > MaxOldAge:
		return invalid("OldAge", c.OldAge, "1ms..1h")
	case c.Wake < WakeAll || c.Wake > WakeDeferred:
		return invalid("Wake", c.Wake, "WakeAll, WakeTargeted or WakeDeferred")
	case c.Handlers < HandlerGoroutine || c.Handlers > HandlerFutex:
		return invalid("Handlers", c.Handlers, "HandlerGoroutine or HandlerFutex")
	case c.IO > IONative:
		return invalid("IO", c.IO, "IOSimulated or IONative")
	case c.IO == IONative && c.Wake == WakeAll:
		return invalid("Wake", "all with IO = native",
			"WakeTargeted or WakeDeferred (native AIO wakes no handler: the kernel wakes the one whose ring completed)")
	case c.IO == IONative && c.Handlers != HandlerGoroutine:
		return invalid("Handlers", c.Handlers.String()+" with IO = native",
			"HandlerGoroutine (a native handler waits in io_uring_enter, not on a futex event, as a plain goroutine: "+
				"before it waits it yields to what its Done calls readied, which a locked OS thread cannot do)")
	case c.IO == IONative && c.Backend != nil:
		return invalid("Backend", fmt.Sprintf("%T with IO = native", c.Backend),
			"nil (native AIO does its I/O through io_uring, not a Backend)")
	}
	// A Latency built as a literal (&Latency{Service: d}, as the package doc
	// shows) skips NewLatency's check; a negative Service would serve at once.
	if l, ok := c.Backend.(*Latency); ok && (l == nil || l.Service < 0) {
		if l == nil {
			return invalid("Backend", "(*Latency)(nil)", "a *Latency, or nil for FileBackend")
		}
		return invalid("Backend Latency.Service", l.Service, "≥ 0")
	}
	return nil
}
