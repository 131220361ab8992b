package aio

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/innosim/innosim/internal/futex"
)

// ErrClosed is returned by Submit after Close has begun.
var ErrClosed = errors.New("aio: array closed")

// ErrUnsupported is wrapped by errors for a feature this platform lacks (raw
// futexes, O_DIRECT).
var ErrUnsupported = errors.New("unsupported on this platform")

// Array is the real driver of simulated AIO: a Core guarded by one mutex per
// slot array (InnoDB's array->mutex), with one handler thread per global
// segment sleeping on its event, doing the I/O through the Backend. Submit,
// Flush, Stats and Close are safe for concurrent use.
//
// No goroutine is created per request: a request lives in its slot and its
// completion runs on the handler thread.
type Array struct {
	core    *Core
	cfg     Config
	backend Backend
	start   time.Time

	mu      [numArrays]sync.Mutex
	closed  [numArrays]bool          // under mu[a]
	notFull [numArrays]chan struct{} // closed when a full array frees a slot; under mu[a]
	reqs    []*Request               // by global slot; under the slot's array mutex

	events  []event
	futexes []*futex.Event // HandlerFutex only, for FutexSyscalls
	work    []handlerScratch

	files    [numArrays]map[File]fileRef // ids of Files with a request in a slot; under mu[a]
	nextFile atomic.Uint64               // last id given (the arrays share it)
	canceled atomic.Uint64

	closeOnce sync.Once
	handlers  sync.WaitGroup
}

// New validates cfg, builds its Core and starts one handler thread per global
// segment (cfg.Segments() of them). Errors wrap ErrInvalidConfig: a field out of
// range, or HandlerFutex on a platform without raw futexes. A nil cfg.Backend
// means FileBackend{}. The caller must Close the Array.
func New(cfg Config) (*Array, error) {
	core, err := NewCore(cfg)
	if err != nil {
		return nil, err
	}
	if cfg.Handlers == HandlerFutex && !futex.Supported() {
		return nil, fmt.Errorf("aio: Handlers = futex, want goroutine on %s (raw futexes are Linux only; %w): %w",
			runtime.GOOS, ErrUnsupported, ErrInvalidConfig)
	}
	if v := reflect.ValueOf(cfg.Backend); cfg.Backend != nil && v.Kind() == reflect.Pointer && v.IsNil() {
		// A nil *Latency (NewLatency's result with its error ignored) would
		// crash a handler thread on its first request.
		return nil, fmt.Errorf("aio: Backend = nil %T, want a non-nil backend or a nil interface (FileBackend): %w",
			cfg.Backend, ErrInvalidConfig)
	}
	a := &Array{core: core, cfg: cfg, backend: cfg.Backend, start: time.Now()}
	if a.backend == nil {
		a.backend = FileBackend{}
	}
	for id := range numArrays {
		a.notFull[id] = make(chan struct{})
		a.files[id] = make(map[File]fileRef)
	}
	a.reqs = make([]*Request, core.Slots())
	n := core.Segments()
	a.events = make([]event, n)
	a.work = make([]handlerScratch, n)
	for s := range n {
		if cfg.Handlers == HandlerFutex {
			ev := new(futex.Event)
			a.futexes = append(a.futexes, ev)
			a.events[s] = ev
		} else {
			a.events[s] = make(chanEvent, 1)
		}
		a.work[s].init(cfg.MergeLimit)
	}
	a.handlers.Add(n)
	for s := range n {
		go a.handle(s)
	}
	return a, nil
}

// Config returns the Array's configuration.
func (a *Array) Config() Config { return a.cfg }

func (a *Array) now() time.Duration { return time.Since(a.start) }

// Submit queues r, as os_aio in simulated mode: it reserves a slot under the
// array mutex, then wakes handlers by the wake policy. It returns nil when r is
// accepted, and then r.Done is called exactly once. Otherwise it returns an
// error and Done is never called:
//
//   - an error wrapping ErrInvalidRequest: r is nil, has no Done, an empty Buf,
//     a File whose type is not comparable,
//     a negative Offset, an Offset + len(Buf) past the int64 range, or an
//     unknown Op, Kind or Hint (checked first, whatever ctx and the Array's
//     state);
//   - ErrClosed: Close has begun, before r was accepted (not counted);
//   - an error wrapping ctx's error: ctx had ended on entry, or ended while
//     Submit waited for a free slot (counted as submitted and canceled, so
//     Stats shows the requests that callers gave up on).
//
// When the array is full Submit wakes handlers and blocks until a slot frees,
// ctx ends or the Array closes. Under WakeDeferred nothing is woken until
// Flush. Submit does not allocate.
func (a *Array) Submit(ctx context.Context, r *Request) error {
	switch {
	case r == nil:
		return fmt.Errorf("aio: nil request: %w", ErrInvalidRequest)
	case r.Done == nil:
		return fmt.Errorf("aio: request without Done: %w", ErrInvalidRequest)
	case len(r.Buf) == 0:
		return fmt.Errorf("aio: request with an empty Buf: %w", ErrInvalidRequest)
	case r.File != nil && !reflect.TypeOf(r.File).Comparable():
		// The merge test compares Files with ==, which panics on these.
		return fmt.Errorf("aio: request File of type %T is not comparable, want a pointer such as *os.File: %w",
			r.File, ErrInvalidRequest)
	}
	sr := SlotRequest{Op: r.Op, Kind: r.Kind, Offset: r.Offset, Length: int64(len(r.Buf)), Hint: r.Hint}
	// An invalid request is refused as such whatever the context or the
	// Array's state, and counts nothing.
	if err := checkSlotRequest(sr); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		a.canceled.Add(1)
		return fmt.Errorf("aio: submit: %w", err)
	}
	id := a.core.ArrayOf(r.Op, r.Kind)
	mu := &a.mu[id]
	for {
		mu.Lock()
		if a.closed[id] {
			mu.Unlock()
			return ErrClosed
		}
		sr.File = a.holdFile(id, r.File)
		res, err := a.core.Reserve(sr, a.now())
		if err == nil {
			a.reqs[res.Slot] = r
			mu.Unlock()
			a.wake(res.Wake)
			return nil
		}
		a.dropFile(id, r.File)
		if err != ErrArrayFull {
			mu.Unlock()
			return err
		}
		notFull := a.notFull[id]
		mu.Unlock()
		a.wake(res.Wake)
		select {
		case <-notFull:
		case <-ctx.Done():
			a.canceled.Add(1)
			return fmt.Errorf("aio: waiting for a free slot in the %s array: %w", id, ctx.Err())
		}
	}
}

// Flush wakes the handlers of the segments that received requests since the
// last Flush: the end of a read-ahead batch. It matters only under
// WakeDeferred; under the other policies it does nothing.
func (a *Array) Flush() {
	if a.cfg.Wake != WakeDeferred {
		return
	}
	var set SegmentSet
	for id := range numArrays {
		if _, n := a.core.ArraySegments(id); n == 0 {
			continue
		}
		a.mu[id].Lock()
		set = set.Union(a.core.Flush(id))
		a.mu[id].Unlock()
	}
	a.wake(set)
}

func (a *Array) wake(set SegmentSet) {
	for s := set.Next(0); s >= 0; s = set.Next(s + 1) {
		a.events[s].Set()
	}
}

// fileRef is a File's id for the core's merge test and the number of its
// requests that hold it.
type fileRef struct {
	id uint64
	n  int
}

// holdFile returns f's id in array id, numbering a File the first time one of
// its requests is reserved; nil is 0. The caller holds mu[id] and, once the
// request leaves its slot (picked, or not reserved after all), calls dropFile.
// Ids are counted, not kept: a File with no request in a slot is forgotten, so
// an engine that opens and closes files for as long as it runs does not grow
// the map or keep closed Files from the garbage collector. A forgotten File
// that comes back gets a new id, which is harmless: the merge test compares the
// ids of requests waiting at the same time, and those hold the same id.
func (a *Array) holdFile(id ArrayID, f File) uint64 {
	if f == nil {
		return 0
	}
	ref, ok := a.files[id][f]
	if !ok {
		ref.id = a.nextFile.Add(1)
	}
	ref.n++
	a.files[id][f] = ref
	return ref.id
}

// dropFile releases one hold of holdFile; the caller holds mu[id].
func (a *Array) dropFile(id ArrayID, f File) {
	if f == nil {
		return
	}
	ref := a.files[id][f]
	if ref.n--; ref.n == 0 {
		delete(a.files[id], f)
		return
	}
	a.files[id][f] = ref
}

// trackedFiles returns how many Files the Array holds an id for (tests).
func (a *Array) trackedFiles() int {
	n := 0
	for id := range numArrays {
		a.mu[id].Lock()
		n += len(a.files[id])
		a.mu[id].Unlock()
	}
	return n
}

// Stats returns a snapshot of the counters. Each array is read under its own
// mutex, so Submitted = Completed + Failed + Canceled + InFlight holds in every
// snapshot.
func (a *Array) Stats() Stats {
	st := Stats{Canceled: a.canceled.Load()}
	st.Submitted = st.Canceled
	for id := range numArrays {
		a.mu[id].Lock()
		st = st.Add(a.core.ArrayStats(id))
		a.mu[id].Unlock()
	}
	for _, ev := range a.futexes {
		st.FutexSyscalls += ev.Syscalls()
	}
	return st
}

// Close stops new submissions (Submit returns ErrClosed, including for callers
// waiting on a full array), lets the handlers finish every accepted request
// (their Done is called), then stops the handler threads and waits for them to
// exit; with HandlerFutex their OS threads exit too. Close returns nil; calling
// it again waits for the same and returns nil.
func (a *Array) Close() error {
	a.closeOnce.Do(func() {
		for id := range numArrays {
			a.mu[id].Lock()
			a.closed[id] = true
			close(a.notFull[id]) // waiters retry, see closed, and leave
			a.notFull[id] = make(chan struct{})
			a.mu[id].Unlock()
		}
		for _, ev := range a.events {
			ev.Set()
		}
	})
	a.handlers.Wait()
	return nil
}
