package concurrency

import "sync/atomic"

// atomicLoadBusy reports whether a Gate call holds t (checkThreads builds).
func atomicLoadBusy(t *Thread) bool { return atomic.LoadUint32(&t.busy) == 1 }
