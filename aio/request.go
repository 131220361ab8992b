package aio

import (
	"context"
	"fmt"
	"os"
	"reflect"

	"github.com/innosim/innosim/prio"
)

// Request is one read, write or sync submitted to an Array. The caller owns
// it; the Array holds a pointer from Submit until it calls Done, so the
// caller must not change the Request or its buffer in between, nor submit it
// again (Submit refuses that with ErrInFlight). A Request may be submitted
// again once Done has been called, also from its own Done.
type Request struct {
	// Op is Read, Write, Fsync or Fdatasync; the zero value reads.
	Op Op
	// Kind routes the request to the ibuf, log, read or write array (see Kind).
	Kind Kind
	// Hint is the request's priority (see Core.Pick, and WithIOPriority
	// for the I/O's). Zero is prio.Normal.
	Hint prio.Hint
	// File is the file to read, write or sync, passed to the Backend.
	// Requests merge only when their File values are == (so it must be a
	// comparable value, typically *os.File). It may be nil for the Latency
	// backend; with FileBackend a nil File fails the request with ErrNoFile.
	// A nil pointer in a File (a nil *os.File) is refused by Submit.
	File File
	// Offset is the byte offset in File, ≥ 0; 0 for a sync.
	Offset int64
	// Buf is the data to write or the buffer to read into; its length, > 0,
	// is the request's length. A sync has none (len 0). With O_DIRECT it must
	// be aligned (AlignedBuffer).
	Buf []byte
	// Context, if not nil, covers the request until its I/O is issued
	// (picked by its handler; native AIO: pushed to the kernel), as
	// http.Request's context covers a request: if it ends while the request
	// waits in its slot (or in the overflow queue), the request leaves
	// without being issued, is counted as canceled, and Done gets an error
	// wrapping ErrCanceled and Context.Err(). Once issued, the I/O goes on
	// and Done gets its result, except that a native request issued alone
	// (not merged) is canceled in the kernel with IORING_OP_ASYNC_CANCEL:
	// if that stops it before it began, Done gets the same error; part way,
	// an error wrapping Context.Err() (see ReadAt for the counts). A
	// deadline is a context with a deadline. Submit's own ctx covers only
	// Submit's wait for a slot.
	Context context.Context
	// Done receives the request and its error exactly once, after its slot
	// was freed: on the handler thread that served it (as fil_aio_wait calls
	// buf_page_io_complete), or, for a request whose context ended before
	// its I/O was issued, on the goroutine that saw the context end (see
	// Submit). A read that returned fewer bytes than len(Buf) fails with an
	// error wrapping io.ErrUnexpectedEOF.
	//
	// Done must not block for long: the handler serves nothing else
	// meanwhile. Done may call Submit (which never waits there: see
	// Submit), Flush and Stats; Close from a Done returns ErrCloseFromDone,
	// and ReadAt, WriteAt, Sync and Datasync return ErrCallFromDone, since
	// each would wait for the handler thread that runs the Done.
	//
	// A panic in Done is not recovered: it ends the program at once, as a
	// panic in a time.AfterFunc or context.AfterFunc callback does, with
	// Done's frames on the trace. By then the request has been counted as
	// completed; the other requests in flight are not completed. The Array
	// does not recover it because a Done that panicked has left the
	// caller's own state (what Done was updating) unknown, and serving on
	// would run other Dones against it; golang.org/x/sync/errgroup declines
	// to carry panics to Wait for the same reasons. A caller that wants to
	// survive its own Done's panic recovers inside the Done. Required.
	Done func(r *Request, err error)

	// The driver's state; see Submit and cancel.go.
	busy     uint32          // 1 from acceptance until just before Done: atomic
	internal bool            // Done is the Array's own (a synchronous call's)
	n        int             // bytes transferred, set before Done
	ctx      context.Context // the Submit's context while it can end, else nil
	stop     func() bool     // stops the context's AfterFunc; nil without one
	next     *Request        // the overflow queue's link (overflow.go)
}

// checkFile reports why f cannot be a request's File, as an error wrapping
// ErrInvalidRequest: its type is not comparable, or it is a nil pointer.
func checkFile(f File) error {
	switch {
	case f != nil && !reflect.TypeOf(f).Comparable():
		// The merge test compares Files with ==, which panics on these.
		return fmt.Errorf("aio: request File of type %T is not comparable, want a pointer such as *os.File: %w",
			f, ErrInvalidRequest)
	case nilPointer(f):
		return fmt.Errorf("aio: request File is a nil %T, want an open file: %w", f, ErrInvalidRequest)
	}
	return nil
}

// nilPointer reports whether f is a nil pointer in a non-nil File, as a
// nil *os.File: its methods would fail or panic on every use.
func nilPointer(f File) bool {
	if file, ok := f.(*os.File); ok {
		return file == nil
	}
	if f == nil {
		return false
	}
	v := reflect.ValueOf(f)
	return v.Kind() == reflect.Pointer && v.IsNil()
}

// checkRequest reports why r cannot be submitted, as an error wrapping
// ErrInvalidRequest, or returns r's SlotRequest (File not yet numbered).
func checkRequest(r *Request) (SlotRequest, error) {
	switch {
	case r == nil:
		return SlotRequest{}, fmt.Errorf("aio: nil request: %w", ErrInvalidRequest)
	case r.Done == nil:
		return SlotRequest{}, fmt.Errorf("aio: request without Done: %w", ErrInvalidRequest)
	case len(r.Buf) == 0 && !r.Op.isSync():
		return SlotRequest{}, fmt.Errorf("aio: %s with an empty Buf: %w", r.Op, ErrInvalidRequest)
	case len(r.Buf) != 0 && r.Op.isSync():
		return SlotRequest{}, fmt.Errorf("aio: %s with a Buf of %d bytes, want none: %w", r.Op, len(r.Buf), ErrInvalidRequest)
	}
	if err := checkFile(r.File); err != nil {
		return SlotRequest{}, err
	}
	sr := SlotRequest{Op: r.Op, Kind: r.Kind, Offset: r.Offset, Length: int64(len(r.Buf)), Hint: r.Hint}
	return sr, checkSlotRequest(sr)
}
