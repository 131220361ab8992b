package aio

// SetNativeFaults installs f as the fault hook of a native Array (tests): it
// is called on the handler thread for each completed batch with the kernel's
// result (bytes, or a negated errno), and a non-nil error fails every request
// of the batch with it, as a device error would. f may block, holding the
// batch's slots reserved. Call it before submitting; it does nothing on a
// simulated Array.
func SetNativeFaults(a *Array, f func(res int32) error) {
	if a.native != nil {
		a.native.faults.Store(&f)
	}
}

// RingEnters returns the io_uring_enter calls a native Array has made (tests:
// Stats.RingSyscalls counts io_uring_register calls beside them); 0 for a
// simulated Array.
func RingEnters(a *Array) uint64 {
	if a.native == nil {
		return 0
	}
	return a.native.ringEnters()
}
