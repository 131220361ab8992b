package machine

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// CostProfile is what the simulated machine charges for the operations that are
// not the workload's own CPU bursts. Every field is a duration of CPU time on the
// core that performs the operation, except IOService, which is device time during
// which the issuing thread is blocked, FutexGrowth, FutexWalk and WakePreempt, which are
// factors, and SwitchFootprint, CacheL2 and CacheLLC, which are bytes.
//
// Machine charges the fields up to RunqueueHold, and SwitchFootprint with the
// caches and refills (SwitchCost). The fields from FutexWakeCall on
// are what innosim calibrate measures of the wake path (remote wakes, Go's
// locked-thread handoff, sync.Mutex handoff, wakeup preemption, sysmon's tick)
// for its model of Go's scheduler, the GoRuntime layer, which charges all six;
// Machine itself charges only FutexWakeCall and FutexWake, and only with
// SetRemoteWake on.
//
// OldKernel and NewKernel differ only in Syscall, SyscallSetup and
// ContextSwitch: that is the whole of study C.
type CostProfile struct {
	// Name labels the profile in tables ("old-kernel").
	Name string
	// ContextSwitch is charged to a core each time it switches to a different
	// thread (save/restore, TLB and cache refill).
	ContextSwitch time.Duration
	// Syscall is the kernel entry and exit of one system call, before the call's
	// own work: what every call pays, whatever its kind (page-table isolation's
	// address-space switch and the buffer clearing on return to user space
	// make it dearer). A call of kind SysOther costs this alone.
	Syscall time.Duration
	// SyscallSocket is what a read or write on an open socket (SysSocket:
	// recv, send, poll) costs beyond Syscall: the share of the socket data
	// path that the mitigations make dearer (retpolines on its indirect
	// calls). 0 charges such a call as any other. OldKernel and NewKernel: 0
	// (see NewKernel).
	SyscallSocket time.Duration
	// SyscallSetup is what a call that creates or destroys a connection
	// (SysSetup: accept4, shutdown, close; clone, mmap, set_robust_list of a
	// new thread) costs beyond Syscall: the mitigations' share of the long
	// kernel paths that allocate and free a socket, its file and descriptor
	// and run the TCP handshake and teardown (retpolines on their indirect
	// calls: protocol and LSM hooks, the socket's operations). 0 charges
	// such a call as any other. OldKernel: 0; NewKernel: 4 µs.
	SyscallSetup time.Duration
	// SetPriority is the kernel work of one call that changes the calling
	// thread's priority (MySQL 5.1's my_pthread_setprio, twice a statement
	// with thread priorities on: pthread_setschedparam, which is
	// priocntl(PC_SETPARMS) on Solaris and setpriority on Linux) beyond
	// Syscall: finding the thread, changing its class parameters and
	// re-sorting it in the dispatcher. OldKernel and NewKernel: 300 ns.
	SetPriority time.Duration
	// FutexHold is how long one futex wait or wake holds its hash-bucket spinlock
	// when nobody else wants it.
	FutexHold time.Duration
	// FutexGrowth is the fractional increase of FutexHold for each other
	// thread spinning for the same bucket lock when it is taken, and for each
	// waiter a wake-all marks beyond the first (see Machine.holdTime): one
	// cache-line transfer each. A ticket spinlock's release is read by every
	// spinner in turn before the next owner sees it, so its handoff grows by
	// a transfer per waiting core (Boyd-Wickizer et al., "Non-scalable locks
	// are dangerous", Linux Symposium 2012); futex_wake_mark unlinks each
	// woken futex_q, which lives on the waiter's stack and was last written
	// on the waiter's core (kernel/futex/waitwake.c). OldKernel: 0.5, its
	// LineTransfer (100 ns) over its FutexHold (200 ns).
	FutexGrowth float64
	// FutexWalk (0..1) is a fitted stand-in with no source, which no study
	// machine uses any more (study A's did until it gained the wait array);
	// it stays so that profiles giving it still read as before: w × FutexGrowth
	// more for every thread waiting on the mutex, on every futex call of it
	// (a wait and a wake of one alike), and (1-w) × the per-kind growth of
	// Machine.holdTime. 0, the default of OldKernel and NewKernel, is what
	// Linux's futex_wait and futex_wake do (docs/decisions/futex-costs-by-kind.md has
	// the figures of both).
	FutexWalk float64
	// SpinRound is one round of InnoDB's mutex spin loop (ut_delay of a random
	// 0..innodb_spin_wait_delay units, averaged).
	SpinRound time.Duration
	// IOService is the device time of one 16 KiB page read or write.
	IOService time.Duration
	// LineTransfer is the stall of a core that writes a cache line last
	// written by another core of its socket (the line moves from that core's
	// cache: a lock word, or the data a mutex protects); see Mutex. A
	// contended compare-and-exchange bouncing a line between two cores takes
	// on the order of 50-100 ns within a socket and 100-200 ns or more
	// across sockets (chipsandcheese.com, "Core to Core Latency Data on Large
	// Systems", 2023; Molka et al., "Memory Performance and Cache Coherency
	// Effects on an Intel Nehalem Multiprocessor System", PACT 2009).
	// OldKernel and NewKernel: 100 ns.
	LineTransfer time.Duration
	// LineTransferRemote is LineTransfer when the line comes from another
	// socket (Config.Sockets). OldKernel and NewKernel: 200 ns.
	LineTransferRemote time.Duration
	// RunqueueHold is how long one critical section under a CPU's run-queue
	// lock (rq->lock, a raw spinlock; kernel/sched/core.c) holds it beyond
	// the lock line's transfer: a wake's ttwu_do_activate (enqueue_task,
	// check_preempt_curr) or a switch's locked part of __schedule
	// (pick_next_task). Not zero, it turns the lock on (rqlock.go: the
	// wakes and switches that take it, and the time other CPUs spin for it,
	// which Result.RawSpinShare counts); 0, the default of OldKernel and
	// NewKernel, charges no such lock.
	RunqueueHold time.Duration

	// The six fields below are charged by the GoRuntime layer (the model of
	// BenchmarkAIOWake, which runs Go code on locked OS threads) and,
	// FutexWakeCall and FutexWake, by a machine with SetRemoteWake on; the
	// study machines have it off and ignore them. innosim calibrate measures
	// them.

	// FutexWakeCall is the waker's time inside a FUTEX_WAKE that wakes a
	// thread onto another, idle CPU (finding it, queueing it there, the
	// interrupt that wakes that CPU: a hypervisor exit on a VM). A wake onto
	// the waker's own CPU costs a Syscall.
	FutexWakeCall time.Duration
	// FutexWake is the time from the start of that call to the woken thread
	// running on the other CPU (on a VM, the hypervisor must run the halted
	// virtual CPU again).
	FutexWake time.Duration
	// ThreadHandoff is the core time it takes to hand a core to a locked OS
	// thread that was queued for one (Go's startlockedm/stoplockedm: the giving
	// thread wakes the locked one and parks itself).
	ThreadHandoff time.Duration
	// MutexHandoff is the price of one contended sync.Mutex acquisition beyond
	// the critical section (the lock word's cache line moving between cores).
	MutexHandoff time.Duration
	// WakePreempt is the share (0..1) of wakes onto the waker's own CPU in
	// which the woken thread preempts the waker as the FUTEX_WAKE returns,
	// rather than waiting for it to sleep (the scheduler's wakeup preemption).
	WakePreempt float64
	// SysmonTick is how long Go's sysmon thread actually sleeps when it asks
	// for its shortest interval, usleep(20) (runtime/proc.go's sysmon): the
	// 20 µs plus the kernel's timer slack (50 µs by default) and the timer's
	// latency (on a VM, the hypervisor's). It sets how soon sysmon retakes a
	// P from a thread in a system call. When sysmon backs off (doubling what it
	// asks for after 50 rounds that retook nothing) only the request doubles:
	// each sleep still lasts SysmonTick − 20 µs beyond it.
	SysmonTick time.Duration

	// SwitchFootprint is the bytes of a thread's own state that a switch to
	// it touches (its kernel stack and task, its user stack and the
	// runtime's per-thread data), which the threads that ran in between may
	// have evicted: the footprint in the cache of Thiébaut and Stone
	// ("Footprints in the cache", ACM TOCS 1987), the indirect cost of a
	// switch of Li, Ding and Shen ("Quantifying the cost of context switch",
	// ExpCS 2007). innosim calibrate measures it with lmbench's lat_ctx
	// ring at several working sets (see SwitchCost); 0..1 GiB, 0 (OldKernel,
	// NewKernel) charges no refill.
	SwitchFootprint int64
	// CacheL2 and CacheLLC are the bytes of a core's private L2 cache and of
	// the last-level cache, as Linux reports them
	// (/sys/devices/system/cpu/cpu0/cache/index*/size, the kernel's
	// Documentation/ABI/testing/sysfs-devices-system-cpu); 0..1 GiB each,
	// both more than 0 when SwitchFootprint is, CacheLLC ≥ CacheL2.
	CacheL2, CacheLLC int64
	// RefillLLC is the cost of one 64-byte line of the footprint that a
	// switch finds missing from L2 but in the last-level cache, RefillMemory
	// of one missing from the last-level cache too (fitted to the ring).
	RefillLLC, RefillMemory time.Duration
}

// cacheLine is the bytes of a cache line (coherency_line_size on x86-64 and
// arm64 servers).
const cacheLine = 64

// SwitchCost returns what Machine charges a core for one context switch on a
// machine of threads threads: ContextSwitch (measured between two threads),
// plus the refill of the switched-in thread's footprint that the other
// threads, each touching SwitchFootprint bytes, evicted since it last ran,
// beyond what two threads evict. A line of a cache of C bytes survives the B
// bytes that others bring in with probability exp(−B/C) (the random
// replacement of Thiébaut and Stone's footprint model), so with B =
// (threads−1) × SwitchFootprint a share 1 − exp(−B/CacheL2) of the footprint's
// lines is missing from L2, of which 1 − exp(−B/CacheLLC) is missing from the
// last-level cache too, and they cost RefillLLC and RefillMemory a line.
// With SwitchFootprint 0 it is ContextSwitch.
func (p *CostProfile) SwitchCost(threads int) time.Duration {
	if p.SwitchFootprint == 0 || threads <= 2 {
		return p.ContextSwitch
	}
	return p.ContextSwitch + time.Duration(p.refill(threads, p.SwitchFootprint)-p.refill(2, p.SwitchFootprint)+0.5)
}

// SwitchCostOf is SwitchCost for threads whose footprints differ: a switch
// to a thread of own bytes, while the other threads of the machine touch
// others bytes in all between two of its runs, costs ContextSwitch plus the
// refill of the own bytes that others evicted (SwitchCost's footprint model),
// less the refill a ring of two SwitchFootprint threads already pays. With
// own = SwitchFootprint and others = (threads−1) × SwitchFootprint it is
// SwitchCost(threads) for threads > 2; it is never below ContextSwitch.
func (p *CostProfile) SwitchCostOf(own, others int64) time.Duration {
	w := p.SwitchFootprint
	extra := p.RefillOf(own, float64(others)) - p.RefillOf(w, float64(w))
	return p.ContextSwitch + time.Duration(max(extra, 0)+0.5)
}

// refill is the ns that a switch in a ring of threads threads, each touching
// w bytes, spends refilling the switched-in thread's w bytes (see
// SwitchCost).
func (p *CostProfile) refill(threads int, w int64) float64 {
	return p.RefillOf(w, float64(threads-1)*float64(w))
}

// HasCaches reports whether p has the caches (CacheL2 and CacheLLC, a
// calibrated profile's) that a footprint is refilled from; without them a
// footprint costs nothing.
func (p CostProfile) HasCaches() bool { return p.CacheL2 > 0 && p.CacheLLC > 0 }

// RefillOf is the ns a switch spends refilling w bytes of the switched-in
// thread after others bytes of other threads' footprints went through the
// caches (see SwitchCost).
func (p *CostProfile) RefillOf(w int64, others float64) float64 {
	if !p.HasCaches() {
		return 0
	}
	lines := float64(w) / cacheLine
	l2 := 1 - math.Exp(-others/float64(p.CacheL2))
	llc := 1 - math.Exp(-others/float64(p.CacheLLC))
	return lines * ((l2-llc)*float64(p.RefillLLC) + llc*float64(p.RefillMemory))
}

// Refill returns what a switch spends refilling own bytes of the
// switched-in thread (or, in MariaDB's pool, of the connection's THD that a
// worker takes up) after others bytes of other threads' footprints went
// through the caches (see SwitchCost): the refill that SwitchCostOf adds to
// ContextSwitch, before it subtracts a ring of two's, and the whole of the
// pool's refill of a THD.
func (p *CostProfile) Refill(own, others int64) time.Duration {
	return time.Duration(p.RefillOf(own, float64(others)) + 0.5)
}

// SwitchRefill returns the ns a switch in a ring of threads threads, each
// touching its SwitchFootprint and extra more bytes, spends refilling the
// switched-in thread's footprint, by SwitchCost's model: the curve that
// innosim calibrate fits to lmbench's lat_ctx ring.
func (p *CostProfile) SwitchRefill(threads int, extra int64) time.Duration {
	return time.Duration(p.refill(threads, p.SwitchFootprint+extra) + 0.5)
}

// OldKernel is a profile for a Linux kernel before the 2018 CPU-vulnerability
// mitigations: a system call of about 100 ns and a context switch of about 1.5 µs
// (order of magnitude from lmbench lat_syscall/lat_ctx on x86 servers of the time),
// cache-line transfers of 100 ns within a socket and 200 ns across, and futex
// hash-bucket holds that grow by one such transfer per spinner or woken waiter.
func OldKernel() CostProfile {
	return CostProfile{
		Name:          "old-kernel",
		ContextSwitch: 1500 * time.Nanosecond,
		Syscall:       100 * time.Nanosecond,
		SetPriority:   300 * time.Nanosecond,
		FutexHold:     200 * time.Nanosecond,
		// One LineTransfer per spinner or woken waiter: 100 ns / 200 ns.
		FutexGrowth: 0.5,
		SpinRound:   500 * time.Nanosecond,
		IOService:   100 * time.Microsecond,
		// A contended line moving between cores (see LineTransfer's sources).
		LineTransfer:       100 * time.Nanosecond,
		LineTransferRemote: 200 * time.Nanosecond,
		// Order of magnitude of innosim calibrate on a 2-core x86 VM (2026):
		// ~3 µs inside a FUTEX_WAKE that wakes a thread, ~7 µs from its start
		// to the thread running on a halted CPU, locked-thread handoff ~20 µs,
		// contended sync.Mutex ~10 ns; a woken thread preempts its waker in
		// about 3 of 4 same-CPU wakes (calibrate's one-CPU futex ping-pong).
		// FutexWake is 4 µs, the ~7 less the call's ~3, as it was defined
		// when these were chosen (from the call's end); it now counts from
		// the call's start, which calibrate measures as ~7 µs.
		FutexWakeCall: 3 * time.Microsecond,
		FutexWake:     4 * time.Microsecond,
		ThreadHandoff: 20 * time.Microsecond,
		MutexHandoff:  10 * time.Nanosecond,
		WakePreempt:   0.7,
		// sysmon's usleep(20) as runtime/proc.go asks it, before slack.
		SysmonTick: 20 * time.Microsecond,
	}
}

// NewKernel is OldKernel on a kernel with the CPU-vulnerability mitigations
// on (page-table isolation, retpolines, buffer clearing on return), as MariaDB
// MDEV-24140's test machine after its reboot. Everything else is equal.
//
//   - Syscall 300 ns (+200 ns): page-table isolation's CR3 switches add a few
//     hundred cycles to every entry and exit (the KAISER/PTI patches' own
//     estimate); getppid(2) measured 120-150 cycles without it and 520-750
//     with it on PCID-capable Xeons (Open Telekom Cloud's KPTI/IBRS/retpoline
//     microbenchmarks, 2018). Order of magnitude, not a measurement of the
//     MDEV's machine, which is not published.
//   - ContextSwitch 1.7 µs (+200 ns): a switch between two threads of one
//     process changes no address space, so it pays neither a CR3 switch nor
//     the indirect-branch barrier (IBPB is issued on a change of mm only);
//     what it gains is one more kernel entry, the wake's interrupt.
//   - SyscallSocket 0: the mitigations' per-call cost on the socket data
//     path beyond the entry is not measured by any source held here, and
//     from Linux 5.0 on the indirect-call wrappers
//     (include/linux/indirect_call_wrapper.h) took the retpolines off that
//     path's hottest indirect calls (GRO and the IP/TCP receive path, later
//     sock_recvmsg and sock_sendmsg); a CPU-bound sysbench OLTP read-only
//     over TCP moved by under 2% with page-table isolation (Percona, 2018).
//   - SyscallSetup 4 µs: the one cost chosen on a table, study C's connect
//     new/old (MariaDB 10.3.24): of 3.5, 4, 4.5 and 5 µs, the one with the
//     least mean |log(sim/published)| over its seven thread counts, with
//     the three costs above fixed first. It stands for what the mitigations
//     add to the kernel's setup and teardown of a connection, charged on its
//     accept4, shutdown and close.
func NewKernel() CostProfile {
	p := OldKernel()
	p.Name = "new-kernel"
	p.ContextSwitch = 1700 * time.Nanosecond
	p.Syscall = 300 * time.Nanosecond
	p.SyscallSetup = 4 * time.Microsecond
	return p
}

// SyscallCost returns what a system call of kind k costs before its own
// kernel work: Syscall, plus SyscallSocket for SysSocket or SyscallSetup for
// SysSetup. A kind out of range costs Syscall (Machine refuses such an op).
func (p *CostProfile) SyscallCost(k SyscallKind) time.Duration {
	switch k {
	case SysSocket:
		return p.Syscall + p.SyscallSocket
	case SysSetup:
		return p.Syscall + p.SyscallSetup
	}
	return p.Syscall
}

// Profile returns the built-in profile of that name: "old-kernel" or
// "new-kernel".
func Profile(name string) (CostProfile, error) {
	switch name {
	case "old-kernel":
		return OldKernel(), nil
	case "new-kernel":
		return NewKernel(), nil
	}
	return CostProfile{}, fmt.Errorf("sim: cost profile %q, want old-kernel, new-kernel or a file: %w", name, ErrInvalidConfig)
}

// profileField is one field of a CostProfile as its file names it: a duration
// (d, in min..1s), a number (g, in 0..gmax: futex_growth's factor, 0..10, or
// futex_walk's and wake_preempt's shares, 0..1) or a size (b, bytes in
// 0..maxProfileBytes).
type profileField struct {
	key  string
	d    *time.Duration
	min  time.Duration
	g    *float64
	gmax float64
	b    *int64
}

// maxProfileBytes bounds a profile's sizes: 1 GiB.
const maxProfileBytes = 1 << 30

// fields lists p's fields in file order: the one table that Validate,
// ParseProfile and WriteTo read, so a new cost is one line here.
func (p *CostProfile) fields() []profileField {
	return []profileField{
		{key: "context_switch", d: &p.ContextSwitch},
		{key: "syscall", d: &p.Syscall},
		{key: "syscall_socket", d: &p.SyscallSocket},
		{key: "syscall_setup", d: &p.SyscallSetup},
		{key: "set_priority", d: &p.SetPriority},
		{key: "futex_hold", d: &p.FutexHold},
		{key: "futex_growth", g: &p.FutexGrowth, gmax: 10},
		{key: "futex_walk", g: &p.FutexWalk, gmax: 1},
		{key: "spin_round", d: &p.SpinRound},
		{key: "io_service", d: &p.IOService, min: 1},
		{key: "line_transfer", d: &p.LineTransfer},
		{key: "line_transfer_remote", d: &p.LineTransferRemote},
		{key: "runqueue_hold", d: &p.RunqueueHold},
		{key: "futex_wake_call", d: &p.FutexWakeCall},
		{key: "futex_wake", d: &p.FutexWake},
		{key: "thread_handoff", d: &p.ThreadHandoff},
		{key: "mutex_handoff", d: &p.MutexHandoff},
		{key: "wake_preempt", g: &p.WakePreempt, gmax: 1},
		{key: "sysmon_tick", d: &p.SysmonTick},
		{key: "switch_footprint", b: &p.SwitchFootprint},
		{key: "cache_l2", b: &p.CacheL2},
		{key: "cache_llc", b: &p.CacheLLC},
		{key: "refill_llc", d: &p.RefillLLC},
		{key: "refill_memory", d: &p.RefillMemory},
	}
}

// Validate reports the first field out of range: durations must be in 0..1s
// (IOService > 0), FutexGrowth in 0..10, FutexWalk and WakePreempt in 0..1,
// sizes in 0..1 GiB, and a SwitchFootprint needs 0 < CacheL2 ≤ CacheLLC;
// NaN and ±Inf are out of every range.
func (p CostProfile) Validate() error {
	for _, f := range p.fields() {
		switch {
		case f.g != nil && !(*f.g >= 0 && *f.g <= f.gmax): // false for NaN
			return Invalid(f.key, "sim: cost profile %s = %v, want 0..%v: %w", f.key, *f.g, f.gmax, ErrInvalidConfig)
		case f.d != nil && (*f.d < f.min || *f.d > time.Second):
			return Invalid(f.key, "sim: cost profile %s = %v, want %v..1s: %w", f.key, *f.d, f.min, ErrInvalidConfig)
		case f.b != nil && (*f.b < 0 || *f.b > maxProfileBytes):
			return Invalid(f.key, "sim: cost profile %s = %d, want 0..%d bytes: %w", f.key, *f.b, maxProfileBytes, ErrInvalidConfig)
		}
	}
	if p.SwitchFootprint > 0 && (p.CacheL2 <= 0 || p.CacheLLC < p.CacheL2) {
		return Invalid("switch_footprint", "sim: cost profile switch_footprint = %d with cache_l2 = %d, cache_llc = %d, want 0 < cache_l2 ≤ cache_llc: %w",
			p.SwitchFootprint, p.CacheL2, p.CacheLLC, ErrInvalidConfig)
	}
	return nil
}

// LoadProfile reads a cost profile from a file of "key = value" lines (blank
// lines and lines starting with # are ignored). Keys are the snake_case field
// names (context_switch, syscall, syscall_socket, syscall_setup, set_priority, futex_hold, futex_growth, futex_walk,
// spin_round, io_service, line_transfer, line_transfer_remote, runqueue_hold, futex_wake_call, futex_wake, thread_handoff, mutex_handoff,
// wake_preempt, sysmon_tick, switch_footprint, cache_l2, cache_llc, refill_llc, refill_memory, name);
// durations use time.ParseDuration syntax ("1.5us"), sizes are bytes; name is
// not empty and has no control character. A key given twice is refused, naming both lines.
// Keys not given keep OldKernel's values (LoadProfileDefaulted says which), but
// a file that gives no cost at all (empty, or only comments and a name) is
// refused rather than read as OldKernel, and so is one whose last line has no
// newline (a file cut mid-line: calibrate and WriteTo end every line); a file
// cut at the end of a line cannot be told from one that leaves keys out on
// purpose, and is read. futex_walk is read (0..1), but
// profiles that innosim calibrate wrote before the per-kind futex model give
// it as 1, the old default: such a file now makes every futex call walk the
// mutex's waiters, as before; delete the line to get Linux's per-kind costs.
// CostProfile.WriteTo writes the format; innosim calibrate writes a measured one.
// See ParseProfile.
func LoadProfile(path string) (CostProfile, error) {
	p, _, err := LoadProfileDefaulted(path)
	return p, err
}

// LoadProfileDefaulted reads a cost profile as LoadProfile does, and returns
// with it the keys of the costs the file does not give, in ProfileKeys'
// order (none for a file that gives every cost): those that keep OldKernel's
// values. A caller tells the user, since a profile cut at the end of a line
// reads as one that leaves the rest out on purpose.
func LoadProfileDefaulted(path string) (p CostProfile, defaulted []string, err error) {
	f, err := os.Open(path)
	if err != nil {
		return CostProfile{}, nil, fmt.Errorf("sim: cost profile: %w", err)
	}
	defer f.Close()
	return parseProfile(f, path)
}

// maxProfileSize bounds what ParseProfile reads: a profile is a few hundred bytes.
const maxProfileSize = 1 << 20

// ParseProfile reads a cost profile as LoadProfile does; name labels errors.
// A malformed line or an unknown key is an error naming the line.
func ParseProfile(r io.Reader, name string) (CostProfile, error) {
	p, _, err := parseProfile(r, name)
	return p, err
}

// parseProfile is ParseProfile, returning also the keys the file does not
// give (LoadProfileDefaulted).
func parseProfile(r io.Reader, name string) (CostProfile, []string, error) {
	p := OldKernel()
	p.Name = name
	fields := p.fields()
	data, err := io.ReadAll(io.LimitReader(r, maxProfileSize+1))
	switch {
	case err != nil:
		return p, nil, fmt.Errorf("sim: %s: %w", name, err)
	case len(data) > maxProfileSize:
		return p, nil, fmt.Errorf("sim: %s: longer than %d bytes, not a cost profile: %w", name, maxProfileSize, ErrInvalidConfig)
	case len(data) > 0 && data[len(data)-1] != '\n':
		return p, nil, fmt.Errorf("sim: %s:%d: last line has no newline: truncated file? %w", name, bytes.Count(data, []byte("\n"))+1, ErrInvalidConfig)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	line, set := 0, 0
	seen := map[string]int{} // key → its line
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		if s == "" || s[0] == '#' {
			continue
		}
		k, v, ok := strings.Cut(s, "=")
		if !ok {
			return p, nil, fmt.Errorf("sim: %s:%d: want key = value: %w", name, line, ErrInvalidConfig)
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if first, ok := seen[k]; ok {
			return p, nil, fmt.Errorf("sim: %s:%d: %s given twice (first on line %d), want each key once: %w", name, line, k, first, ErrInvalidConfig)
		}
		seen[k] = line
		if k == "name" {
			if !profileNameOK(v) { // a name WriteTo could not write back
				return p, nil, fmt.Errorf("sim: %s:%d: name = %q, want a non-empty name without control characters: %w", name, line, v, ErrInvalidConfig)
			}
			p.Name = v
			continue
		}
		i := slices.IndexFunc(fields, func(f profileField) bool { return f.key == k })
		if i < 0 && k == "switch_growth" {
			return p, nil, fmt.Errorf("sim: %s:%d: switch_growth is no longer read: a switch's growth with the threads is now switch_footprint, cache_l2, cache_llc, refill_llc and refill_memory; run innosim calibrate again, or delete the line: %w", name, line, ErrInvalidConfig)
		}
		if i < 0 {
			return p, nil, fmt.Errorf("sim: %s:%d: unknown key %q: %w", name, line, k, ErrInvalidConfig)
		}
		f := fields[i]
		var err error
		want := "a duration with its unit, such as 100ns or 2.5us"
		switch {
		case f.g != nil:
			*f.g, err = strconv.ParseFloat(v, 64)
			want = "a number"
		case f.b != nil:
			*f.b, err = strconv.ParseInt(v, 10, 64)
			want = "a whole number of bytes"
		default:
			*f.d, err = time.ParseDuration(v)
		}
		if err != nil {
			return p, nil, fmt.Errorf("sim: %s:%d: %s = %q, want %s: %w", name, line, k, v, want, ErrInvalidConfig)
		}
		set++
	}
	if err := sc.Err(); err != nil {
		return p, nil, fmt.Errorf("sim: %s:%d: %w", name, line+1, err)
	}
	if set == 0 {
		return p, nil, fmt.Errorf("sim: %s: no cost given (want key = value lines such as syscall = 100ns): an empty profile is not read as old-kernel: %w", name, ErrInvalidConfig)
	}
	if err := p.Validate(); err != nil {
		return p, nil, err
	}
	var defaulted []string
	for _, f := range fields {
		if _, ok := seen[f.key]; !ok {
			defaulted = append(defaulted, f.key)
		}
	}
	return p, defaulted, nil
}
