//go:build linux

package prio_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/innosim/innosim/prio"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// lockReal locks the test goroutine to its thread under policy p with the real
// system calls, and arranges for the thread to be restored (or, if that fails,
// to end with the goroutine).
func lockReal(t *testing.T, p prio.Policy) (*prio.Applier, *prio.Thread) {
	t.Helper()
	a, err := prio.New(prio.Config{Policy: p})
	require.NoError(t, err)
	th, err := a.Lock()
	require.NoError(t, err)
	t.Cleanup(func() {
		err := th.Unlock()
		switch {
		case err == nil:
		case errors.Is(err, unix.EACCES) || errors.Is(err, unix.EPERM):
			// Without CAP_SYS_NICE a lowered priority cannot be raised back:
			// expected, and the tests that meet it skip. The thread ends with
			// the goroutine.
			th.Release()
		default:
			t.Errorf("restore: %v", err)
			th.Release()
		}
	})
	return a, th
}

// The kernel must report a lowered priority (a raised nice) both through
// getpriority (raw value 20 − nice) and in /proc/self/task/TID/stat field 19, and
// take it back on restore. Lowering priority needs no privilege, so this runs as
// any user.
func TestRealNiceIsReportedByTheKernel(t *testing.T) {
	_, th := lockReal(t, prio.PolicyNice)
	base := th.Base()
	if base.Class != prio.ClassOther || base.Nice > prio.Background.Nice()-1 {
		t.Skipf("thread starts at %v nice %d; need SCHED_OTHER below nice %d", base.Class, base.Nice, prio.Background.Nice())
	}
	s, err := th.Apply(prio.Background)
	require.NoError(t, err)
	require.Equal(t, prio.Background.Nice(), s.Nice)

	raw, err := prio.System().Getpriority(th.Tid())
	require.NoError(t, err)
	assert.Equal(t, 20-prio.Background.Nice(), raw, "getpriority raw value is 20 - nice")
	stat, err := prio.StatNice(th.Tid())
	require.NoError(t, err)
	assert.Equal(t, prio.Background.Nice(), stat, "/proc stat field 19")

	if err := th.Restore(); err != nil {
		if errors.Is(err, unix.EACCES) || errors.Is(err, unix.EPERM) {
			t.Skipf("OS refuses to restore the nice (no CAP_SYS_NICE or RLIMIT_NICE): %v", err)
		}
		require.NoError(t, err)
	}
	got, err := th.Read()
	require.NoError(t, err)
	assert.Equal(t, base, got, "restored")
	stat, err = prio.StatNice(th.Tid())
	require.NoError(t, err)
	assert.Equal(t, base.Nice, stat, "/proc stat after restore")
}

// MySQL 5.1's calls on Linux: SCHED_OTHER takes only priority 0, so the kernel
// refuses with EINVAL and nothing changes.
func TestRealLegacyIsRefusedWithEINVAL(t *testing.T) {
	_, th := lockReal(t, prio.PolicyLegacy)
	if th.Base().Class != prio.ClassOther {
		t.Skipf("thread runs in %v, not SCHED_OTHER", th.Base().Class)
	}
	for _, h := range []prio.Hint{prio.Query, prio.Wait} {
		_, err := th.Apply(h)
		assert.True(t, errors.Is(err, unix.EINVAL), "%v: got %v", h, err)
	}
	got, err := th.Read()
	require.NoError(t, err)
	assert.Equal(t, th.Base(), got, "kernel state unchanged")
}

func TestRealIdleClass(t *testing.T) {
	_, th := lockReal(t, prio.PolicyIdle)
	if th.Base().Class != prio.ClassOther {
		t.Skipf("thread runs in %v, not SCHED_OTHER", th.Base().Class)
	}
	_, err := th.Apply(prio.Background)
	require.NoError(t, err)
	got, err := th.Read()
	require.NoError(t, err)
	assert.Equal(t, prio.ClassIdle, got.Class)
	assert.Equal(t, th.Base().Nice, got.Nice, "SCHED_IDLE keeps the nice")
	if err := th.Restore(); err != nil {
		if errors.Is(err, unix.EPERM) {
			t.Skipf("OS refuses to leave SCHED_IDLE: %v", err)
		}
		require.NoError(t, err)
	}
	got, err = th.Read()
	require.NoError(t, err)
	assert.Equal(t, th.Base(), got)
}

func TestParseStatNice(t *testing.T) {
	tail := " S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 20 %s 1 0 100 0 0"
	tests := []struct {
		name    string
		line    string
		want    int
		wantErr bool
	}{
		{"plain name", "4242 (innosim)" + sprintf(tail, "-5"), -5, false},
		{"name with spaces and parens", "4242 (a) b (c))" + sprintf(tail, "10"), 10, false},
		{"no name", "4242 innosim S", 0, true},
		{"truncated", "4242 (x) S 1 2", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := prio.ParseStatNice([]byte(tt.line))
			if tt.wantErr {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func sprintf(format, s string) string { return fmt.Sprintf(format, s) }
