package aio

import "github.com/innosim/innosim/prio"

// Request is one read or write submitted to an Array. The caller owns it; the
// Array holds a pointer from Submit until it calls Done, so the caller must not
// change the Request or its buffer in between. A Request may be reused after
// Done returns.
type Request struct {
	// Op is Read or Write; the zero value reads.
	Op Op
	// Kind routes the request to the ibuf, log, read or write array (see Kind).
	Kind Kind
	// Hint is the request's priority (see Core.Pick). Zero is prio.Normal.
	Hint prio.Hint
	// File is the file to read or write, passed to the Backend. Requests merge
	// only when their File values are == (so it must be a comparable value,
	// typically *os.File). It may be nil for the Latency backend; with
	// FileBackend a nil File fails the request with ErrNoFile.
	File File
	// Offset is the byte offset in File, ≥ 0.
	Offset int64
	// Buf is the data to write or the buffer to read into; its length, > 0, is
	// the request's length. With O_DIRECT it must be aligned (AlignedBuffer).
	Buf []byte
	// Done receives the request and its error exactly once, on the handler
	// thread that served it, after its slot was freed (as fil_aio_wait calls
	// buf_page_io_complete). A read that returned fewer bytes than len(Buf)
	// fails with an error wrapping io.ErrUnexpectedEOF. Done must not block for
	// long: the handler serves nothing else meanwhile. Done may call Submit,
	// which then never waits for a slot (a full array is an error wrapping
	// ErrArrayFull), Flush and Stats; Close from a Done returns
	// ErrCloseFromDone. A panic in Done is not recovered: it ends the program,
	// as a panic on any goroutine does. Required.
	Done func(r *Request, err error)
}
