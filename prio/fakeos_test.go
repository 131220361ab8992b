package prio_test

import (
	"github.com/innosim/innosim/prio"
	"syscall"
)

// fakeOS is a kernel with Linux's rules for one user, in memory: lowering nice or
// leaving SCHED_IDLE needs privilege (EACCES / EPERM without it), SCHED_OTHER and
// SCHED_IDLE take only priority 0 (EINVAL), and any call can be made to fail.
type fakeOS struct {
	privileged bool
	threads    map[int]prio.State
	fail       map[string]error // call name → error to return instead
	calls      []string
}

func newFakeOS(privileged bool) *fakeOS {
	return &fakeOS{privileged: privileged, threads: map[int]prio.State{}, fail: map[string]error{}}
}

const fakeTid = 4242

func (f *fakeOS) Gettid() int { return fakeTid }

func (f *fakeOS) record(call string) error {
	f.calls = append(f.calls, call)
	return f.fail[call]
}

func (f *fakeOS) Getpriority(tid int) (int, error) {
	if err := f.record("getpriority"); err != nil {
		return 0, err
	}
	return 20 - f.threads[tid].Nice, nil
}

func (f *fakeOS) Setpriority(tid, nice int) error {
	if err := f.record("setpriority"); err != nil {
		return err
	}
	s := f.threads[tid]
	if nice < s.Nice && !f.privileged {
		return syscall.EACCES // Linux: lowering nice without CAP_SYS_NICE or RLIMIT_NICE
	}
	s.Nice = min(max(nice, prio.MinNice), prio.MaxNice)
	f.threads[tid] = s
	return nil
}

func (f *fakeOS) Getscheduler(tid int) (prio.Class, int, error) {
	if err := f.record("sched_getscheduler"); err != nil {
		return 0, 0, err
	}
	s := f.threads[tid]
	return s.Class, s.Priority, nil
}

func (f *fakeOS) Setscheduler(tid int, class prio.Class, priority int) error {
	if err := f.record("sched_setscheduler"); err != nil {
		return err
	}
	s := f.threads[tid]
	if priority != 0 && (class == prio.ClassOther || class == prio.ClassIdle || class == prio.ClassBatch) {
		return syscall.EINVAL
	}
	if s.Class == prio.ClassIdle && class != prio.ClassIdle && !f.privileged {
		return syscall.EPERM // leaving SCHED_IDLE needs privilege (or RLIMIT_NICE)
	}
	s.Class, s.Priority = class, priority
	f.threads[tid] = s
	return nil
}

func (f *fakeOS) Setparam(tid, priority int) error {
	if err := f.record("sched_setparam"); err != nil {
		return err
	}
	s := f.threads[tid]
	if priority != 0 && (s.Class == prio.ClassOther || s.Class == prio.ClassIdle || s.Class == prio.ClassBatch) {
		return syscall.EINVAL // SCHED_OTHER accepts only priority 0
	}
	s.Priority = priority
	f.threads[tid] = s
	return nil
}
