//go:build !linux

package live

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// supported reports whether live runs work here: they read /proc, so Linux only.
const supported = false

var errUnsupported = errors.New("live: needs Linux (/proc/PID/stat, process groups)")

func ownGroup(*exec.Cmd)                         {}
func killGroup(int, syscall.Signal) error        { return errUnsupported }
func processCPU(int) (time.Duration, error)      { return 0, errUnsupported }
func parseStatCPU(string) (time.Duration, error) { return 0, errUnsupported }
func raiseOpenFiles() (uint64, error)            { return 0, errUnsupported }
func maxRSS(*os.ProcessState) int64              { return 0 }
func processRSS(int) (int64, error)              { return 0, errUnsupported }
func parseStatusRSS(string) (int64, error)       { return 0, errUnsupported }
func pinTasks(int) (int, error)                  { return 0, errUnsupported }
func processIdentity(int) (string, error)        { return "", errUnsupported }
func processesOf(string) []int                   { return nil }

func runPinned(context.Context, int, []string, string, ...string) ([]byte, error) {
	return nil, errUnsupported
}
