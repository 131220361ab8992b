package sim

import (
	"fmt"
	"math"
	"time"

	"github.com/innosim/innosim/sim/engine"
)

// ServiceDist is how a device draws each I/O's service time from its nominal
// time.
type ServiceDist uint8

const (
	// ServiceUniform draws uniformly in [0.5, 1.5) × the nominal time, the
	// draw of every other simulated cost (Engine.Jitter).
	ServiceUniform ServiceDist = iota
	// ServiceFixed takes exactly the nominal time: a device whose every request
	// costs the same, as the 5 ms reads of MySQL bug 40604's test.
	ServiceFixed
	// ServiceExponential draws an exponential time of that mean: the memoryless
	// service of the M/M/c queue (Kleinrock, Queueing Systems I, §3.5).
	ServiceExponential
)

// String returns "uniform", "fixed" or "exponential".
func (d ServiceDist) String() string {
	switch d {
	case ServiceUniform:
		return "uniform"
	case ServiceFixed:
		return "fixed"
	case ServiceExponential:
		return "exponential"
	}
	return fmt.Sprintf("dist(%d)", uint8(d))
}

// DeviceConfig describes a storage device: Units parallel units (the disks of
// an array, a drive's internal queue depth) that serve one first-in-first-out
// queue of I/Os, each I/O holding one unit for its service time.
type DeviceConfig struct {
	// Units is the number of I/Os in service at once, 1..1024.
	Units int
	// Read, Write and Fsync are the nominal service times of a page read, a
	// page write and an fsync (the flush of the device's write cache), each
	// 1 ns..10 s.
	Read, Write, Fsync time.Duration
	// Dist is how each service time is drawn; the zero value is ServiceUniform.
	Dist ServiceDist
}

func (c DeviceConfig) validate() error {
	if c.Units < 1 || c.Units > 1024 {
		return fmt.Errorf("sim: device Units = %d, want 1..1024: %w", c.Units, ErrInvalidConfig)
	}
	for _, f := range []struct {
		name string
		d    time.Duration
	}{{"Read", c.Read}, {"Write", c.Write}, {"Fsync", c.Fsync}} {
		if f.d < 1 || f.d > 10*time.Second {
			return fmt.Errorf("sim: device %s = %v, want 1ns..10s: %w", f.name, f.d, ErrInvalidConfig)
		}
	}
	if c.Dist > ServiceExponential {
		return fmt.Errorf("sim: device Dist = %d, want uniform, fixed or exponential: %w", c.Dist, ErrInvalidConfig)
	}
	return nil
}

// ioKind is what a device request does.
type ioKind uint8

const (
	ioRead ioKind = iota
	ioWrite
	ioFsync
	numIOKinds
)

// ioRequest is one I/O a blocked thread waits for.
type ioRequest struct {
	kind   ioKind
	thread int32
	gen    uint32 // the thread's gen when it blocked: wake only that wait
	// async marks an I/O no thread waits for (native AIO's io_submit): its
	// completion runs the handler of kind done with arg instead of a wake.
	async bool
	done  engine.Kind
	arg   int32
}

// device is the machine's storage device: a FIFO queue and the units serving
// it. Done counts completed I/Os by kind.
type device struct {
	cfg   DeviceConfig
	ev    engine.Kind // completion event; Arg is the unit
	queue []ioRequest
	head  int
	busy  []bool
	cur   []ioRequest
	free  int
	done  [numIOKinds]uint64
}

// SetDevice installs the machine's storage device: the handlers of a
// simulated-AIO array and OpRead, OpWrite and OpFsync wait for it, and a
// native-AIO array's requests are served by it. Call it
// before adding threads that use it. It returns an error wrapping
// ErrInvalidConfig for a bad config or a second device.
func (m *Machine) SetDevice(cfg DeviceConfig) error {
	if err := cfg.validate(); err != nil {
		return err
	}
	if m.dev != nil {
		return fmt.Errorf("sim: SetDevice called twice, want one device: %w", ErrInvalidConfig)
	}
	d := &device{cfg: cfg, busy: make([]bool, cfg.Units), cur: make([]ioRequest, cfg.Units), free: cfg.Units}
	d.ev = m.e.On(m.ioDone)
	m.dev = d
	return nil
}

// service draws the service time of an I/O of kind k, in ns (at least 1).
func (m *Machine) service(k ioKind) int64 {
	d := m.dev
	nominal := [numIOKinds]time.Duration{d.cfg.Read, d.cfg.Write, d.cfg.Fsync}[k]
	var ns int64
	switch d.cfg.Dist {
	case ServiceFixed:
		ns = int64(nominal)
	case ServiceExponential:
		ns = int64(math.Round(m.e.Rand().ExpFloat64() * float64(nominal)))
	default:
		ns = m.jit(nominal)
	}
	return max(ns, 1)
}

// deviceIO blocks t until an I/O of kind k completes on the device: it starts
// at once on a free unit, else it queues behind the I/Os submitted before it.
func (m *Machine) deviceIO(t *thread, id int32, k ioKind) {
	m.block(t)
	m.queueIO(ioRequest{kind: k, thread: id, gen: t.gen})
}

// deviceSubmit queues an I/O of kind k that no thread waits for (a native
// AIO request in the kernel): when the device completes it, the handler of
// kind done runs with arg, as the kernel posts a completion event.
func (m *Machine) deviceSubmit(k ioKind, done engine.Kind, arg int32) {
	m.queueIO(ioRequest{kind: k, async: true, done: done, arg: arg})
}

// queueIO starts r at once on a free unit, else queues it behind the I/Os
// submitted before it.
func (m *Machine) queueIO(r ioRequest) {
	d := m.dev
	if d.free == 0 {
		d.queue = append(d.queue, r)
		return
	}
	for u := range d.busy {
		if !d.busy[u] {
			m.startIO(int32(u), r)
			return
		}
	}
}

func (m *Machine) startIO(u int32, r ioRequest) {
	d := m.dev
	d.busy[u], d.cur[u] = true, r
	d.free--
	m.e.After(m.service(r.kind), d.ev, u, 0)
}

// ioDone completes the I/O on unit u: counts it, wakes its thread and starts
// the oldest queued I/O on the unit.
func (m *Machine) ioDone(_ int64, u int32, _ uint32) {
	d := m.dev
	r := d.cur[u]
	d.busy[u] = false
	d.free++
	d.done[r.kind]++
	switch {
	case r.async:
		m.e.At(m.e.Now(), r.done, r.arg, 0)
	case m.threads[r.thread].gen == r.gen:
		m.wake(r.thread)
	}
	if d.head < len(d.queue) {
		next := d.queue[d.head]
		d.head++
		if d.head == len(d.queue) {
			d.queue, d.head = d.queue[:0], 0
		}
		m.startIO(u, next)
	}
}

// deviceDone returns the I/Os by kind: those the device completed, and those
// taken at the profile's IOService without one (countIO).
func (m *Machine) deviceDone() [numIOKinds]uint64 {
	io := m.ioAt
	if m.dev != nil {
		for k := range io {
			io[k] += m.dev.done[k]
		}
	}
	return io
}

// countIO counts n I/Os of kind k that take the profile's IOService instead
// of a device's queue, as they start.
func (m *Machine) countIO(k ioKind, n uint64) { m.ioAt[k] += n }
