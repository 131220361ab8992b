package prio

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
)

// Config configures an Applier. The zero value is valid: PolicyOff, system calls.
type Config struct {
	// Policy decides whether and how hints reach the OS. Default PolicyOff.
	Policy Policy
	// Downward, when set, skips every call that would raise a thread's priority
	// (lower its nice, take it out of SCHED_IDLE), as RocksDB's thread pool only ever
	// lowers its threads' CPU priority. Default false.
	Downward bool
	// OS is the system-call layer. Default nil: System().
	OS OS
}

// Applier applies hints to locked OS threads according to a Config, and counts the
// system calls it makes. It is safe for concurrent use; each Thread it locks belongs
// to one goroutine. The zero value is ready to use with PolicyOff.
type Applier struct {
	cfg Config

	calls   atomic.Uint64 // system calls made to change a priority (apply and restore)
	failed  atomic.Uint64 // of calls, those the OS refused
	skipped atomic.Uint64 // hints for which the policy made no call
}

// New returns an Applier for cfg. An undefined Policy is an error wrapping
// ErrInvalidConfig.
func New(cfg Config) (*Applier, error) {
	if !cfg.Policy.valid() {
		return nil, fmt.Errorf("prio: Policy = %d, want 0..%d (off, legacy, nice, idle): %w",
			uint8(cfg.Policy), len(policyNames)-1, ErrInvalidConfig)
	}
	return &Applier{cfg: cfg}, nil
}

// Policy returns the applier's policy.
func (a *Applier) Policy() Policy { return a.cfg.Policy }

func (a *Applier) os() OS {
	if a.cfg.OS == nil {
		return System()
	}
	return a.cfg.OS
}

// Stats are an Applier's counters. Failed ≤ Calls always.
type Stats struct {
	Calls   uint64 // system calls made to change a thread's priority, applying or restoring
	Failed  uint64 // of Calls, those the OS refused (EPERM, EACCES, EINVAL, ...)
	Skipped uint64 // hints the policy applied with no call (PolicyOff, already in force, downward)
}

// Stats returns the counters so far.
func (a *Applier) Stats() Stats {
	return Stats{Calls: a.calls.Load(), Failed: a.failed.Load(), Skipped: a.skipped.Load()}
}

// Do runs fn with ctx carrying hint h, on the calling goroutine, with h applied to
// its OS thread for the duration.
//
// Under PolicyOff nothing touches the OS: fn runs with the hint in its context only.
// Otherwise Do locks the goroutine to its thread, applies h, runs fn, restores the
// thread's scheduling state and unlocks. fn always runs, even if the OS refused the
// hint: a refusal is reported, never fatal. If restoring fails, the goroutine stays
// locked, so the thread ends with the goroutine (as runtime.LockOSThread documents)
// and no other goroutine inherits the priority.
//
// The goroutine itself does run on at that priority until it exits. Without
// CAP_SYS_NICE a lowered priority cannot be raised back (Linux refuses a lower
// nice, or leaving SCHED_IDLE), so on a long-lived goroutine — a connection
// handler, a worker of a pool — one Do(ctx, Background, ...) leaves every later
// piece of its work, including later Do calls (whose base is the state in force),
// at nice 10. Lower priority only on goroutines that end after the work, or
// check the error for an *OSError from the restore.
//
// If fn panics, Do restores and unlocks the thread as above before the panic goes
// on.
//
// Do returns ctx.Err() without running fn if ctx is already done, and an error
// wrapping ErrInvalidConfig without running fn if h is outside Idle..Interrupt,
// under every policy: PolicyOff too, since the hint still reaches fn's context
// and whatever the caller copies it into (aio refuses it in a Request as an
// invalid request).
// Otherwise it
// returns fn's error joined with any refusal (an error wrapping *OSError, or
// ErrNotSupported off Linux); errors.As separates the two.
func (a *Applier) Do(ctx context.Context, h Hint, fn func(context.Context) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if !h.Valid() {
		return errHint(h)
	}
	ctx = WithHint(ctx, h)
	if a.cfg.Policy == PolicyOff {
		a.skipped.Add(1)
		return fn(ctx)
	}
	t, err := a.Lock()
	if err != nil {
		return errors.Join(fn(ctx), err)
	}
	_, applyErr := t.Apply(h)
	returned := false
	defer func() {
		if !returned {
			// fn panicked: restore on the way out, so that a caller who recovers
			// (net/http does) does not run on at the hint's priority.
			_ = t.Unlock()
		}
	}()
	fnErr := fn(ctx)
	returned = true
	return errors.Join(fnErr, applyErr, t.Unlock())
}
