package live

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// supported reports whether live runs work here (they read /proc).
const supported = true

// ownGroup puts the command in a process group of its own, so that
// killGroup reaches every process it starts, and ties its life to this
// process's: the kernel sends it SIGKILL when the thread that started it
// exits (prctl PR_SET_PDEATHSIG), which a SIGKILL of innosim does to every
// thread. The caller starts and waits for the command on one locked OS
// thread (startTied), so that the Go runtime cannot end that thread while
// the command runs.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// killGroup sends sig to the process group led by pid, or to pid alone
// when it leads no group. A process that has already gone is not an error.
func killGroup(pid int, sig syscall.Signal) error {
	err := syscall.Kill(-pid, sig)
	if err == syscall.ESRCH {
		err = syscall.Kill(pid, sig)
	}
	if err != nil && err != syscall.ESRCH {
		return fmt.Errorf("live: kill process group %d: %w", pid, err)
	}
	return nil
}

// userHZ is the kernel's USER_HZ, the unit of /proc/PID/stat's utime and
// stime: 100 on every Linux architecture Go supports (sysconf(_SC_CLK_TCK)).
const userHZ = 100

// processCPU returns the CPU time (utime + stime, fields 14 and 15 of
// /proc/PID/stat, proc(5)) the process pid has used so far, all its threads
// included.
func processCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, fmt.Errorf("live: server CPU: %w", err)
	}
	return parseStatCPU(string(b))
}

// parseStatCPU reads utime + stime from a /proc/PID/stat line. The command
// name (field 2) is in parentheses and may hold spaces, so fields count from
// the last ')'.
func parseStatCPU(stat string) (time.Duration, error) {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, fmt.Errorf("live: /proc stat %q: no ')' after the command name", stat)
	}
	f := strings.Fields(stat[i+1:]) // f[0] is field 3 (state)
	if len(f) < 13 {
		return 0, fmt.Errorf("live: /proc stat: %d fields after the command name, want at least 13", len(f))
	}
	var ticks uint64
	for _, s := range f[11:13] { // fields 14 (utime) and 15 (stime)
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("live: /proc stat: utime/stime %q: %w", s, err)
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / userHZ, nil
}

// maxRSS returns a finished process's peak resident set in bytes: its
// rusage's ru_maxrss, which Linux reports in KiB (getrusage(2)).
func maxRSS(ps *os.ProcessState) int64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss * 1024
	}
	return 0
}

// processRSS returns the resident set of the process pid now, in bytes: the
// VmRSS line of /proc/PID/status (proc(5)).
func processRSS(pid int) (int64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, fmt.Errorf("live: server RSS: %w", err)
	}
	return parseStatusRSS(string(b))
}

// parseStatusRSS reads the VmRSS line ("VmRSS:  123456 kB") of a
// /proc/PID/status text, in bytes.
func parseStatusRSS(status string) (int64, error) {
	for _, line := range strings.Split(status, "\n") {
		rest, ok := strings.CutPrefix(line, "VmRSS:")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) != 2 || f[1] != "kB" {
			return 0, fmt.Errorf("live: /proc status line %q, want VmRSS: <n> kB", line)
		}
		n, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("live: /proc status line %q, want a count of kB", line)
		}
		return n * 1024, nil
	}
	return 0, errors.New("live: /proc status has no VmRSS line")
}

// raiseOpenFiles raises the soft RLIMIT_NOFILE to the hard limit, which this
// process and the sysbench it starts then share, and returns the limit.
// Setting it explicitly also stops os/exec from restoring the lower soft
// limit Go found at start-up in the children.
func raiseOpenFiles() (uint64, error) {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		return 0, fmt.Errorf("live: getrlimit RLIMIT_NOFILE: %w", err)
	}
	r.Cur = r.Max
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		return 0, fmt.Errorf("live: setrlimit RLIMIT_NOFILE: %w", err)
	}
	return r.Cur, nil
}

// pinTasks restricts every thread of the process pid to the first CPU this
// process may run on and returns that CPU. Threads the process creates
// later inherit it from their creator (sched_setaffinity(2)), so a server's
// connection and pool threads, made by its pinned threads, run there too.
func pinTasks(pid int) (int, error) {
	var own unix.CPUSet
	if err := unix.SchedGetaffinity(0, &own); err != nil {
		return 0, fmt.Errorf("live: sched_getaffinity: %w", err)
	}
	cpu := 0
	for !own.IsSet(cpu) {
		cpu++
	}
	var set unix.CPUSet
	set.Set(cpu)
	tasks, err := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/task")
	if err != nil {
		return 0, fmt.Errorf("live: pin the server: %w", err)
	}
	for _, t := range tasks {
		tid, err := strconv.Atoi(t.Name())
		if err != nil {
			continue
		}
		if err := unix.SchedSetaffinity(tid, &set); err != nil && err != unix.ESRCH { // ESRCH: the thread has exited
			return 0, fmt.Errorf("live: pin server thread %d to CPU %d: %w", tid, cpu, err)
		}
	}
	return cpu, nil
}

// runPinned is runGroupUsage on CPU cpu, returning the program's combined
// output. The program is started from an OS thread pinned to cpu, whose
// affinity it inherits; that thread is never handed back to the Go
// runtime, so no other goroutine runs with its affinity cut down: it exits
// with the goroutine, or, if it is the process's main thread (which Go
// never ends), stays parked for good, still pinned, running nothing.
func runPinned(ctx context.Context, cpu int, env []string, name string, args ...string) ([]byte, error) {
	type result struct {
		out []byte
		err error
	}
	done := make(chan result, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: see above
		var set unix.CPUSet
		set.Set(cpu)
		if err := unix.SchedSetaffinity(0, &set); err != nil {
			done <- result{err: fmt.Errorf("live: sched_setaffinity to CPU %d: %w", cpu, err)}
			return
		}
		out, _, err := runGroupUsage(ctx, env, name, args...)
		done <- result{out, err}
	}()
	r := <-done
	return r.out, r.err
}

// processIdentity returns "PID START" for the process pid: its id and its
// start time in clock ticks after boot (field 22 of /proc/PID/stat), which
// tells it from a later process given the same id. The error wraps
// os.ErrNotExist when there is no such process.
func processIdentity(pid int) (string, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", err
	}
	stat := string(b)
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return "", fmt.Errorf("live: /proc stat %q: no ')' after the command name", stat)
	}
	f := strings.Fields(stat[i+1:]) // f[0] is field 3
	if len(f) < 20 {
		return "", fmt.Errorf("live: /proc stat: %d fields after the command name, want at least 20", len(f))
	}
	return strconv.Itoa(pid) + " " + f[19], nil
}

// processesOf returns the ids of the processes a sweep in the private
// directory dir started: those with an argument that puts their data or
// socket there (mariadbd's and mariadb-install-db's --datadir, mariadbd's
// --socket, sysbench's --mysql-socket), this process excepted.
func processesOf(dir string) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil {
			continue
		}
		for _, arg := range strings.Split(string(b), "\x00") {
			_, path, ok := strings.Cut(arg, "=")
			flag := strings.TrimSuffix(arg, "="+path)
			if ok && (flag == "--datadir" || flag == "--socket" || flag == "--mysql-socket") && strings.HasPrefix(path, dir+string(filepath.Separator)) {
				pids = append(pids, pid)
				break
			}
		}
	}
	return pids
}
