//go:build !linux

package aio

import (
	"fmt"
	"runtime"
	"sync/atomic"
)

// native is an Array's native state; io_uring is Linux only, so New never
// makes one here.
type native struct {
	faults atomic.Pointer[func(res int32) error]
}

func (a *Array) startNative() error { return probeNative() }

func (a *Array) issueSet(SegmentSet) {}

func (a *Array) closeNative() {}

func (n *native) ringSyscalls() uint64 { return 0 }

func (n *native) ringEnters() uint64 { return 0 }

func probeNative() error {
	return fmt.Errorf("aio: IO = native on %s: io_uring is Linux only: %w", runtime.GOOS, ErrNativeUnavailable)
}

func (a *Array) cancelIssued(seg, _ int, _ uint32, _ *Request) { a.segMu[seg].Unlock() }

func (n *native) syncCallCount() uint64 { return 0 }

func (a *Array) registerBuffers([][]byte, []int) error { return nil }
