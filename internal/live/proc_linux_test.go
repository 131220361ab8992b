package live

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

func TestParseStatCPUCountsFromTheLastParen(t *testing.T) {
	// a command name with a space and a ')' in it, utime 250 and stime 50 ticks
	stat := "1234 (my d) x) S 1 1234 1234 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 30 0 100 0 0"
	d, err := parseStatCPU(stat)
	require.NoError(t, err)
	assert.Equal(t, 3*time.Second, d)
	_, err = parseStatCPU("1234 (x) S 1 2")
	assert.Error(t, err, "a line cut short")
	_, err = parseStatCPU("no parens")
	assert.Error(t, err)
}

func TestProcessCPUReadsThisProcess(t *testing.T) {
	d, err := processCPU(os.Getpid())
	require.NoError(t, err)
	assert.GreaterOrEqual(t, d, time.Duration(0))
}

func TestParseStatusRSSReadsVmRSSInBytes(t *testing.T) {
	n, err := parseStatusRSS("Name:\tmariadbd\nVmHWM:\t  99999 kB\nVmRSS:\t  123456 kB\nThreads:\t12\n")
	require.NoError(t, err)
	assert.Equal(t, int64(123456*1024), n)
	_, err = parseStatusRSS("Name:\tx\n")
	assert.ErrorContains(t, err, "no VmRSS line")
	_, err = parseStatusRSS("VmRSS:\t12 MB\n")
	assert.ErrorContains(t, err, "want VmRSS: <n> kB")
}

func TestSampleRSSReportsThisProcessAfterStop(t *testing.T) {
	stop, peak := make(chan struct{}), make(chan int64, 1)
	go sampleRSS(os.Getpid(), stop, peak)
	close(stop)
	assert.Greater(t, <-peak, int64(0), "the first sample is taken at once")
}

func TestMaxRSSOfAFinishedChild(t *testing.T) {
	_, u, err := runGroupUsage(t.Context(), nil, "/bin/sh", "-c", "true")
	require.NoError(t, err)
	assert.Greater(t, u.maxRSS, int64(0))
}

func TestRunPinnedRunsOnTheCPUGiven(t *testing.T) {
	var own unix.CPUSet
	require.NoError(t, unix.SchedGetaffinity(0, &own))
	cpu := 0
	for !own.IsSet(cpu) {
		cpu++
	}
	out, err := runPinned(context.Background(), cpu, []string{"INNOSIM_PROBE=yes"}, "/bin/sh", "-c", "grep Cpus_allowed_list /proc/self/status; echo $INNOSIM_PROBE")
	require.NoError(t, err)
	assert.Regexp(t, fmt.Sprintf(`Cpus_allowed_list:\s+%d\n`, cpu), string(out))
	assert.Contains(t, string(out), "yes")
	if own.Count() == 1 {
		return
	}
	// the pinned thread never goes back to the runtime: what this process
	// starts afterwards, from any of its threads, keeps all its CPUs
	for range 20 {
		out, err := exec.Command("/bin/sh", "-c", "grep Cpus_allowed_list /proc/self/status").CombinedOutput()
		require.NoError(t, err)
		assert.NotRegexp(t, fmt.Sprintf(`Cpus_allowed_list:\s+%d\n`, cpu), string(out))
	}
}
