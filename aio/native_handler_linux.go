//go:build linux

package aio

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// nativeHandle is the handler of global segment seg in native mode:
// os_aio_linux_handle's loop on its own ring. It is a plain goroutine, whose
// thread blocks in io_uring_enter as any goroutine's in a system call, and
// after a round that ran Done calls it yields (runtime.Gosched) before it
// waits again: a Done that readies a goroutine (the request's submitter
// waiting for it, say) puts it on this goroutine's P, and a P whose thread then
// blocks in a system call runs it only once another thread takes the P
// (sysmon's retake, or an idle thread woken to steal it). The yield runs it
// here first, and what it submits meanwhile rides on this handler's next
// io_uring_enter. A handler locked to its OS thread could not yield that way:
// its P goes to another thread, and it waits for its own to be handed back.
func (a *Array) nativeHandle(seg int) {
	defer a.handlers.Done()
	n := a.native
	sg := &n.segs[seg]
	r := sg.ring
	id := a.core.ArrayOfSegment(seg)
	mu := &a.segMu[seg].Mutex
	deliverer := &a.segMu[seg].deliverer
	var reaped, g uint64
	closing, woken, ran, placed := false, false, false, false
	for {
		k := r.reap(sg.cqes)
		sg.pushed.Load() // orders the batches' bookkeeping before this read of it (see native)
		if k == 0 {
			if ran {
				// Let the goroutines the Dones readied run and submit first:
				// their requests then ride on the enter below.
				runtime.Gosched()
				ran = false
				continue
			}
			mu.Lock()
			if woken && !closing {
				a.core.woken(seg, false)
			}
			woken = false
			if p, _ := a.drain(seg, id, &sg.ended); p > 0 {
				placed = true
			}
			if n.plug || placed {
				sg.left += a.issueLocked(seg)
				placed = false
			}
			sg.left += a.armIdle(seg, closing)
			left := sg.left
			sg.left, sg.awake = 0, false
			pushed := sg.pushed.Load()
			mu.Unlock()
			a.deliverEnded(sg, deliverer, &g)
			if closing && reaped == pushed && left == 0 {
				break
			}
			a.wait(r, left)
			woken = true
			continue
		}
		reaped += uint64(k)
		mu.Lock()
		sg.awake = true // running: submissions are left to it until it waits again
		mu.Unlock()
		// Results first, without the lock: a failed or short batch may need
		// a synchronous rest, and a test's fault hook may block.
		reqs, slots, errs, ns := sg.reqs[:0], sg.slots[:0], sg.errs, sg.ns
		type done struct{ start, end, failed, canceled int }
		var batches [64]done // most rounds; more spill to the heap
		bs := batches[:0]
		timers := 0 // the timer's CQEs and its removal's
		for _, c := range sg.cqes[:k] {
			if c.userData == nativeCloseMark {
				closing = true
				continue
			}
			if c.userData&nativeTimerMark != 0 {
				timers++
				continue
			}
			if c.userData&nativeCancelMark != 0 {
				continue // the batch's own CQE says what the cancel did
			}
			start := len(reqs)
			first := int(uint32(c.userData)) - 1
			fs := &n.slots[first]
			for sl := int32(first); sl >= 0; sl = n.slots[sl].next {
				reqs = append(reqs, n.slots[sl].req)
				slots = append(slots, int(sl))
			}
			failed, canceled := n.result(fs, c.res, reqs[start:], errs[start:len(reqs)], ns[start:len(reqs)])
			bs = append(bs, done{start, len(reqs), failed, canceled})
		}
		mu.Lock()
		if woken && !closing && k > timers {
			a.core.woken(seg, true) // a wake while closing is not counted, as HandlerCycle.Next; nor the idle timer's
		}
		// What was left to it during the last round: submitted after this
		// round's Done calls, so that a stream of completions that never
		// lets the CQ empty does not hold it back.
		carry := sg.left
		sg.left = 0
		sg.inKernel -= k - timers
		if timers > 0 {
			a.idleExpired(seg)
		}
		if closing && sg.timer && !sg.timerRemoved {
			// Close should not wait out the timer.
			sg.timerRemoved = true
			a.pushSQE(r, &uringSQE{opcode: uringOpTimeoutRemove, addr: nativeTimerMark,
				userData: nativeTimerMark | nativeCancelMark})
			sg.pushed.Add(1)
			carry++
		}
		for _, d := range bs {
			fs := &n.slots[slots[d.start]]
			if fs.iov != nil {
				clear(fs.iov) // the buffers' pointers: let them go
				sg.iovFree = append(sg.iovFree, fs.iov)
				fs.iov = nil
			}
			if fs.file >= 0 {
				sg.files.release(fs.file)
				fs.file = -1
			}
			fs.inKernel = false
			for _, sl := range slots[d.start:d.end] {
				n.slots[sl].req = nil
			}
			a.core.completeSlots(seg, slots[d.start:d.end], d.failed, d.canceled)
		}
		if p, _ := a.drain(seg, id, &sg.ended); p > 0 {
			placed = true
		}
		a.full[id].signal(len(slots)) // os_event_set(array->not_full), as the simulated handler
		mu.Unlock()
		woken = false
		if len(reqs) > 0 && g == 0 {
			g = goroutineID()
		}
		for i, req := range reqs {
			err := errs[i]
			errs[i] = nil
			a.deliver(deliverer, g, req, ns[i], err)
		}
		a.deliverEnded(sg, deliverer, &g)
		ran = len(reqs) > 0
		if carry > 0 {
			a.enterRing(r, carry)
		}
		clear(reqs)
		sg.reqs, sg.slots = reqs[:0], slots[:0]
	}
	mu.Lock()
	sg.gone = true
	mu.Unlock()
	r.close()
}

// armIdle pushes the idle timer, under seg's lock, when the ring is about
// to be idle (nothing in the kernel, nothing pushed) with files in its
// table, and returns the SQEs pushed (0 or 1) for the handler's wait to
// submit. Once closing, it pushes none.
func (a *Array) armIdle(seg int, closing bool) int {
	sg := &a.native.segs[seg]
	if closing || sg.timer || sg.inKernel > 0 || sg.left > 0 || !sg.files.filled() {
		return 0
	}
	sg.timer = true
	sg.timeout = unix.NsecToTimespec(int64(idleEmpty))
	a.pushSQE(sg.ring, &uringSQE{opcode: uringOpTimeout, addr: uint64(uintptr(unsafe.Pointer(&sg.timeout))),
		len: 1, userData: nativeTimerMark})
	sg.pushed.Add(1)
	return 1
}

// idleExpired handles a CQE of the idle timer or of its removal, under
// seg's lock: if the ring is still idle, the file table is emptied (the
// timer's purpose).
func (a *Array) idleExpired(seg int) {
	sg := &a.native.segs[seg]
	if !sg.timer {
		return // the other of the timer's and its removal's CQEs
	}
	sg.timer = false
	if sg.inKernel == 0 && a.core.Waiting(seg) == 0 {
		sg.files.emptyAll()
	}
}

// deliverEnded completes the requests the handler took out of the overflow
// queue with their context ended.
func (a *Array) deliverEnded(sg *nativeSeg, d *atomic.Uint64, g *uint64) {
	if len(sg.ended) == 0 {
		return
	}
	if *g == 0 {
		*g = goroutineID()
	}
	for i, e := range sg.ended {
		sg.ended[i] = endedRequest{}
		a.deliver(d, *g, e.r, 0, e.err)
	}
	sg.ended = sg.ended[:0]
}

// wait is the handler's io_uring_enter: it submits the k SQEs left to it
// and waits for at least one completion, in one call. The SQEs are consumed
// before the wait, so an interrupted wait (EINTR) has consumed them, and the
// call's count says so; EAGAIN and EBUSY consume nothing.
func (a *Array) wait(r *ring, k int) {
	for {
		got, errno := r.enter(uint32(k), 1, uringEnterGetEvents)
		a.native.enters.Add(1)
		switch errno {
		case 0:
			if k -= min(max(got, 0), k); k == 0 || got <= 0 {
				return
			}
		case unix.EINTR:
			if k == 0 {
				return
			}
		case unix.EAGAIN, unix.EBUSY:
			runtime.Gosched()
		default:
			panic(fmt.Sprintf("aio: io_uring_enter to submit %d and wait: %v", k, errno))
		}
	}
}

// result sets errs[i] and ns[i] for each request of the batch whose first
// slot is fs and whose CQE result is res (bytes, or a negated errno), and
// returns the numbers that failed and that were canceled. A short transfer
// that is not the end of the file (res > 0), and a request the kernel
// canceled or interrupted on its own, are finished synchronously, as
// FileBackend would do them whole; a read that ends at the end of the file
// fails with io.ErrUnexpectedEOF, a write with io.ErrShortWrite. A batch
// whose cancel (cancelIssued) stopped it before it began is canceled; one it
// stopped part way fails with the context's error.
func (n *native) result(fs *nativeSlot, res int32, reqs []*Request, errs []error, ns []int) (failed, canceled int) {
	var err error
	done := int64(0)
	stopped := false // by the batch's own cancel
	switch {
	case fs.err != nil:
		err = fs.err
	case res >= 0:
		done = int64(res)
		stopped = fs.cancel.Load() && done < fs.length
	default:
		switch errno := unix.Errno(-res); {
		case (errno == unix.ECANCELED || errno == unix.EINTR) && fs.cancel.Load():
			stopped = true
		case errno == unix.EINTR || errno == unix.EAGAIN || errno == unix.ECANCELED:
			// The kernel gave the request back (its submitting thread
			// exited, say): do it here.
			if fs.op.isSync() {
				n.syncCalls.Add(1)
				err = syncFile(FileBackend{}, fs.op, reqs[0].File)
				res = 0
			}
		default:
			err = pathError(fs.op, reqs[0].File, errno)
		}
	}
	if stopped {
		off := int64(0)
		for i, r := range reqs {
			ns[i] = int(min(max(done-off, 0), int64(len(r.Buf))))
			off += int64(len(r.Buf))
			if done == 0 {
				canceled++
				errs[i] = canceledError(r, true)
			} else {
				failed++
				errs[i] = ioError(fs.op, r, canceledCause(r))
			}
		}
		return failed, canceled
	}
	if f := n.faults.Load(); f != nil && err == nil {
		if ferr := (*f)(res); ferr != nil {
			err, done = ferr, 0
		}
	}
	if err == nil && done < fs.length && (done > 0 || res < 0) {
		n.syncCalls.Add(1)
		more, rerr := finishSync(fs.op, reqs, fs.offset, done)
		done += int64(more)
		if rerr != nil && !errors.Is(rerr, io.EOF) {
			err = rerr
		}
	}
	off := int64(0)
	for i, r := range reqs {
		ns[i] = int(min(max(done-off, 0), int64(len(r.Buf))))
		off += int64(len(r.Buf))
		if err != nil || off > done {
			failed++
			if fs.op.isSync() {
				errs[i] = fmt.Errorf("aio: %s: %w", fs.op, err)
			} else {
				errs[i] = ioError(fs.op, r, err)
			}
		}
	}
	return failed, 0
}

// canceledCause is the error of r's context, for a request stopped part way.
func canceledCause(r *Request) error {
	if r.ctx != nil && r.ctx.Err() != nil {
		return r.ctx.Err()
	}
	return unix.ECANCELED
}

// finishSync transfers the part of a batch past its first done bytes with
// pread/pwrite (preadv/pwritev for several buffers), looping until the end or
// an error, and returns the bytes it moved.
func finishSync(op Op, reqs []*Request, off, done int64) (int, error) {
	bufs := make([][]byte, 0, len(reqs))
	skip := done
	for _, r := range reqs {
		b := r.Buf
		if skip >= int64(len(b)) {
			skip -= int64(len(b))
			continue
		}
		bufs = append(bufs, b[skip:])
		skip = 0
	}
	if len(bufs) == 0 {
		return 0, nil
	}
	f := reqs[0].File
	if op == Write {
		return FileBackend{}.WritevAt(f, bufs, off+done)
	}
	return FileBackend{}.ReadvAt(f, bufs, off+done)
}
