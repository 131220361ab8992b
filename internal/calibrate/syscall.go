//go:build unix

package calibrate

import (
	"time"

	"golang.org/x/sys/unix"
)

// syscallCost measures one getppid(2): a system call that does no work, so the
// figure is the kernel entry and exit, which is what CPU-vulnerability mitigations
// make dearer (study C). x/sys issues it as a raw system call, without the
// runtime's entersyscall bookkeeping.
func syscallCost(rounds int) (float64, error) {
	start := time.Now()
	for i := 0; i < rounds; i++ {
		unix.Getppid()
	}
	return perOp(time.Since(start), rounds), nil
}
