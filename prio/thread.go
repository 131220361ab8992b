package prio

import (
	"fmt"
	"runtime"
)

// Thread is the calling goroutine's OS thread, locked to it, with the scheduling
// state it had when locked (its base) and the state the Applier has put it in
// since. Linux applies nice and scheduling class per thread, so a hint applied
// here affects only this goroutine's work — as long as it stays locked.
//
// A Thread must be used only by the goroutine that locked it, and not concurrently.
// Threads the Go runtime creates later never inherit a changed priority: the
// runtime starts new threads from a clean template thread whenever the creating
// thread is locked (runtime.newm).
type Thread struct {
	a      *Applier
	os     OS
	tid    int
	base   State // the state when locked; what Restore returns to
	state  State // the state in force, as set by successful calls
	locked bool  // LockOSThread is in force and Unlock still owes the matching UnlockOSThread
	done   bool  // Unlock or Release was called: the Thread may no longer make calls
}

// Lock locks the calling goroutine to its OS thread (runtime.LockOSThread) and reads
// the thread's scheduling state back from the kernel, two system calls, except
// under PolicyOff, which makes none. If the state cannot be read (ErrNotSupported
// off Linux), Lock unlocks again and returns the error wrapping *OSError.
func (a *Applier) Lock() (*Thread, error) {
	runtime.LockOSThread()
	t := &Thread{a: a, os: a.os(), locked: true}
	if a.cfg.Policy == PolicyOff {
		return t, nil
	}
	t.tid = t.os.Gettid()
	s, err := ReadState(t.os, t.tid)
	if err != nil {
		runtime.UnlockOSThread()
		return nil, err
	}
	t.base, t.state = s, s
	return t, nil
}

// Tid returns the thread's kernel id, or 0 under PolicyOff (which never asks).
func (t *Thread) Tid() int { return t.tid }

// State returns the scheduling state in force on the thread as far as this Thread
// knows: its base, changed by every call the OS accepted. A refused call changes
// nothing, so after an EACCES from setpriority State still shows the nice actually
// in force. Read asks the kernel instead.
func (t *Thread) State() State { return t.state }

// Base returns the state the thread had when it was locked.
func (t *Thread) Base() State { return t.base }

// Read asks the kernel for the thread's state (two system calls) — the check that
// a change took effect. It does not change what State returns.
func (t *Thread) Read() (State, error) {
	if t.a.cfg.Policy == PolicyOff {
		return State{}, fmt.Errorf("prio: Read under policy off: %w", ErrNotSupported)
	}
	return ReadState(t.os, t.tid)
}

// Apply applies hint h to the thread under the Applier's policy, as Policy.Plan
// decides, and returns the state in force afterwards. At most one system call.
// A refusal is returned as an error wrapping *OSError (errors.Is works with
// unix.EPERM, unix.EACCES, unix.EINVAL), and the state is unchanged — the thread
// keeps working at the priority it had.
//
// A hint outside Idle..Interrupt is an error wrapping ErrInvalidConfig, and no
// call is made (Hint.Nice would clamp it to the nearest level; Apply does not
// guess).
//
// After Unlock or Release, Apply returns ErrReleased and makes no call: the thread
// may by then be running another goroutine.
func (t *Thread) Apply(h Hint) (State, error) {
	if t.done {
		return t.state, ErrReleased
	}
	if !h.Valid() {
		return t.state, errHint(h)
	}
	c, ok := t.a.cfg.Policy.Plan(h, t.state, t.a.cfg.Downward)
	if !ok {
		t.a.skipped.Add(1)
		return t.state, nil
	}
	return t.state, t.do(c)
}

func (t *Thread) do(c Change) error {
	t.a.calls.Add(1)
	if err := do(t.os, t.tid, c); err != nil {
		t.a.failed.Add(1)
		return err
	}
	t.state = c.Apply(t.state)
	return nil
}

// Restore returns the thread to its base state with the calls of RestorePlan (none
// if nothing changed). It stops at the first refusal and returns it; State then
// shows what is still in force. Under PolicyOff it does nothing. After Unlock or
// Release it returns ErrReleased.
func (t *Thread) Restore() error {
	if t.done {
		return ErrReleased
	}
	for _, c := range RestorePlan(t.state, t.base) {
		if err := t.do(c); err != nil {
			return err
		}
	}
	return nil
}

// Unlock restores the thread and unlocks the goroutine from it
// (runtime.UnlockOSThread). If restoring fails, the goroutine stays locked and the
// error is returned: the thread then ends when the goroutine does, so a priority
// never leaks to other goroutines. Unlock on an unlocked Thread does nothing.
func (t *Thread) Unlock() error {
	if t.done {
		return nil
	}
	if err := t.Restore(); err != nil {
		return fmt.Errorf("prio: thread %d kept locked to its goroutine: %w", t.tid, err)
	}
	t.done, t.locked = true, false
	runtime.UnlockOSThread()
	return nil
}

// Release unlocks nothing and restores nothing: the goroutine stays locked and its
// thread ends with it (as runtime.LockOSThread documents for a goroutine that exits
// locked). For a goroutine that applies a hint once and then exits — a background
// worker under the Downward option, say — it saves the restoring calls.
func (t *Thread) Release() { t.done = true }

// errHint is the error for a hint outside Idle..Interrupt.
func errHint(h Hint) error {
	return fmt.Errorf("prio: Hint = %d, want %d..%d (idle..interrupt): %w", h, Idle, Interrupt, ErrInvalidConfig)
}
