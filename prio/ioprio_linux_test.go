//go:build linux

package prio_test

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/innosim/innosim/prio"
)

// SetIOPrio and GetIOPrio act on the calling thread (tid 0), which the test
// locks and leaves locked, so that Go ends the thread with its changed
// priority instead of giving it to another goroutine.
func TestSetIOPrioOnTheCallingThread(t *testing.T) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread()
		for _, h := range []prio.Hint{prio.Background, prio.Idle, prio.High, prio.Normal} {
			assert.NoError(t, prio.SetIOPrio(0, h.IOPrio()))
			got, err := prio.GetIOPrio(0)
			assert.NoError(t, err)
			assert.Equal(t, h.IOPrio(), got, "%s", h)
		}
		bad := prio.IOPrio(7 << 13) // no such class
		err := prio.SetIOPrio(0, bad)
		var oe *prio.OSError
		if assert.ErrorAs(t, err, &oe) {
			assert.Equal(t, "ioprio_set", oe.Call)
		}
	}()
	<-done
}
