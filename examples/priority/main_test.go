//go:build linux

package main

import (
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/innosim/innosim/internal/mainexec"
	"github.com/innosim/innosim/prio"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

func TestMain(m *testing.M) { mainexec.Main(m, main) }

// A stray argument is refused before anything runs; main used to ignore it
// and run with the flags alone.
func TestMainRefusesAStrayArgument(t *testing.T) {
	out, status := mainexec.Run(t, "-duration", "1ms", "extra")
	assert.Equal(t, 2, status, out)
	assert.Contains(t, out, `unexpected argument "extra"`)
}

// A bad flag is refused naming that flag and its range, not with one message
// for the three.
func TestMainRefusesAFlagOutOfRange(t *testing.T) {
	for flag, want := range map[string]string{
		"-duration":  "priority: -duration 0s, want > 0",
		"-query":     "priority: -query 0s, want > 0",
		"-roundtrip": "priority: -roundtrip -1s, want ≥ 0",
	} {
		val := "0"
		if flag == "-roundtrip" {
			val = "-1s"
		}
		out, status := mainexec.Run(t, "-duration", "1ms", flag, val)
		assert.Equal(t, 1, status, out)
		assert.Contains(t, out, want, flag)
	}
}

// unprivilegedOS is a kernel with Linux's rule for a user without CAP_SYS_NICE
// or an RLIMIT_NICE allowance: a thread's nice may go up, never back down.
type unprivilegedOS struct {
	mu   sync.Mutex
	nice map[int]int
}

func (o *unprivilegedOS) Gettid() int { return unix.Gettid() }

func (o *unprivilegedOS) Getpriority(tid int) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return 20 - o.nice[tid], nil
}

func (o *unprivilegedOS) Setpriority(tid, nice int) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if nice < o.nice[tid] {
		return syscall.EACCES
	}
	o.nice[tid] = nice
	return nil
}

func (o *unprivilegedOS) Getscheduler(int) (prio.Class, int, error) { return prio.ClassOther, 0, nil }
func (o *unprivilegedOS) Setscheduler(int, prio.Class, int) error   { return syscall.EPERM }
func (o *unprivilegedOS) Setparam(int, int) error                   { return syscall.EINVAL }

// TestRunWithoutPrivilege: without CAP_SYS_NICE the Query hint is refused and the
// background threads cannot be restored from nice 10 at the end. The README says
// the run goes on and reports the refusals; it must not abort.
func TestRunWithoutPrivilege(t *testing.T) {
	tests := []struct {
		name   string
		policy prio.Policy
	}{
		{"nice", prio.PolicyNice},
		{"legacy", prio.PolicyLegacy},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// run works for d of wall time, and on a busy machine its one
			// query thread may not finish a query in 20 ms (0 queries, 0
			// refused, 1 run in 100 under -race): double d until it does.
			var r result
			for d := 20 * time.Millisecond; r.queries == 0 && d <= 10*time.Second; d *= 2 {
				fos := &unprivilegedOS{nice: map[int]int{}}
				var err error
				r, err = run(prio.Config{Policy: tt.policy, OS: fos}, 1, 1, 1000, 0, d)
				require.NoError(t, err)
			}
			assert.Positive(t, r.queries)
			assert.Positive(t, r.refused, "the refused calls are counted")
		})
	}
}
