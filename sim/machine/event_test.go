package machine

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestEventKeepsASetBetweenResetAndWait(t *testing.T) {
	var e Event
	count := e.Reset()
	assert.False(t, e.Ready(count), "a reset event with no Set since: the wait sleeps")
	assert.True(t, e.Set(), "reset to set")
	assert.False(t, e.Set(), "a Set on a set event changes nothing")
	assert.True(t, e.Ready(count))
	e.Reset()
	assert.False(t, e.IsSet())
	assert.True(t, e.Ready(count), "reset again, but set since the count was taken: the wait returns")
	assert.False(t, e.Ready(e.Reset()), "a fresh count: the wait sleeps")
}
