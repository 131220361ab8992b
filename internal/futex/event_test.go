package futex

import (
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestEventZeroValueIsResetWithCountZero(t *testing.T) {
	var e Event
	require.False(t, e.IsSet())
	require.Equal(t, uint32(0), e.SignalCount())
	require.False(t, e.WaitTimeout(0, 0), "a reset event with an unchanged count is not ready")
}

func TestEventSetIsIdempotentAndCountsOnce(t *testing.T) {
	var e Event
	e.Set()
	e.Set()
	require.True(t, e.IsSet())
	require.Equal(t, uint32(1), e.SignalCount())
	require.Equal(t, uint64(0), e.Syscalls(), "Set with no waiter must not enter the kernel")
}

func TestEventSetBetweenResetAndWaitIsNotLost(t *testing.T) {
	var e Event
	c := e.Reset()
	e.Set()
	e.Reset() // another thread resets before we wait: the count still moved
	require.True(t, e.WaitTimeout(c, time.Second), "wait must see the count change")
}

func TestEventWaitTimesOut(t *testing.T) {
	var e Event
	c := e.Reset()
	require.False(t, e.WaitTimeout(c, 5*time.Millisecond))
	require.Equal(t, 0, e.Waiters())
}

func TestEventWaitSleepsUntilSet(t *testing.T) {
	var e Event
	c := e.Reset()
	done := make(chan struct{})
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		e.Wait(c)
		close(done)
	}()
	for e.Waiters() == 0 {
		time.Sleep(100 * time.Microsecond)
	}
	select {
	case <-done:
		t.Fatal("Wait returned before Set")
	case <-time.After(2 * time.Millisecond):
	}
	e.Set()
	<-done
	if Supported() {
		require.GreaterOrEqual(t, e.Syscalls(), uint64(2), "one FUTEX_WAIT and one FUTEX_WAKE at least")
	}
}

// A producer sets the event after each item; a consumer resets, checks for work
// and waits. Every item must be consumed: a lost wakeup hangs the test.
func TestEventProducerConsumerLosesNoWakeup(t *testing.T) {
	const items = 20000
	var (
		e    Event
		mu   sync.Mutex
		have int
		got  int
	)
	done := make(chan struct{})
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		defer close(done)
		for got < items {
			c := e.Reset()
			mu.Lock()
			n := have
			have = 0
			mu.Unlock()
			if n == 0 {
				e.Wait(c)
				continue
			}
			got += n
		}
	}()
	for i := 0; i < items; i++ {
		mu.Lock()
		have++
		mu.Unlock()
		e.Set()
	}
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("consumer stuck: a wakeup was lost")
	}
	require.Equal(t, items, got)
}
