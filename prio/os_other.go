//go:build !linux

package prio

// System returns the operating system's priority calls: on Linux, the system calls
// through golang.org/x/sys/unix; elsewhere, a layer whose every call fails with
// ErrNotSupported.
func System() OS { return unsupportedOS{} }

// unsupportedOS refuses everything: innosim applies priorities only on Linux, where
// nice is per thread. (On macOS and the BSDs setpriority(PRIO_PROCESS) names a whole
// process, which would change every goroutine's priority at once.)
type unsupportedOS struct{}

func (unsupportedOS) Gettid() int                          { return 0 }
func (unsupportedOS) Getpriority(int) (int, error)         { return 0, ErrNotSupported }
func (unsupportedOS) Setpriority(int, int) error           { return ErrNotSupported }
func (unsupportedOS) Getscheduler(int) (Class, int, error) { return 0, 0, ErrNotSupported }
func (unsupportedOS) Setscheduler(int, Class, int) error   { return ErrNotSupported }
func (unsupportedOS) Setparam(int, int) error              { return ErrNotSupported }
