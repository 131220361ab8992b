package prio

// OS is the system-call layer a Thread applies hints through: six calls, each but
// Gettid on one kernel thread id. System returns the real one; tests substitute a fake to
// exercise the EPERM, EACCES and EINVAL paths on any machine and as any user.
//
// Every method returns the errno as a syscall.Errno (or ErrNotSupported) so callers
// can test it with errors.Is; none retries or clamps.
type OS interface {
	// Gettid returns the calling thread's kernel id (gettid(2)). Callers lock the
	// goroutine to its thread first.
	Gettid() int
	// Getpriority returns getpriority(PRIO_PROCESS, tid) as the kernel returns it:
	// on Linux 20 − nice, so 1..40 (the C library converts; this layer does not).
	Getpriority(tid int) (int, error)
	// Setpriority calls setpriority(PRIO_PROCESS, tid, nice).
	Setpriority(tid, nice int) error
	// Getscheduler returns sched_getscheduler(tid) and the sched_priority of
	// sched_getparam(tid).
	Getscheduler(tid int) (Class, int, error)
	// Setscheduler calls sched_setscheduler(tid, class, {priority}).
	Setscheduler(tid int, class Class, priority int) error
	// Setparam calls sched_setparam(tid, {priority}), keeping the class.
	Setparam(tid, priority int) error
}

// ReadState reads a thread's scheduling state back from the kernel through os: the
// class and priority from sched_getscheduler/sched_getparam, the nice from
// getpriority (20 − raw). It makes two system calls.
func ReadState(os OS, tid int) (State, error) {
	class, prio, err := os.Getscheduler(tid)
	if err != nil {
		return State{}, &OSError{Call: "sched_getscheduler", Tid: tid, Err: err}
	}
	raw, err := os.Getpriority(tid)
	if err != nil {
		return State{}, &OSError{Call: "getpriority", Tid: tid, Err: err}
	}
	return State{Class: class, Priority: prio, Nice: 20 - raw}, nil
}

// do makes the system call c names on thread tid.
func do(os OS, tid int, c Change) error {
	var err error
	var arg int
	switch c.Call {
	case CallSetpriority:
		arg = c.Nice
		err = os.Setpriority(tid, c.Nice)
	case CallSetscheduler:
		arg = int(c.Class)
		err = os.Setscheduler(tid, c.Class, c.Priority)
	case CallSetparam:
		arg = c.Priority
		err = os.Setparam(tid, c.Priority)
	}
	if err != nil {
		return &OSError{Call: c.Call.String(), Tid: tid, Arg: arg, Err: err}
	}
	return nil
}
