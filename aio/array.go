package aio

import (
	"errors"
	"fmt"
	"math/bits"
	"reflect"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/innosim/innosim/internal/futex"
)

// ErrClosed is returned by Submit after Close has begun.
var ErrClosed = errors.New("aio: array closed")

// ErrInFlight is returned by Submit for a Request already accepted whose
// Done has not been called yet: the Array holds it, and accepting it twice
// would run its one Done twice.
var ErrInFlight = errors.New("aio: request already in flight")

// ErrCloseFromDone is returned by Close called from a Request's Done: Close
// waits for every handler thread to exit, and a Done runs on one of them, so
// the call would wait for itself. Nothing is closed; call Close from another
// goroutine.
var ErrCloseFromDone = errors.New("aio: Close called from a Done callback, which runs on the handler thread Close waits for")

// ErrUnsupported is wrapped by errors for a feature this platform lacks (raw
// futexes, O_DIRECT).
var ErrUnsupported = errors.New("unsupported on this platform")

// Array is the real driver of simulated AIO: a Core guarded by one mutex per
// segment, with one handler thread per global segment sleeping on its event,
// doing the I/O through the Backend. Submit, Flush, Stats and Close are safe for
// concurrent use.
//
// InnoDB guards each slot array with one mutex (array->mutex), which every
// submitter and every handler of the array takes: with a few submitters and
// handlers on a few cores, that mutex is where the time goes. Here a submitter
// locks only the segment its request lands in (and the next ones, if that
// one is full), and a handler only its own segment, so a submitter contends
// with one handler, not with all of them. Only the array-full path, Stats and
// Close take every segment lock of an array, in segment order.
//
// No goroutine is created per request: a request lives in its slot and its
// completion runs on the handler thread.
type Array struct {
	core    *Core
	cfg     Config
	opts    options
	backend Backend
	start   time.Time

	segMu   []segLock       // by global segment
	closed  [numArrays]bool // written under every segment lock of the array
	closing atomic.Bool     // Close has begun
	full    [numArrays]fullWait
	over    [numArrays]overflow
	reqs    []*Request // by global slot; under its segment's lock
	gen     []uint32   // by global slot: reservations so far; under its segment's lock

	events  []event
	futexes []*futex.Event // HandlerFutex only, for FutexSyscalls
	work    []handlerScratch

	files    []map[File]fileRef // by global segment: ids of Files with a request in its slots; under its lock
	nextFile atomic.Uint64      // last id given (the segments share it)
	canceled atomic.Uint64
	inDone   atomic.Int32 // handlers running a caller's Done now

	ioprioRefused atomic.Uint64
	calls         sync.Pool // *call: the synchronous calls' requests

	// ReadAt's page-cache attempts (cached_linux.go).
	cache       arrayCache
	cacheHits   [cacheStripes]stripedCount // preadv2 calls that read all
	cacheMisses atomic.Uint64              // preadv2 calls that did not
	callCount   atomic.Uint32              // calls made for the pool, for their stripes

	closeOnce sync.Once
	handlers  sync.WaitGroup

	native *native // IONative only (native_linux.go)
}

// New validates cfg, builds its Core and starts one handler thread per global
// segment (cfg.Segments() of them), with the driver's options opts (Option).
// Errors wrap ErrInvalidConfig: a field out of range, HandlerFutex on a
// platform without raw futexes, or an option cfg cannot honour. A nil cfg.Backend
// means FileBackend{}. The caller must Close the Array.
func New(cfg Config, opts ...Option) (*Array, error) {
	core, err := NewCore(cfg)
	if err != nil {
		return nil, err
	}
	if cfg.Handlers == HandlerFutex && !futex.Supported() {
		return nil, fmt.Errorf("aio: Handlers = futex, want goroutine on %s (raw futexes are Linux only; %w): %w",
			runtime.GOOS, ErrUnsupported, ErrInvalidConfig)
	}
	var o options
	for _, opt := range opts {
		if opt == nil {
			return nil, fmt.Errorf("aio: a nil Option: %w", ErrInvalidConfig)
		}
		opt(&o)
	}
	if err := o.check(cfg); err != nil {
		return nil, err
	}
	if v := reflect.ValueOf(cfg.Backend); cfg.Backend != nil && v.Kind() == reflect.Pointer && v.IsNil() {
		// A nil *Latency (NewLatency's result with its error ignored) would
		// crash a handler thread on its first request.
		return nil, fmt.Errorf("aio: Backend = nil %T, want a non-nil backend or a nil interface (FileBackend): %w",
			cfg.Backend, ErrInvalidConfig)
	}
	a := &Array{core: core, cfg: cfg, opts: o, backend: cfg.Backend, start: time.Now()}
	a.calls.New = func() any { return newCall(&a.callCount) }
	if a.backend == nil {
		a.backend = FileBackend{}
	}
	a.reqs = make([]*Request, core.Slots())
	a.gen = make([]uint32, core.Slots())
	n := core.Segments()
	a.segMu = make([]segLock, n)
	a.files = make([]map[File]fileRef, n)
	for s := range n {
		a.files[s] = make(map[File]fileRef)
	}
	if cfg.IO == IONative {
		if err := a.startNative(); err != nil {
			return nil, err
		}
		return a, nil
	}
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

// lockArray takes every segment lock of array id, in segment order (the only
// order anyone takes more than one in).
func (a *Array) lockArray(id ArrayID) {
	first, n := a.core.ArraySegments(id)
	for s := first; s < first+n; s++ {
		a.segMu[s].Lock()
	}
}

func (a *Array) unlockArray(id ArrayID) {
	first, n := a.core.ArraySegments(id)
	for s := first; s < first+n; s++ {
		a.segMu[s].Unlock()
	}
}

// segLock is one segment's mutex, alone on its cache line so that handlers of
// neighbouring segments do not slow each other down. The line also holds
// deliverer: the goroutine id of the segment's handler while it runs a
// caller's Done, else 0 (see calledFromDone and deliver).
type segLock struct {
	sync.Mutex
	deliverer atomic.Uint64
	_         [64 - 16]byte
}

// Flush ends a read-ahead batch: it wakes the handlers of the segments that
// received requests since the last Flush, taking no lock. Under native AIO it
// instead picks and merges those segments' waiting requests and submits them
// to the kernel, one io_uring_enter per segment under its lock
// (os_aio_dispatch_read_array_submit). It matters only under WakeDeferred;
// under the other policies it does nothing.
func (a *Array) Flush() {
	if a.cfg.Wake != WakeDeferred {
		return
	}
	var set SegmentSet
	for id := range numArrays {
		if _, n := a.core.ArraySegments(id); n > 0 {
			set = set.Union(a.core.Flush(id))
		}
	}
	a.wake(set)
}

// wake sets the events of set's segments, in segment order.
func (a *Array) wake(set SegmentSet) {
	if a.native != nil {
		a.issueSet(set) // native AIO wakes no handler: the segments' requests go to the kernel
		return
	}
	for i, w := range set.w {
		for ; w != 0; w &= w - 1 { // one pass per set bit, lowest first
			a.events[i<<6+bits.TrailingZeros64(w)].Set()
		}
	}
}

// fileRef is a File's id for the core's merge test and the number of its
// requests that hold it.
type fileRef struct {
	id uint64
	n  int
}

// holdFile returns f's id in segment seg, numbering a File the first time one
// of its requests is reserved there; nil is 0. Ids need only agree within a
// segment, since a merge never crosses one. The caller holds seg's lock and,
// once the request leaves its slot (picked, or not reserved after all), calls
// dropFile.
// Ids are counted, not kept: a File with no request in a slot is forgotten, so
// an engine that opens and closes files for as long as it runs does not grow
// the map or keep closed Files from the garbage collector. A forgotten File
// that comes back gets a new id, which is harmless: the merge test compares the
// ids of requests waiting at the same time, and those hold the same id.
func (a *Array) holdFile(seg int, f File) uint64 {
	if f == nil {
		return 0
	}
	ref, ok := a.files[seg][f]
	if !ok {
		ref.id = a.nextFile.Add(1)
	}
	ref.n++
	a.files[seg][f] = ref
	return ref.id
}

// dropFile releases one hold of holdFile; the caller holds seg's lock.
func (a *Array) dropFile(seg int, f File) {
	if f == nil {
		return
	}
	ref := a.files[seg][f]
	if ref.n--; ref.n == 0 {
		delete(a.files[seg], f)
		return
	}
	a.files[seg][f] = ref
}

// trackedFiles returns how many Files the Array holds an id for (tests).
func (a *Array) trackedFiles() int {
	n := 0
	for s := range a.files {
		a.segMu[s].Lock()
		n += len(a.files[s])
		a.segMu[s].Unlock()
	}
	return n
}

// Stats returns a snapshot of the counters. Each array is read under all of its
// segment locks, so Submitted = Completed + Failed + Canceled + InFlight holds
// in every snapshot.
func (a *Array) Stats() Stats {
	st := Stats{Canceled: a.canceled.Load()}
	st.Submitted = st.Canceled
	for id := range numArrays {
		a.lockArray(id)
		st = st.Add(a.core.ArrayStats(id))
		pending, canceled := a.over[id].counts()
		a.unlockArray(id)
		st.Submitted += pending + canceled
		st.InFlight += pending
		st.Canceled += canceled
	}
	for _, ev := range a.futexes {
		st.FutexSyscalls += ev.Syscalls()
	}
	for i := range a.work {
		st.Syscalls += a.work[i].calls.Load()
	}
	st.Syscalls += st.FutexSyscalls
	st.IOPrioRefused = a.ioprioRefused.Load()
	if a.native != nil {
		st.RingSyscalls = a.native.ringSyscalls()
		st.Syscalls = st.RingSyscalls + a.native.syncCallCount()
	}
	var hits uint64 // ReadAt's page-cache reads (cached_linux.go)
	for i := range a.cacheHits {
		hits += a.cacheHits[i].n.Load()
	}
	st.Submitted += hits
	st.Completed += hits
	st.Syscalls += hits + a.cacheMisses.Load()
	return st
}

// Close stops new submissions (Submit returns ErrClosed, including for callers
// waiting on a full array), lets the handlers finish every accepted request
// (their Done is called), then stops the handler threads and waits for them to
// exit; with HandlerFutex their OS threads exit too. Close returns nil; calling
// it again waits for the same and returns nil.
//
// Close called from a Done returns ErrCloseFromDone at once and changes
// nothing: it would wait for the handler thread it runs on. A Done that must
// end the Array hands the Close to another goroutine, which the program then
// waits for.
func (a *Array) Close() error {
	if a.calledFromDone() {
		return ErrCloseFromDone
	}
	a.closeOnce.Do(func() {
		a.closing.Store(true)
		for id := range numArrays {
			a.lockArray(id)
			a.closed[id] = true
			a.unlockArray(id)
			a.full[id].signalAll() // waiters retry, see closed, and leave
		}
		for _, ev := range a.events {
			ev.Set()
		}
		if a.native != nil {
			a.closeNative() // the rest waiting goes to the kernel, then each ring's close mark
		}
	})
	a.handlers.Wait()
	return nil
}
