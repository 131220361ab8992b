package prio_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"

	"github.com/innosim/innosim/prio"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"syscall"
)

func newApplier(t *testing.T, p prio.Policy, fos prio.OS, downward bool) *prio.Applier {
	t.Helper()
	a, err := prio.New(prio.Config{Policy: p, OS: fos, Downward: downward})
	require.NoError(t, err)
	return a
}

// query runs one MySQL 5.1-style query on t: the query hint on entry, the wait
// hint on exit, returning both errors.
func query(t *prio.Thread) (enter, exit error) {
	_, enter = t.Apply(prio.Query)
	_, exit = t.Apply(prio.Wait)
	return enter, exit
}

func TestLegacyFailsWithEINVALAndChangesNothing(t *testing.T) {
	fos := newFakeOS(true)
	a := newApplier(t, prio.PolicyLegacy, fos, false)
	th, err := a.Lock()
	require.NoError(t, err)
	const queries = 3
	for range queries {
		enter, exit := query(th)
		for _, err := range []error{enter, exit} {
			require.Error(t, err)
			assert.True(t, errors.Is(err, syscall.EINVAL), "got %v", err)
			var oe *prio.OSError
			require.True(t, errors.As(err, &oe))
			assert.Equal(t, "sched_setparam", oe.Call)
		}
	}
	assert.Equal(t, prio.State{}, th.State(), "state in force")
	assert.Equal(t, prio.State{}, fos.threads[fakeTid], "kernel state")
	require.NoError(t, th.Unlock())
	assert.Equal(t, prio.Stats{Calls: 2 * queries, Failed: 2 * queries}, a.Stats(), "two calls per query, all refused")
}

func TestNiceRaiseWithoutPrivilegeIsRefusedAndReported(t *testing.T) {
	fos := newFakeOS(false)
	a := newApplier(t, prio.PolicyNice, fos, false)
	th, err := a.Lock()
	require.NoError(t, err)

	s, err := th.Apply(prio.Query)
	assert.True(t, errors.Is(err, syscall.EACCES), "got %v", err)
	assert.True(t, errors.Is(err, os.ErrPermission), "an EACCES is a permission error")
	assert.Equal(t, 0, s.Nice, "the nice actually in force")
	got, err := th.Read()
	require.NoError(t, err)
	assert.Equal(t, 0, got.Nice, "kernel unchanged")

	s, err = th.Apply(prio.Background)
	require.NoError(t, err, "lowering needs no privilege")
	assert.Equal(t, 10, s.Nice)

	// Restoring means lowering nice from 10 back to 0: refused again, so the thread
	// stays locked and Unlock says so.
	err = th.Unlock()
	assert.True(t, errors.Is(err, syscall.EACCES), "got %v", err)
	assert.Contains(t, err.Error(), "kept locked")
	assert.Equal(t, 10, th.State().Nice)
	th.Release() // let this test goroutine's thread end with it
	assert.Equal(t, prio.Stats{Calls: 3, Failed: 2}, a.Stats())
}

func TestNiceAppliedAndRestoredWithPrivilege(t *testing.T) {
	fos := newFakeOS(true)
	fos.threads[fakeTid] = prio.State{Nice: 2} // a thread that started at nice 2
	a := newApplier(t, prio.PolicyNice, fos, false)
	th, err := a.Lock()
	require.NoError(t, err)
	assert.Equal(t, prio.State{Nice: 2}, th.Base())

	for _, h := range []prio.Hint{prio.Query, prio.Query, prio.Wait} {
		s, err := th.Apply(h)
		require.NoError(t, err)
		assert.Equal(t, h.Nice(), s.Nice)
		assert.Equal(t, h.Nice(), fos.threads[fakeTid].Nice)
	}
	require.NoError(t, th.Unlock())
	assert.Equal(t, prio.State{Nice: 2}, fos.threads[fakeTid], "restored to the base")
	assert.Equal(t, prio.Stats{Calls: 3, Skipped: 1}, a.Stats(), "query, (query again skipped), wait, restore")
}

func TestIdlePolicy(t *testing.T) {
	tests := []struct {
		name       string
		privileged bool
		downward   bool
		hints      []prio.Hint
		wantClass  prio.Class
		wantErr    error
	}{
		{"background goes idle", false, false, []prio.Hint{prio.Background}, prio.ClassIdle, nil},
		{"leaving idle needs privilege", false, false, []prio.Hint{prio.Low, prio.Query}, prio.ClassIdle, syscall.EPERM},
		{"leaving idle with privilege", true, false, []prio.Hint{prio.Low, prio.Query}, prio.ClassOther, nil},
		{"downward never leaves idle", true, true, []prio.Hint{prio.Idle, prio.High}, prio.ClassIdle, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fos := newFakeOS(tt.privileged)
			a := newApplier(t, prio.PolicyIdle, fos, tt.downward)
			th, err := a.Lock()
			require.NoError(t, err)
			defer th.Release()
			var last error
			for _, h := range tt.hints {
				_, last = th.Apply(h)
			}
			if tt.wantErr != nil {
				assert.True(t, errors.Is(last, tt.wantErr), "got %v", last)
			} else {
				assert.NoError(t, last)
			}
			assert.Equal(t, tt.wantClass, th.State().Class)
			assert.Equal(t, tt.wantClass, fos.threads[fakeTid].Class)
			assert.Equal(t, 0, th.State().Nice, "idle policy leaves nice alone")
		})
	}
}

func TestOffNeverTouchesTheOS(t *testing.T) {
	fos := newFakeOS(true)
	a := newApplier(t, prio.PolicyOff, fos, false)
	var seen prio.Hint
	err := a.Do(context.Background(), prio.Query, func(ctx context.Context) error {
		seen, _ = prio.FromContext(ctx)
		return nil
	})
	require.NoError(t, err)
	th, err := a.Lock()
	require.NoError(t, err)
	_, err = th.Apply(prio.High)
	require.NoError(t, err)
	require.NoError(t, th.Unlock())
	assert.Equal(t, prio.Query, seen)
	assert.Empty(t, fos.calls, "system calls under policy off")
	assert.Equal(t, prio.Stats{Skipped: 2}, a.Stats())
}

func TestDoRunsTheWorkAndReportsRefusals(t *testing.T) {
	workErr := errors.New("query failed")
	tests := []struct {
		name       string
		policy     prio.Policy
		privileged bool
		failRead   bool
		work       error
		wantOS     error // errno the joined error must wrap, nil for none
	}{
		{"nice with privilege", prio.PolicyNice, true, false, nil, nil},
		{"nice without privilege", prio.PolicyNice, false, false, nil, syscall.EACCES},
		{"legacy", prio.PolicyLegacy, true, false, nil, syscall.EINVAL},
		{"legacy and the work fails", prio.PolicyLegacy, true, false, workErr, syscall.EINVAL},
		{"state unreadable", prio.PolicyNice, true, true, nil, prio.ErrNotSupported},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fos := newFakeOS(tt.privileged)
			if tt.failRead {
				fos.fail["sched_getscheduler"] = prio.ErrNotSupported
			}
			a := newApplier(t, tt.policy, fos, false)
			ran := 0
			var during prio.State
			err := a.Do(context.Background(), prio.Query, func(ctx context.Context) error {
				ran++
				during = fos.threads[fakeTid]
				return tt.work
			})
			assert.Equal(t, 1, ran, "the work runs exactly once")
			if tt.work != nil {
				assert.True(t, errors.Is(err, tt.work), "work error kept: %v", err)
			}
			if tt.wantOS != nil {
				assert.True(t, errors.Is(err, tt.wantOS), "got %v", err)
			} else {
				assert.NoError(t, err)
				assert.Equal(t, prio.Query.Nice(), during.Nice, "hint in force during the work")
			}
			assert.Equal(t, prio.State{}, fos.threads[fakeTid], "thread restored afterwards")
			st := a.Stats()
			assert.LessOrEqual(t, st.Failed, st.Calls)
		})
	}
}

func TestDoOnADoneContextRunsNothing(t *testing.T) {
	fos := newFakeOS(true)
	a := newApplier(t, prio.PolicyNice, fos, false)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := a.Do(ctx, prio.Query, func(context.Context) error {
		t.Error("work ran on a canceled context")
		return nil
	})
	assert.ErrorIs(t, err, context.Canceled)
	assert.Empty(t, fos.calls)
}

func TestZeroApplierIsOff(t *testing.T) {
	var a prio.Applier
	assert.Equal(t, prio.PolicyOff, a.Policy())
	require.NoError(t, a.Do(context.Background(), prio.High, func(context.Context) error { return nil }))
	assert.Equal(t, prio.Stats{Skipped: 1}, a.Stats())
}

func TestThreadRefusesCallsAfterUnlockOrRelease(t *testing.T) {
	tests := []struct {
		name string
		end  func(*prio.Thread) error
	}{
		{"unlock", (*prio.Thread).Unlock},
		{"release", func(th *prio.Thread) error { th.Release(); return nil }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fos := newFakeOS(true)
			a := newApplier(t, prio.PolicyNice, fos, false)
			th, err := a.Lock()
			require.NoError(t, err)
			require.NoError(t, tt.end(th))
			calls := len(fos.calls)
			_, err = th.Apply(prio.Query)
			assert.ErrorIs(t, err, prio.ErrReleased)
			assert.ErrorIs(t, th.Restore(), prio.ErrReleased)
			assert.NoError(t, th.Unlock(), "a second Unlock does nothing")
			assert.Len(t, fos.calls, calls, "no system call after the end")
		})
	}
}

// TestDoRestoresWhenTheWorkPanics: a panic in the work (recovered further up, as
// net/http recovers a handler's) must not leave the goroutine running on at the
// hint's priority: Do restores the thread on the way out and the panic goes on.
func TestDoRestoresWhenTheWorkPanics(t *testing.T) {
	tests := []struct {
		name   string
		policy prio.Policy
		hint   prio.Hint
	}{
		{"nice raised", prio.PolicyNice, prio.Query},
		{"nice lowered", prio.PolicyNice, prio.Background},
		{"idle", prio.PolicyIdle, prio.Background},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fos := newFakeOS(true)
			a := newApplier(t, tt.policy, fos, false)
			var during prio.State
			func() {
				defer func() { assert.Equal(t, "work panicked", recover(), "the panic goes on to the caller") }()
				_ = a.Do(context.Background(), tt.hint, func(context.Context) error {
					during = fos.threads[fakeTid]
					panic("work panicked")
				})
			}()
			assert.NotEqual(t, prio.State{}, during, "hint in force during the work")
			assert.Equal(t, prio.State{}, fos.threads[fakeTid], "thread restored after the panic")
		})
	}
}

// TestApplyRefusesAnUndefinedHint: a hint outside Idle..Interrupt is a caller's
// bug (aio rejects it as an invalid request); Apply must not turn it into the
// nearest level's priority — Hint(100) would silently become nice -20 — but
// return an error and make no call.
func TestApplyRefusesAnUndefinedHint(t *testing.T) {
	tests := []struct {
		name   string
		policy prio.Policy
		hint   prio.Hint
	}{
		{"nice, far above interrupt", prio.PolicyNice, 100},
		{"nice, below idle", prio.PolicyNice, -100},
		{"idle, below idle", prio.PolicyIdle, -5},
		{"legacy, above interrupt", prio.PolicyLegacy, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fos := newFakeOS(true)
			a := newApplier(t, tt.policy, fos, false)
			th, err := a.Lock()
			require.NoError(t, err)
			calls := len(fos.calls)
			st, err := th.Apply(tt.hint)
			assert.ErrorIs(t, err, prio.ErrInvalidConfig)
			assert.Equal(t, prio.State{}, st, "state unchanged")
			assert.Len(t, fos.calls, calls, "no system call for an undefined hint")
			require.NoError(t, th.Unlock())
		})
	}
}

// TestDoRefusesAnUndefinedHintUnderEveryPolicy: Do with a hint outside
// Idle..Interrupt returns ErrInvalidConfig and runs nothing, whatever the
// policy. Under PolicyOff it used to run fn with the hint in its context and
// return nil (aio would then refuse every request made with that context),
// while the other policies ran fn and reported the hint.
func TestDoRefusesAnUndefinedHintUnderEveryPolicy(t *testing.T) {
	for _, p := range []prio.Policy{prio.PolicyOff, prio.PolicyLegacy, prio.PolicyNice, prio.PolicyIdle} {
		for _, h := range []prio.Hint{prio.Idle - 1, prio.Interrupt + 1, 100} {
			t.Run(fmt.Sprintf("%v/%v", p, h), func(t *testing.T) {
				fos := newFakeOS(true)
				a := newApplier(t, p, fos, false)
				err := a.Do(context.Background(), h, func(context.Context) error {
					t.Error("work ran with an undefined hint")
					return nil
				})
				assert.ErrorIs(t, err, prio.ErrInvalidConfig)
				assert.ErrorContains(t, err, "Hint = ")
				assert.Empty(t, fos.calls)
				assert.Equal(t, prio.Stats{}, a.Stats())
			})
		}
	}
}
