package aio

import (
	"fmt"
	"runtime"
)

// Option is a setting of the real driver that InnoDB has no counterpart for
// and the simulator does not model, given to New beside the Config (which
// stays InnoDB's: the simulator runs the same Config). The zero set of
// options is InnoDB's behaviour.
type Option func(*options)

// options are the Array's Options.
type options struct {
	plug   bool
	ioprio bool
}

// WithPlug holds a native request in its slot while its segment's handler
// is running (from the moment it reaps a completion until it waits again),
// as the block layer's plug holds bios: the handler submits every request
// waiting then, picked and merged (consecutive requests of a file into one
// READV or WRITEV, syncs of a file into one), in the io_uring_enter that
// waits for its next completion, before it waits. A request that finds the
// handler waiting enters the kernel from Submit, as without it; so a
// request is never held longer than the handler's round, and under load
// most requests ride on the handler's enters: about 0.1 system calls a
// request. It needs Config.IO = IONative and Wake = WakeTargeted
// (WakeDeferred already holds requests, until Flush): New refuses it
// otherwise. Without it each request is pushed to the ring from Submit, as
// InnoDB's io_submit per request (its submission may still ride on a
// running handler's enter).
func WithPlug() Option { return func(o *options) { o.plug = true } }

// WithIOPriority carries each batch's Hint (its first request's) to its
// I/O as a Linux I/O priority, Hint.IOPrio: native AIO puts it in the SQE's
// ioprio; simulated AIO sets it on the handler thread with ioprio_set before
// the Backend call, when it changes (the handler is then locked to its OS
// thread for its life, and the thread ends with it). See prio.IOPrio for
// what each I/O scheduler does with it. A Backend that hands its I/O to
// another thread does not carry it. Linux only: elsewhere New refuses it.
func WithIOPriority() Option { return func(o *options) { o.ioprio = true } }

// check reports an option that cfg cannot honour, wrapping ErrInvalidConfig.
func (o options) check(cfg Config) error {
	switch {
	case o.plug && (cfg.IO != IONative || cfg.Wake != WakeTargeted):
		return fmt.Errorf("aio: WithPlug with IO = %s and Wake = %s, want IO = native with Wake = targeted "+
			"(plugging holds requests for the ring's next io_uring_enter): %w", cfg.IO, cfg.Wake, ErrInvalidConfig)
	case o.ioprio && !ioprioSupported:
		return fmt.Errorf("aio: WithIOPriority on %s (I/O priorities are Linux only; %w): %w",
			runtime.GOOS, ErrUnsupported, ErrInvalidConfig)
	}
	return nil
}
