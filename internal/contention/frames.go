package contention

import "strings"

// Frame is one entry of the list of futex and runtime-lock code: a function name,
// matched exactly or, when Prefix is set, as a prefix of the function name (which
// is how a whole package is listed).
type Frame struct {
	Name   string // function name as the profile records it, e.g. "runtime.lock2"
	Prefix bool   // match every function whose name starts with Name
	Why    string // why a sample through this frame is contention
}

// Frames returns the frames whose presence anywhere in a sample's stack makes the
// sample count as futex or runtime-lock time. It is a new slice on each call.
//
// The list follows the paths from Go code to the futex system call on Linux in Go
// 1.2x's runtime (lock_futex.go, os_linux.go, sema.go, internal/sync/mutex.go) and
// in this module's internal/futex.
func Frames() []Frame {
	return []Frame{
		{Name: "runtime.futex", Why: "the futex system call itself (sys_linux_*.s)"},
		{Name: "runtime.futexsleep", Why: "FUTEX_WAIT for runtime notes and locks"},
		{Name: "runtime.futexwakeup", Why: "FUTEX_WAKE for runtime notes and locks"},
		{Name: "runtime.lock2", Why: "runtime mutex acquire: spin, osyield, then futexsleep"},
		{Name: "runtime.unlock2", Why: "runtime mutex release, futexwakeup when contended"},
		{Name: "runtime.lockWithRank", Why: "runtime mutex entry point (lock ranking builds)"},
		{Name: "runtime.semacquire1", Why: "semaphore sleep behind contended sync.Mutex and WaitGroup"},
		{Name: "runtime.semrelease1", Why: "semaphore wake behind sync.Mutex.Unlock with waiters"},
		{Name: "sync.runtime_SemacquireMutex", Why: "sync.Mutex slow path into the runtime semaphore"},
		{Name: "sync.runtime_Semrelease", Why: "sync.Mutex unlock slow path into the runtime semaphore"},
		{Name: "internal/sync.runtime_SemacquireMutex", Why: "the same slow path, Go 1.24 and later"},
		{Name: "internal/sync.runtime_Semrelease", Why: "the same unlock slow path, Go 1.24 and later"},
		{Name: "sync.(*Mutex).lockSlow", Why: "contended sync.Mutex (before Go 1.24 moved it)"},
		{Name: "sync.(*Mutex).unlockSlow", Why: "sync.Mutex unlock with waiters (before Go 1.24)"},
		{Name: "sync.(*RWMutex).RLock", Why: "RWMutex reader slow path blocks in the semaphore"},
		{Name: "internal/sync.(*Mutex).lockSlow", Why: "contended sync.Mutex (Go 1.24 and later)"},
		{Name: "internal/sync.(*Mutex).unlockSlow", Why: "sync.Mutex unlock with waiters (Go 1.24 and later)"},
		{Name: "github.com/innosim/innosim/internal/futex.futex", Prefix: true,
			Why: "raw FUTEX_WAIT / FUTEX_WAKE through golang.org/x/sys/unix.Syscall6 in futex.Event"},
	}
}

// matcher answers whether a function name is one of the frames.
type matcher struct {
	exact    map[string]bool
	prefixes []string
}

func newMatcher(frames []Frame) matcher {
	m := matcher{exact: make(map[string]bool, len(frames))}
	for _, f := range frames {
		if f.Prefix {
			m.prefixes = append(m.prefixes, f.Name)
		} else {
			m.exact[f.Name] = true
		}
	}
	return m
}

func (m matcher) match(name string) bool {
	if m.exact[name] {
		return true
	}
	for _, p := range m.prefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}
