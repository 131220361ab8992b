package aio_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/innosim/innosim/aio"
	"github.com/innosim/innosim/prio"
)

// FuzzConfig checks Validate and NewCore against the documented ranges: a
// Config is accepted exactly when every field is in range, a refusal wraps
// ErrInvalidConfig and names the first field out of range, NewCore agrees with
// Validate, and an accepted Config lays out the segments and slots it says.
// The seed corpus is in testdata/fuzz/FuzzConfig.
func FuzzConfig(f *testing.F) {
	d := aio.DefaultConfig()
	f.Add(d.ReadSegments, d.WriteSegments, d.IbufSegment, d.LogSegment, d.SlotsPerSegment, d.PageSize,
		d.MergeLimit, int64(d.OldAge), uint8(d.Wake), uint8(d.Handlers))
	f.Add(0, 65, false, true, 4097, int64(3<<12), 0, int64(time.Hour+1), uint8(3), uint8(2))
	f.Fuzz(func(t *testing.T, read, write int, ibuf, log bool, slots int, pageSize int64,
		merge int, oldAge int64, wake, handlers uint8) {
		cfg := aio.Config{ReadSegments: read, WriteSegments: write, IbufSegment: ibuf, LogSegment: log,
			SlotsPerSegment: slots, PageSize: pageSize, MergeLimit: merge, OldAge: time.Duration(oldAge),
			Wake: aio.WakePolicy(wake), Handlers: aio.HandlerMode(handlers)}
		// The first field out of range, in Validate's documented order.
		var bad string
		switch {
		case read < 1 || read > 64:
			bad = "ReadSegments"
		case write < 1 || write > 64:
			bad = "WriteSegments"
		case slots < 1 || slots > 4096:
			bad = "SlotsPerSegment"
		case pageSize < 4096 || pageSize > 65536 || pageSize&(pageSize-1) != 0:
			bad = "PageSize"
		case merge < 1 || merge > 1024:
			bad = "MergeLimit"
		case oldAge < int64(time.Millisecond) || oldAge > int64(time.Hour):
			bad = "OldAge"
		case wake > 2:
			bad = "Wake"
		case handlers > 1:
			bad = "Handlers"
		}
		err := cfg.Validate()
		if (err == nil) != (bad == "") {
			t.Fatalf("Validate(%+v) = %v, want error naming %q", cfg, err, bad)
		}
		if bad != "" {
			if !errors.Is(err, aio.ErrInvalidConfig) || !strings.Contains(err.Error(), "aio: "+bad+" = ") {
				t.Fatalf("Validate(%+v) = %v, want ErrInvalidConfig naming %s", cfg, err, bad)
			}
		}
		if slots > 64 && read+write > 8 {
			return // a valid core this large costs more than it tells
		}
		c, cerr := aio.NewCore(cfg)
		if (cerr == nil) != (err == nil) || (err != nil && cerr.Error() != err.Error()) {
			t.Fatalf("NewCore error %v, Validate %v", cerr, err)
		}
		if cerr != nil {
			return
		}
		if c.Segments() != cfg.Segments() || c.Slots() != cfg.Segments()*slots {
			t.Fatalf("core has %d segments, %d slots; want %d, %d", c.Segments(), c.Slots(), cfg.Segments(), cfg.Segments()*slots)
		}
	})
}

// FuzzSubmit submits one request, valid or not, to a fresh Array, and checks
// the contract: an invalid request (bad Op, Kind, Hint, negative offset, empty
// buffer, offset + length past int64, no Done) is refused with
// ErrInvalidRequest and Done is never called; on a closed Array Submit
// returns ErrClosed; an accepted request's Done is called exactly once, with
// the error the file gives (a short read past the end of the file, a closed
// file, no file at all); a valid request with a canceled context is refused
// with its error and counted as canceled; and the counters balance after Close. The seed
// corpus is in testdata/fuzz/FuzzSubmit.
func FuzzSubmit(f *testing.F) {
	dir := f.TempDir()
	open, err := os.Create(filepath.Join(dir, "data"))
	if err != nil {
		f.Fatal(err)
	}
	defer open.Close()
	if _, err := open.Write(make([]byte, 64<<10)); err != nil {
		f.Fatal(err)
	}
	closed, err := os.Create(filepath.Join(dir, "closed"))
	if err != nil {
		f.Fatal(err)
	}
	closed.Close()

	const (
		fileNone      = iota // nil File, Latency backend
		fileOpen             // a real 64 KiB file
		fileClosed           // a closed *os.File
		fileNilOnDisk        // nil File with the file backend
		fileStates
	)
	f.Add(uint8(0), uint8(0), int8(0), int64(0), uint16(16<<10), uint8(fileOpen), false, false, uint8(0), false)
	f.Add(uint8(1), uint8(2), int8(3), int64(60<<10), uint16(16<<10), uint8(fileOpen), false, false, uint8(2), false)
	f.Add(uint8(0), uint8(1), int8(-4), int64(1), uint16(7), uint8(fileClosed), false, false, uint8(1), false)
	f.Add(uint8(2), uint8(3), int8(5), int64(-1), uint16(0), uint8(fileNone), true, true, uint8(0), false)
	f.Add(uint8(0), uint8(0), int8(0), int64(1<<63-1), uint16(1), uint8(fileNone), false, false, uint8(0), false)
	f.Add(uint8(0), uint8(0), int8(0), int64(0), uint16(512), uint8(fileNilOnDisk), false, false, uint8(0), false)
	f.Add(uint8(7), uint8(0), int8(0), int64(0), uint16(512), uint8(fileNone), false, false, uint8(0), true)
	f.Fuzz(func(t *testing.T, op, kind uint8, hint int8, offset int64, length uint16, file uint8,
		noDone, closeFirst bool, wake uint8, canceled bool) {
		cfg := aio.DefaultConfig()
		cfg.ReadSegments, cfg.WriteSegments, cfg.SlotsPerSegment = 1, 1, 4
		cfg.Wake = aio.WakePolicy(wake % 3)
		r := &aio.Request{Op: aio.Op(op), Kind: aio.Kind(kind), Hint: prio.Hint(hint), Offset: offset,
			Buf: make([]byte, length)}
		switch file % fileStates {
		case fileNone:
			cfg.Backend = &aio.Latency{}
		case fileOpen:
			r.File = open
			if offset >= 0 {
				r.Offset = offset % (16 << 20) // no sparse file past 16 MiB
			}
		case fileClosed:
			r.File = closed
		case fileNilOnDisk:
		}
		a, err := aio.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		calls := make(chan error, 2)
		if !noDone {
			r.Done = func(_ *aio.Request, err error) { calls <- err }
		}
		if closeFirst {
			if err := a.Close(); err != nil {
				t.Fatal(err)
			}
		}
		sync := aio.Op(op) == aio.Fsync || aio.Op(op) == aio.Fdatasync
		invalid := noDone || op > 3 || kind > 2 || !prio.Hint(hint).Valid()
		if sync { // a sync has no buffer and offset 0
			invalid = invalid || length != 0 || r.Offset != 0
		} else {
			invalid = invalid || length == 0 || r.Offset < 0 || r.Offset > 1<<63-1-int64(length)
		}
		var size int64
		if r.File == open {
			fi, err := open.Stat()
			if err != nil {
				t.Fatal(err)
			}
			size = fi.Size()
		}
		ctx, cancel := context.WithCancel(context.Background())
		if canceled {
			cancel()
		}
		err = a.Submit(ctx, r)
		cancel()
		a.Flush()
		switch {
		case invalid:
			if !errors.Is(err, aio.ErrInvalidRequest) {
				t.Fatalf("Submit(op %d, kind %d, hint %d, offset %d, %d bytes) = %v, want ErrInvalidRequest",
					op, kind, hint, r.Offset, length, err)
			}
		case closeFirst:
			// A closed Array refuses with ErrClosed, whatever the context.
			if !errors.Is(err, aio.ErrClosed) {
				t.Fatalf("Submit to a closed Array = %v, want ErrClosed", err)
			}
		case canceled:
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("Submit with a canceled context = %v, want context.Canceled", err)
			}
		case err != nil:
			t.Fatalf("Submit(op %d, kind %d, hint %d, offset %d, %d bytes) = %v, want it accepted",
				op, kind, hint, r.Offset, length, err)
		}
		if cerr := a.Close(); cerr != nil {
			t.Fatal(cerr)
		}
		st := a.Stats()
		if st.Submitted != st.Completed+st.Failed+st.Canceled || st.InFlight != 0 {
			t.Fatalf("counters do not balance: %+v", st)
		}
		if err != nil {
			// A request refused for a canceled context counts as submitted
			// and canceled; any other refusal counts nothing.
			want := uint64(0)
			if errors.Is(err, context.Canceled) {
				want = 1
			}
			if len(calls) != 0 || st.Submitted != want || st.Canceled != want {
				t.Fatalf("refused request (%v): Done called %d times, stats %+v", err, len(calls), st)
			}
			return
		}
		if len(calls) != 1 || st.Submitted != 1 {
			t.Fatalf("accepted request: Done called %d times, %d submitted", len(calls), st.Submitted)
		}
		ioErr := <-calls
		switch {
		case sync && file%fileStates == fileNone:
			if ioErr != nil {
				t.Fatalf("a sync on the Latency backend: %v", ioErr)
			}
		case r.File == open && r.Op == aio.Read && r.Offset+int64(length) > size:
			if !errors.Is(ioErr, io.ErrUnexpectedEOF) {
				t.Fatalf("read past the end of the file: %v, want io.ErrUnexpectedEOF", ioErr)
			}
		case r.File == closed:
			if !errors.Is(ioErr, os.ErrClosed) {
				t.Fatalf("I/O on a closed file: %v, want os.ErrClosed", ioErr)
			}
		case file%fileStates == fileNilOnDisk:
			if !errors.Is(ioErr, os.ErrInvalid) {
				t.Fatalf("I/O on no file: %v, want os.ErrInvalid", ioErr)
			}
		case ioErr != nil:
			t.Fatalf("I/O: %v", ioErr)
		}
		if (ioErr == nil) != (st.Completed == 1) {
			t.Fatalf("Done error %v, stats %+v", ioErr, st)
		}
	})
}

// Found by FuzzSubmit: a request with no File on the file backend crashed
// its handler thread with a nil dereference. It now fails through Done with
// ErrNoFile, single or merged, read or write.
func TestFileBackendFailsARequestWithoutAFile(t *testing.T) {
	tests := []struct {
		name     string
		op       aio.Op
		requests int
	}{
		{"single read", aio.Read, 1},
		{"single write", aio.Write, 1},
		{"merged reads (preadv path)", aio.Read, 3},
		{"merged writes (pwritev path)", aio.Write, 3},
	}
	for _, tt := range tests {
		for _, fb := range fileBackends {
			t.Run(tt.name+"/"+fb.name, func(t *testing.T) {
				a := newArray(t, func(c *aio.Config) { c.Backend, c.Wake = fb.backend, aio.WakeDeferred })
				errs := make(chan error, tt.requests)
				for i := range tt.requests {
					r := &aio.Request{Op: tt.op, Offset: int64(i) * 512, Buf: make([]byte, 512),
						Done: func(_ *aio.Request, err error) { errs <- err }}
					if err := a.Submit(context.Background(), r); err != nil {
						t.Fatal(err)
					}
				}
				a.Flush()
				for range tt.requests {
					if err := <-errs; !errors.Is(err, aio.ErrNoFile) || !errors.Is(err, os.ErrInvalid) {
						t.Fatalf("Done error %v, want ErrNoFile", err)
					}
				}
			})
		}
	}
}

// Found by FuzzSubmit: an invalid request with an ended context was refused
// with the context's error and counted as submitted and canceled, and on a
// closed Array it got ErrClosed. An invalid request is now refused as such
// first, and counts nothing.
func TestSubmitRefusesAnInvalidRequestFirst(t *testing.T) {
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name   string
		req    aio.Request
		ctx    context.Context
		closed bool
	}{
		{"unknown op, ended context", aio.Request{Op: 7}, ended, false},
		{"negative offset, ended context", aio.Request{Offset: -1}, ended, false},
		{"unknown hint, closed array", aio.Request{Hint: 64}, context.Background(), true},
		{"unknown kind, closed array, ended context", aio.Request{Kind: 9}, ended, true},
		{"offset past int64, closed array", aio.Request{Offset: 1<<63 - 1}, context.Background(), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := aio.DefaultConfig()
			cfg.Backend = &aio.Latency{}
			a, err := aio.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			if tt.closed {
				if err := a.Close(); err != nil {
					t.Fatal(err)
				}
			}
			r := tt.req
			r.Buf = make([]byte, 512)
			r.Done = func(*aio.Request, error) { t.Error("Done called for a refused request") }
			if err := a.Submit(tt.ctx, &r); !errors.Is(err, aio.ErrInvalidRequest) {
				t.Fatalf("Submit = %v, want ErrInvalidRequest", err)
			}
			if st := a.Stats(); st != (aio.Stats{}) {
				t.Fatalf("a refused invalid request was counted: %+v", st)
			}
		})
	}
}
