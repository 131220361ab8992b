package concurrency

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A Thread holding gate a's seat, used with gate b, used to corrupt b: its
// ForceExit freed a seat b never counted (b's Inside went to -1, so the next
// two threads both got b's one seat), and its Enter was admitted on a's
// tickets. Each call on b is now refused with ErrThreadOfOtherGate and changes
// nothing; once a has its seat back, b admits the thread.
func TestThreadOfOtherGateIsRefused(t *testing.T) {
	ctx := context.Background()
	for _, p := range []Policy{PolicyQueue, PolicyAtomic, PolicySemaphore, PolicyHandoff, PolicyAdaptive} {
		t.Run(p.String(), func(t *testing.T) {
			a, err := New(p, DefaultConfig(1))
			require.NoError(t, err)
			b, err := New(p, DefaultConfig(1))
			require.NoError(t, err)
			th := &Thread{}
			require.NoError(t, a.Enter(ctx, th))

			err = b.Enter(ctx, th)
			require.ErrorIs(t, err, ErrThreadOfOtherGate)
			assert.EqualError(t, err, "concurrency: Enter: "+ErrThreadOfOtherGate.Error())
			for name, call := range map[string]func(*Thread){"Exit": b.Exit, "ForceExit": b.ForceExit, "ForceEnter": b.ForceEnter} {
				assert.PanicsWithError(t, "concurrency: "+name+": "+ErrThreadOfOtherGate.Error(), func() { call(th) }, name)
			}
			assert.Zero(t, b.Stats().Inside, "b counts no seat")
			assert.Zero(t, b.Stats().Exits, "b counts no exit")
			assert.True(t, th.Inside(), "the thread keeps a's seat")
			if p != PolicySemaphore { // Semaphore counts no seats in Stats
				assert.Equal(t, int64(1), a.Stats().Inside)
			}

			a.ForceExit(th)
			require.NoError(t, b.Enter(ctx, th), "free of a, the thread may use b")
			other := &Thread{}
			cctx, cancel := context.WithCancel(ctx)
			cancel()
			assert.ErrorIs(t, b.Enter(cctx, other), context.Canceled, "b's one seat is held")
			b.ForceExit(th)
			assert.Zero(t, b.Stats().Inside)
		})
	}
}

// Statement on gate b with a Thread inside gate a used to take "inside" for a
// nested statement of b and run fn with no seat of b at all, b's limit
// unchecked and no error. It is refused as b.Enter is, fn does not run, and
// both gates are unchanged; Unlimited, which counts no seats, still runs fn.
func TestStatementWithThreadOfOtherGateIsRefused(t *testing.T) {
	ctx := context.Background()
	for _, p := range []Policy{PolicyQueue, PolicyAtomic, PolicySemaphore, PolicyHandoff, PolicyAdaptive} {
		t.Run(p.String(), func(t *testing.T) {
			a, err := New(p, DefaultConfig(1))
			require.NoError(t, err)
			b, err := New(p, DefaultConfig(1))
			require.NoError(t, err)
			th := &Thread{}
			require.NoError(t, a.Enter(ctx, th))

			ran := false
			err = Statement(ctx, b, th, func() error { ran = true; return nil })
			require.ErrorIs(t, err, ErrThreadOfOtherGate)
			assert.False(t, ran, "fn runs without a seat of b")
			assert.Zero(t, b.Stats().Enters, "b admits nobody")
			assert.True(t, th.Inside(), "the thread keeps a's seat")

			require.NoError(t, Statement(ctx, a, th, func() error { ran = true; return nil }))
			assert.True(t, ran, "a nested statement of a runs on a's seat")
			assert.True(t, th.Inside(), "and leaves it held")
			a.ForceExit(th)
		})
	}
	t.Run("unlimited", func(t *testing.T) {
		a, err := New(PolicyHandoff, DefaultConfig(1))
		require.NoError(t, err)
		th := &Thread{}
		require.NoError(t, a.Enter(ctx, th))
		ran := false
		require.NoError(t, Statement(ctx, Unlimited{}, th, func() error { ran = true; return nil }))
		assert.True(t, ran, "Unlimited admits every thread")
		assert.True(t, th.Inside(), "a's seat is left alone")
	})
}

// WaitOutside on gate b with a Thread inside gate a panicked (b's ForceExit
// refusing the Thread) where Statement now returns the error: it returns
// ErrThreadOfOtherGate too, without running wait, and a's seat stays held.
func TestWaitOutsideWithThreadOfOtherGateIsRefused(t *testing.T) {
	ctx := context.Background()
	for _, p := range []Policy{PolicyQueue, PolicyAtomic, PolicySemaphore, PolicyHandoff, PolicyAdaptive} {
		t.Run(p.String(), func(t *testing.T) {
			a, err := New(p, DefaultConfig(1))
			require.NoError(t, err)
			b, err := New(p, DefaultConfig(1))
			require.NoError(t, err)
			th := &Thread{}
			require.NoError(t, a.Enter(ctx, th))
			ran := false
			require.NotPanics(t, func() {
				err = WaitOutside(b, th, func() error { ran = true; return nil })
			})
			require.ErrorIs(t, err, ErrThreadOfOtherGate)
			assert.False(t, ran)
			assert.True(t, th.Inside(), "the thread keeps a's seat")
			a.ForceExit(th)
		})
	}
}
