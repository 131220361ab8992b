//go:build linux

package prio_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/innosim/innosim/prio"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// stressLong reports whether INNOSIM_STRESS=long asks for the long runs.
func stressLong() bool { return os.Getenv("INNOSIM_STRESS") == "long" }

// threadIDs lists the process's threads from /proc/self/task.
func threadIDs(t *testing.T) []int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/task")
	require.NoError(t, err)
	ids := make([]int, 0, len(ents))
	for _, e := range ents {
		if id, err := strconv.Atoi(e.Name()); err == nil {
			ids = append(ids, id)
		}
	}
	return ids
}

// threadAlive reports whether thread tid of this process still exists.
func threadAlive(tid int) bool {
	_, err := os.Stat("/proc/self/task/" + strconv.Itoa(tid))
	return err == nil
}

// stressOS is a fake kernel safe for concurrent use, keyed by the real thread
// ids (gettid), with Linux's rules for an unprivileged or a privileged user
// (as fakeOS) and one refusal in twenty injected on the calls that change
// something. Every thread starts at the zero State.
type stressOS struct {
	privileged bool

	mu                sync.Mutex
	threads           map[int]prio.State
	n, sets, refusals uint64
	injected          uint64
}

func (f *stressOS) Gettid() int { return unix.Gettid() }

func (f *stressOS) Getpriority(tid int) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return 20 - f.threads[tid].Nice, nil
}

func (f *stressOS) Getscheduler(tid int) (prio.Class, int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.threads[tid]
	return s.Class, s.Priority, nil
}

// set applies change to tid's state unless the call is refused, by the rules
// or by injection. Under f.mu.
func (f *stressOS) set(tid int, change func(s prio.State) (prio.State, error)) error {
	f.sets++
	f.n++
	if (f.n*0x9E3779B97F4A7C15)>>40%20 == 0 {
		f.injected++
		f.refusals++
		return syscall.EPERM
	}
	s, err := change(f.threads[tid])
	if err != nil {
		f.refusals++
		return err
	}
	f.threads[tid] = s
	return nil
}

func (f *stressOS) Setpriority(tid, nice int) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.set(tid, func(s prio.State) (prio.State, error) {
		if nice < s.Nice && !f.privileged {
			return s, syscall.EACCES
		}
		s.Nice = nice
		return s, nil
	})
}

func (f *stressOS) Setscheduler(tid int, class prio.Class, priority int) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.set(tid, func(s prio.State) (prio.State, error) {
		if priority != 0 && (class == prio.ClassOther || class == prio.ClassIdle) {
			return s, syscall.EINVAL
		}
		if s.Class == prio.ClassIdle && class != prio.ClassIdle && !f.privileged {
			return s, syscall.EPERM
		}
		s.Class, s.Priority = class, priority
		return s, nil
	})
}

func (f *stressOS) Setparam(tid, priority int) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.set(tid, func(s prio.State) (prio.State, error) {
		if priority != 0 && (s.Class == prio.ClassOther || s.Class == prio.ClassIdle) {
			return s, syscall.EINVAL
		}
		s.Priority = priority
		return s, nil
	})
}

// work applies random hints from many goroutines, through Do and through
// Lock/Apply/Unlock, checking inside each piece of work that the state the
// Thread reports is the one the kernel holds. Each goroutine exits at the
// end, so a thread it kept locked after a refused restore ends with it.
func work(t *testing.T, appliers []*prio.Applier, goroutines, each int, seed uint64) (ops, refusals uint64) {
	var (
		wg      sync.WaitGroup
		nOps    atomic.Uint64
		nRefuse atomic.Uint64
	)
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(seed, uint64(g)))
			for range each {
				a := appliers[rng.IntN(len(appliers))]
				h := prio.Hint(rng.IntN(9) - 4)
				nOps.Add(1)
				if rng.IntN(2) == 0 {
					err := a.Do(context.Background(), h, func(ctx context.Context) error {
						if got, _ := prio.FromContext(ctx); got != h {
							return errors.New("the hint is not in the context")
						}
						return nil
					})
					var oe *prio.OSError
					if err != nil && !errors.As(err, &oe) {
						t.Errorf("Do: %v", err)
						return
					}
					if err != nil {
						nRefuse.Add(1)
					}
					continue
				}
				th, err := a.Lock()
				if err != nil {
					t.Errorf("Lock: %v", err)
					return
				}
				if _, err := th.Apply(h); err != nil {
					nRefuse.Add(1)
				}
				if got, err := th.Read(); err != nil || got != th.State() {
					t.Errorf("the kernel holds %+v (%v), the Thread says %+v", got, err, th.State())
				}
				if err := th.Unlock(); err != nil {
					nRefuse.Add(1) // the goroutine stays locked; its thread ends with it
				}
			}
		}()
	}
	wg.Wait()
	return nOps.Load(), nRefuse.Load()
}

// Many goroutines apply and restore hints under every policy that makes calls,
// on a fake kernel that refuses what Linux refuses an unprivileged (or a
// privileged) user and one call in twenty besides. Afterwards every thread the
// kernel saw changed is back at its base state or has ended: no thread is left
// with a changed priority. The Applier's counters match the kernel's.
func TestStressNoThreadKeepsAChangedPriority(t *testing.T) {
	goroutines, each := 16, 200
	if stressLong() {
		goroutines, each = 64, 20_000
	}
	for _, privileged := range []bool{false, true} {
		t.Run("privileged="+strconv.FormatBool(privileged), func(t *testing.T) {
			fake := &stressOS{privileged: privileged, threads: map[int]prio.State{}}
			var appliers []*prio.Applier
			for _, p := range []prio.Policy{prio.PolicyNice, prio.PolicyIdle, prio.PolicyLegacy} {
				for _, down := range []bool{false, true} {
					a, err := prio.New(prio.Config{Policy: p, Downward: down, OS: fake})
					require.NoError(t, err)
					appliers = append(appliers, a)
				}
			}
			ops, refused := work(t, appliers, goroutines, each, 1)

			var calls, failed uint64
			for _, a := range appliers {
				st := a.Stats()
				require.LessOrEqual(t, st.Failed, st.Calls)
				calls, failed = calls+st.Calls, failed+st.Failed
			}
			fake.mu.Lock()
			require.Equal(t, fake.sets, calls, "every call the appliers counted reached the kernel")
			require.Equal(t, fake.refusals, failed, "every refusal was counted")
			require.Positive(t, fake.injected)
			changed := map[int]prio.State{}
			for tid, s := range fake.threads {
				if s != (prio.State{}) {
					changed[tid] = s
				}
			}
			fake.mu.Unlock()
			// A goroutine that exits locked ends its thread, except on the
			// process's main thread, which the runtime wedges instead (it
			// never runs Go code again; runtime.mexit): that one may keep the
			// change.
			require.Eventually(t, func() bool {
				for tid := range changed {
					if tid != os.Getpid() && threadAlive(tid) {
						return false
					}
				}
				return true
			}, 10*time.Second, 5*time.Millisecond, "threads left with a changed priority: %v", changed)
			t.Logf("%d goroutines × %d hints: %d calls, %d refused (%d injected), %d works saw a refusal, %d threads ended changed",
				goroutines, each, calls, failed, fake.injected, refused, len(changed))
			require.Equal(t, uint64(goroutines*each), ops)
		})
	}
}

// The same on the real kernel: nice and SCHED_IDLE applied and restored from
// many goroutines. Without CAP_SYS_NICE the restores that raise priority are
// refused and those threads end with their goroutines; either way, once the
// goroutines are done, every thread of the process is at the state the first
// one started in.
func TestStressRealKernelLeavesEveryThreadAtItsBase(t *testing.T) {
	goroutines, each := 16, 100
	if stressLong() {
		goroutines, each = 64, 5_000
	}
	base, err := prio.ReadState(prio.System(), unix.Gettid())
	require.NoError(t, err)
	var appliers []*prio.Applier
	for _, p := range []prio.Policy{prio.PolicyNice, prio.PolicyIdle} {
		a, err := prio.New(prio.Config{Policy: p})
		require.NoError(t, err)
		appliers = append(appliers, a)
	}
	ops, refused := work(t, appliers, goroutines, each, 2)
	var calls, failed uint64
	for _, a := range appliers {
		st := a.Stats()
		calls, failed = calls+st.Calls, failed+st.Failed
	}
	var left []string
	require.Eventually(t, func() bool {
		left = left[:0]
		for _, tid := range threadIDs(t) {
			if tid == os.Getpid() {
				continue // the main thread: wedged, not ended, if a goroutine exits locked on it
			}
			s, err := prio.ReadState(prio.System(), tid)
			if errors.Is(err, unix.ESRCH) {
				continue // ended meanwhile
			}
			require.NoError(t, err)
			if s != base {
				left = append(left, strconv.Itoa(tid))
			}
		}
		return len(left) == 0
	}, 5*time.Second, 5*time.Millisecond, "threads not at base %+v: %v", base, left)
	t.Logf("%d hints on the real kernel: %d calls, %d refused, %d works saw a refusal", ops, calls, failed, refused)
}
