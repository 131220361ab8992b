package device

import (
	"fmt"
	"math"
	"time"

	"github.com/innosim/innosim/sim/engine"
	"github.com/innosim/innosim/sim/machine"
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

// Config describes a storage device: Units parallel units (the disks of
// an array, a drive's internal queue depth) that serve one first-in-first-out
// queue of I/Os, each I/O holding one unit for its service time.
type Config struct {
	// Units is the number of I/Os in service at once, 1..1024.
	Units int
	// Read, Write and Fsync are the nominal service times of a page read, a
	// page write and an fsync (the flush of the device's write cache), each
	// 1 ns..10 s.
	Read, Write, Fsync time.Duration
	// Dist is how each service time is drawn; the zero value is ServiceUniform.
	Dist ServiceDist
}

// Validate reports a field out of range, wrapping ErrInvalidConfig.
func (c Config) Validate() error {
	if c.Units < 1 || c.Units > 1024 {
		return machine.Invalid("Units", "sim: device Units = %d, want 1..1024: %w", c.Units, machine.ErrInvalidConfig)
	}
	for _, f := range []struct {
		name string
		d    time.Duration
	}{{"Read", c.Read}, {"Write", c.Write}, {"Fsync", c.Fsync}} {
		if f.d < 1 || f.d > 10*time.Second {
			return machine.Invalid(f.name, "sim: device %s = %v, want 1ns..10s: %w", f.name, f.d, machine.ErrInvalidConfig)
		}
	}
	if c.Dist > ServiceExponential {
		return machine.Invalid("Dist", "sim: device Dist = %d, want uniform, fixed or exponential: %w", c.Dist, machine.ErrInvalidConfig)
	}
	return nil
}

// ioStage is how far a thread has got in OpRead, OpWrite or OpFsync.
type ioStage uint8

const (
	ioStart   ioStage = iota
	ioCharged         // the system call is charged: queue the I/O
	ioWaiting         // blocked until the device completes it
)

// ioRequest is one I/O a blocked thread waits for.
type ioRequest struct {
	kind   machine.IOKind
	thread int32
	gen    uint32 // the thread's gen when it blocked: wake only that wait
	// async marks an I/O no thread waits for (native AIO's io_submit): its
	// completion runs the handler of kind done with arg instead of a wake.
	async bool
	done  engine.Kind
	arg   int32
}

// Device is a machine's storage device: a FIFO queue and the units serving
// it; it counts each I/O it completes in the machine's figures
// (Machine.CountIO). It runs OpRead, OpWrite and OpFsync, and the other
// mechanisms queue their I/Os on it (IO, Submit).
type Device struct {
	m     *machine.Machine
	cfg   Config
	ev    engine.Kind // completion event; Arg is the unit
	queue []ioRequest
	head  int
	busy  []bool
	cur   []ioRequest
	free  int
	stage []ioStage // by thread id: how far it has got in OpRead, OpWrite or OpFsync
}

// Install installs a machine's storage device: OpRead, OpWrite and OpFsync
// wait for it, and the other mechanisms given it (an AIO array's handlers, a
// native array's requests, the redo log, the page cleaner) queue their I/Os
// on it. It returns an error wrapping ErrInvalidConfig for a bad config or a
// second device.
func Install(m *machine.Machine, cfg Config) (*Device, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if m.Handled(machine.OpRead) {
		return nil, fmt.Errorf("sim: SetDevice called twice, want one device: %w", machine.ErrInvalidConfig)
	}
	d := &Device{m: m, cfg: cfg, busy: make([]bool, cfg.Units), cur: make([]ioRequest, cfg.Units), free: cfg.Units}
	d.ev = m.Engine().On(d.done)
	for _, k := range []machine.OpKind{machine.OpRead, machine.OpWrite, machine.OpFsync} {
		m.Handle(k, d)
	}
	return d, nil
}

// Step runs OpRead, OpWrite and OpFsync: the system call (its entry and Dur
// of kernel work), then blocked until the device completes the I/O. A page
// read is a wait the thread pool is told of (buf_read_page_low's
// THD_WAIT_DISKIO).
func (d *Device) Step(id int32, op *machine.Op) bool {
	for int(id) >= len(d.stage) {
		d.stage = append(d.stage, ioStart)
	}
	m := d.m
	switch d.stage[id] {
	case ioStart:
		d.stage[id] = ioCharged
		m.Syscall(id, int64(m.Costs().Syscall)+m.Jitter(op.Dur))
		return false
	case ioCharged:
		d.stage[id] = ioWaiting
		d.IO(id, machine.IOKind(op.Kind-machine.OpRead))
		if op.Kind == machine.OpRead {
			m.WaitBegin(id, machine.WaitDiskIO)
		}
		return false
	}
	d.stage[id] = ioStart
	if op.Kind == machine.OpRead {
		m.WaitEnd(id)
	}
	return true
}

// service draws the service time of an I/O of kind k, in ns (at least 1).
func (d *Device) service(k machine.IOKind) int64 {
	nominal := [machine.NumIOKinds]time.Duration{d.cfg.Read, d.cfg.Write, d.cfg.Fsync}[k]
	var ns int64
	switch d.cfg.Dist {
	case ServiceFixed:
		ns = int64(nominal)
	case ServiceExponential:
		ns = int64(math.Round(d.m.Rand().ExpFloat64() * float64(nominal)))
	default:
		ns = d.m.Jitter(nominal)
	}
	return max(ns, 1)
}

// IO blocks thread id until an I/O of kind k completes on the device: it
// starts at once on a free unit, else it queues behind the I/Os submitted
// before it.
func (d *Device) IO(id int32, k machine.IOKind) {
	d.m.Block(id)
	d.enqueue(ioRequest{kind: k, thread: id, gen: d.m.Gen(id)})
}

// Submit queues an I/O of kind k that no thread waits for (a native AIO
// request in the kernel): when the device completes it, the handler of kind
// done runs with arg, as the kernel posts a completion event.
func (d *Device) Submit(k machine.IOKind, done engine.Kind, arg int32) {
	d.enqueue(ioRequest{kind: k, async: true, done: done, arg: arg})
}

// enqueue starts r at once on a free unit, else queues it behind the I/Os
// submitted before it.
func (d *Device) enqueue(r ioRequest) {
	if d.free == 0 {
		d.queue = append(d.queue, r)
		return
	}
	for u := range d.busy {
		if !d.busy[u] {
			d.start(int32(u), r)
			return
		}
	}
}

func (d *Device) start(u int32, r ioRequest) {
	d.busy[u], d.cur[u] = true, r
	d.free--
	d.m.Engine().After(d.service(r.kind), d.ev, u, 0)
}

// done completes the I/O on unit u: counts it, wakes its thread and starts
// the oldest queued I/O on the unit.
func (d *Device) done(_ int64, u int32, _ uint32) {
	m := d.m
	r := d.cur[u]
	d.busy[u] = false
	d.free++
	m.CountIO(r.kind, 1)
	switch {
	case r.async:
		m.Engine().At(m.Now(), r.done, r.arg, 0)
	default:
		m.WakeGen(r.thread, r.gen)
	}
	if d.head < len(d.queue) {
		next := d.queue[d.head]
		d.head++
		if d.head == len(d.queue) {
			d.queue, d.head = d.queue[:0], 0
		}
		d.start(u, next)
	}
}
