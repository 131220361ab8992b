package live

import (
	"os/exec"
	"runtime"
)

// startTied starts cmd (made with ownGroup) from a goroutine locked to its
// OS thread, waits for it there, and sends cmd.Wait's error on waited when
// it exits. Linux delivers a process's parent-death signal when the thread
// that forked it exits, not the process (prctl(2)); the Go runtime ends a
// thread whose goroutine exits while locked to it (as runPinned's does), so
// a server forked from an unlocked goroutine could be killed by an
// unrelated goroutine's exit. Held by this goroutine until the command
// exits, the thread lives as long as the command, and dies only with
// innosim, taking the command with it.
func startTied(cmd *exec.Cmd, waited chan<- error) error {
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		waited <- cmd.Wait()
	}()
	return <-started
}

// runTied runs cmd (made with ownGroup) as cmd.Run does, with the calling
// goroutine locked to its OS thread for the whole run (see startTied). The
// command is forked from that thread, so that it inherits the thread's CPU
// affinity too (runPinned's).
func runTied(cmd *exec.Cmd) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	return cmd.Run()
}
